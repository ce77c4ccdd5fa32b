//! Content-quality rules: placeholders, empty controls, readability, long text,
//! stale notices, contact links. One file per rule, named for its id.

// Each rule of the category, in report order: its module (the file named for
// its id) and its type. Adding a rule is its file plus one line here.
crate::rule_modules! { page:
    placeholder_text::PlaceholderText,
    empty_link::EmptyLink,
    empty_button::EmptyButton,
    contact_links::ContactLinks,
    readability::Readability,
    long_sentences::LongSentences,
    long_paragraphs::LongParagraphs,
    outdated_copyright::OutdatedCopyright,
    spelling::Spelling,
    analysis_incomplete::AnalysisIncomplete,
}
