//! `@import` rules: which sheets a stylesheet pulls in, and on what conditions.
//!
//! The engine fetches what these name (see `sitescan_engine`'s scan pipeline)
//! and hands the sheets to the rules in cascade order: each imported sheet
//! before the sheet that imports it, as if its rules were written in place of
//! the `@import`, which CSS requires to come before every other rule.

use cssparser::{
    AtRuleParser, CowRcStr, ParseError, Parser, ParserState, QualifiedRuleParser, StyleSheetParser,
    Token,
};

use std::sync::Arc;

use url::Url;

use super::supports::supports_applies;
use super::Viewport;
use crate::page::{MissingStylesheet, Stylesheet};

/// `@import` nesting followed below a linked sheet (browsers set no limit;
/// real themes nest two or three deep). A deeper import is a missing sheet.
pub const MAX_IMPORT_DEPTH: usize = 4;

/// What a page may still hold while its sheets are gathered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Room {
    /// Stylesheets (linked and imported).
    pub sheets: usize,
    /// Bytes of stylesheet text.
    pub bytes: usize,
}

/// One sheet of the walk, its imports followed one by one.
struct Frame {
    url: Url,
    text: Arc<str>,
    imports: std::vec::IntoIter<Import>,
    import_media: Vec<String>,
    layer: Option<String>,
}

/// An import whose text the walk waits for.
struct Pending {
    url: Url,
    import_media: Vec<String>,
    layer: Option<String>,
}

/// Follows the `@import` chain of one linked sheet, depth first, without
/// recursion (a hostile chain costs a bounded stack of frames), asking its
/// caller for each imported sheet's text: the engine fetches them (once per
/// scan, through its polite and guarded fetch path), tests read them from a
/// map. The sheets come out in cascade order: each imported sheet before
/// the sheet importing it, as if written in place of its `@import`.
///
/// Imports that cannot apply ([`Import::may_apply`]: a print-only media
/// list, a false `supports()`) are not asked for; an import of a sheet
/// already open in the chain (a cycle) is ignored, as browsers ignore it;
/// one nested deeper than [`MAX_IMPORT_DEPTH`], or whose text could not be
/// had, is recorded missing; one past the page's [`Room`] is counted in
/// [`ImportWalk::skipped`].
pub struct ImportWalk {
    link_media: Option<String>,
    stack: Vec<Frame>,
    pending: Option<Pending>,
    room: Room,
    /// Names the walk's anonymous layers apart from other walks' on the page.
    root: String,
    /// For a `<style>` element's walk: [`Stylesheet::style_element`].
    style_element: Option<u64>,
    anonymous: usize,
    /// Layers `@layer` statements declared ahead of an `@import` (dotted),
    /// not yet handed to a sheet: the next sheet out carries them in
    /// [`Stylesheet::layers_before`].
    declared: Vec<String>,
    /// The sheets walked, in cascade order.
    pub sheets: Vec<Stylesheet>,
    /// Imported sheets that could not be had, in the order met.
    pub missing: Vec<MissingStylesheet>,
    /// Imported sheets not asked for: the page had no room left.
    pub skipped: usize,
}

impl ImportWalk {
    /// A walk from the linked sheet at `url` (its `<link media>` and text),
    /// within what the page has `room` for (this sheet included). The text
    /// is shared, not copied: the engine's per-scan sheet cache holds it too.
    ///
    /// For a `<style>` element, `url` is the page's base URL (imports
    /// resolve against it) and the walk's last sheet, the element itself, is
    /// left to the caller (the cascade reads it from the document).
    pub fn new(url: Url, link_media: Option<String>, text: Arc<str>, room: Room) -> ImportWalk {
        let room = Room {
            sheets: room.sheets.saturating_sub(1),
            bytes: room.bytes.saturating_sub(text.len()),
        };
        let mut walk = ImportWalk {
            link_media,
            stack: Vec::new(),
            pending: None,
            room,
            root: url.to_string(),
            style_element: None,
            anonymous: 0,
            declared: Vec::new(),
            sheets: Vec::new(),
            missing: Vec::new(),
            skipped: 0,
        };
        walk.open(url, text, Vec::new(), None);
        walk
    }

    /// A walk from a `<style>` element (its `media` attribute and text),
    /// whose imports resolve against the page's `base` URL. The sheets it
    /// gives are the imported ones only, each marked with
    /// [`Stylesheet::style_element`] = [`style_key`] of `text`: the cascade
    /// reads the element itself from the document and places them before it.
    pub fn for_style_element(
        base: Url,
        media: Option<String>,
        text: Arc<str>,
        room: Room,
    ) -> ImportWalk {
        let key = style_key(&text);
        let mut walk = ImportWalk::new(base, media, text, room);
        walk.root = format!("{}<style {key:x}>", walk.root);
        walk.style_element = Some(key);
        walk
    }

    fn open(&mut self, url: Url, text: Arc<str>, import_media: Vec<String>, layer: Option<String>) {
        let imports = imports(&text).into_iter();
        self.stack.push(Frame {
            url,
            text,
            imports,
            import_media,
            layer,
        });
    }

    /// The next imported sheet whose text the walk needs (answer with
    /// [`ImportWalk::fetched`]), or `None` when the walk is over.
    pub fn next_fetch(&mut self) -> Option<Url> {
        if let Some(p) = &self.pending {
            return Some(p.url.clone());
        }
        while let Some(top) = self.stack.last_mut() {
            let Some(import) = top.imports.next() else {
                if let Some(done) = self.stack.pop() {
                    if self.stack.is_empty() && self.style_element.is_some() {
                        // The `<style>` element itself: the cascade reads it.
                        continue;
                    }
                    self.sheets.push(Stylesheet {
                        url: done.url.to_string(),
                        text: done.text,
                        media: self.link_media.clone(),
                        import_media: done.import_media,
                        layer: done.layer,
                        layers_before: std::mem::take(&mut self.declared),
                        style_element: self.style_element,
                        styles_before: 0,
                    });
                }
                continue;
            };
            // `@layer a, b;` ahead of this `@import` fixes the order of a and
            // b before any layer the imported sheet names: record them for
            // the next sheet out, which comes first in cascade order.
            for name in &import.layers_before {
                let full = match &top.layer {
                    Some(outer) => format!("{outer}.{name}"),
                    None => name.clone(),
                };
                if self.declared.len() < MAX_DECLARED && !self.declared.contains(&full) {
                    self.declared.push(full);
                }
            }
            if !import.may_apply() {
                continue;
            }
            let Ok(url) = top.url.join(import.url.trim()) else {
                // A browser cannot load it either.
                self.missing.push(MissingStylesheet {
                    url: import.url.clone(),
                    reason: "not a valid URL".into(),
                    browser_too: true,
                });
                continue;
            };
            let (parent_media, parent_layer) = (top.import_media.clone(), top.layer.clone());
            if self.stack.iter().any(|f| f.url == url) {
                continue;
            }
            if self.stack.len() > MAX_IMPORT_DEPTH {
                self.missing.push(MissingStylesheet::new(
                    url.to_string(),
                    None,
                    format!("imported more than {MAX_IMPORT_DEPTH} levels deep"),
                ));
                continue;
            }
            if self.room.sheets == 0 || self.room.bytes == 0 {
                self.skipped += 1;
                continue;
            }
            let mut import_media = parent_media;
            import_media.extend(import.media.clone());
            let layer = match import.layer.as_deref() {
                None => parent_layer,
                Some(name) => {
                    let name = if name.is_empty() {
                        // Unique on the page: walks of other sheets count
                        // from 1 too, so the walk's root names it.
                        self.anonymous += 1;
                        format!("\u{0}import{}@{}", self.anonymous, self.root)
                    } else {
                        name.to_string()
                    };
                    Some(match parent_layer {
                        Some(outer) => format!("{outer}.{name}"),
                        None => name,
                    })
                }
            };
            self.pending = Some(Pending {
                url: url.clone(),
                import_media,
                layer,
            });
            return Some(url);
        }
        None
    }

    /// The text of the sheet [`ImportWalk::next_fetch`] asked for, or why it
    /// could not be had (as [`MissingStylesheet::new`] takes it: the status
    /// the server answered, if it did, and the reason).
    pub fn fetched(&mut self, text: Result<Arc<str>, (Option<u16>, String)>) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        match text {
            Ok(text) => {
                self.room.sheets = self.room.sheets.saturating_sub(1);
                self.room.bytes = self.room.bytes.saturating_sub(text.len());
                self.open(pending.url, text, pending.import_media, pending.layer);
            }
            Err((status, reason)) => self.missing.push(MissingStylesheet::new(
                pending.url.to_string(),
                status,
                reason,
            )),
        }
    }

    /// Runs the whole walk, asking `text_of` for each imported sheet.
    pub fn run(
        mut self,
        mut text_of: impl FnMut(&Url) -> Result<Arc<str>, (Option<u16>, String)>,
    ) -> Self {
        while let Some(url) = self.next_fetch() {
            let text = text_of(&url);
            self.fetched(text);
        }
        self
    }
}

/// Layer names recorded ahead of imports in one walk at most (a bound on
/// what a hostile chain of `@layer` statements costs).
const MAX_DECLARED: usize = 256;

/// The key that ties the sheets a `<style>` element imports to the element
/// ([`Stylesheet::style_element`]): a hash of its text (FxHash, the same in
/// every process, so a page that travels between processes keeps it).
pub fn style_key(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    text.hash(&mut h);
    h.finish()
}

/// `@import` rules read from one sheet at most; the engine caps the sheets a
/// page may pull in far lower, this only bounds the parse of a hostile sheet.
const MAX_IMPORTS: usize = 256;

/// One `@import` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The URL as written (unresolved).
    pub url: String,
    /// The media query list after the URL; `None` when absent (all media).
    pub media: Option<String>,
    /// `layer` (`Some("")`, an anonymous layer) or `layer(name)`; `None`
    /// when the sheet is not imported into a layer.
    pub layer: Option<String>,
    /// Whether the `supports(…)` condition holds (true when absent), evaluated
    /// as [`supports_applies`].
    pub supported: bool,
    /// Layers named by `@layer` statements between the previous `@import`
    /// (or the sheet's start) and this one: their order is fixed before any
    /// layer the imported sheet names.
    pub layers_before: Vec<String>,
}

impl Import {
    /// Whether the imported sheet can apply at all: its `supports()` holds and
    /// its media hold at one of the viewports the rules judge (a print-only
    /// sheet does not, and need not be fetched).
    pub fn may_apply(&self) -> bool {
        self.supported && media_may_apply(self.media.as_deref())
    }
}

/// Whether a media query list (`None`: all media) can hold at one of the
/// viewports the rules judge ([`Viewport::DESKTOP`], [`Viewport::ZOOMED`]):
/// a sheet for print only changes nothing they judge.
pub fn media_may_apply(media: Option<&str>) -> bool {
    media.is_none_or(|m| {
        super::media_applies_at(m, Viewport::DESKTOP)
            || super::media_applies_at(m, Viewport::ZOOMED)
    })
}

/// The `@import` rules at the start of `text`, in order. CSS ignores an
/// `@import` after any other rule (only `@charset` and `@layer` statements may
/// come before), and so does this.
pub fn imports(text: &str) -> Vec<Import> {
    // Most sheets import nothing: skip the tokenizer for them.
    if !text
        .as_bytes()
        .windows(7)
        .any(|w| w.eq_ignore_ascii_case(b"@import"))
    {
        return Vec::new();
    }
    let mut parser = Parser::new(text);
    let mut reader = ImportReader;
    let mut out = Vec::new();
    let mut layers = Vec::new();
    for item in StyleSheetParser::new(&mut parser, &mut reader) {
        match item {
            Ok(Item::Import(mut import)) => {
                import.layers_before = std::mem::take(&mut layers);
                out.push(import);
                if out.len() == MAX_IMPORTS {
                    break;
                }
            }
            Ok(Item::Layers(names)) => {
                let room = MAX_DECLARED.saturating_sub(layers.len());
                layers.extend(names.into_iter().take(room));
            }
            Ok(Item::Allowed) => {}
            // Anything else ends the imports, a rule the parser rejected too.
            Ok(Item::Other) | Err(_) => break,
        }
    }
    out
}

enum Item {
    Import(Import),
    /// `@layer a, b;`: the names, in order.
    Layers(Vec<String>),
    /// `@charset`, `@layer a, b;` (allowed before `@import`), or an invalid
    /// `@import` (dropped).
    Allowed,
    Other,
}

enum Prelude {
    Import(Import),
    Layers(Vec<String>),
    Allowed,
    Other,
}

struct ImportReader;

impl<'i> QualifiedRuleParser<'i> for ImportReader {
    type Prelude = ();
    type QualifiedRule = Item;
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        while input.next().is_ok() {}
        Ok(())
    }

    fn parse_block(
        &mut self,
        _prelude: (),
        _start: &ParserState,
        _input: &mut Parser<'i>,
    ) -> Result<Item, ParseError<()>> {
        Ok(Item::Other)
    }
}

impl<'i> AtRuleParser<'i> for ImportReader {
    type Prelude = Prelude;
    type AtRule = Item;
    type Error = ();

    fn parse_prelude(
        &mut self,
        name: CowRcStr<'i>,
        input: &mut Parser<'i>,
    ) -> Result<Prelude, ParseError<()>> {
        let name = name.to_ascii_lowercase();
        if name == "layer" {
            // Names as the cascade reads them (`css::SheetParser`).
            let start = input.position();
            while input.next_including_whitespace_and_comments().is_ok() {}
            let names = input
                .slice_from(start)
                .split(',')
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect();
            return Ok(Prelude::Layers(names));
        }
        if name == "charset" {
            while input.next().is_ok() {}
            return Ok(Prelude::Allowed);
        }
        if name != "import" {
            while input.next().is_ok() {}
            return Ok(Prelude::Other);
        }
        let url = match input.next()?.clone() {
            Token::UnquotedUrl(u) | Token::QuotedString(u) => u.to_string(),
            Token::Function(f) if f.eq_ignore_ascii_case("url") => {
                input.parse_nested_block(|i| Ok(i.expect_string()?.to_string()))?
            }
            // An `@import` without a URL is dropped, as browsers drop it.
            _ => {
                while input.next().is_ok() {}
                return Ok(Prelude::Allowed);
            }
        };
        let start = input.position();
        while input.next().is_ok() {}
        let rest = input.slice_from(start).trim();
        Ok(Prelude::Import(conditions(url, rest)))
    }

    fn rule_without_block(&mut self, prelude: Prelude, _start: &ParserState) -> Result<Item, ()> {
        Ok(match prelude {
            Prelude::Import(i) => Item::Import(i),
            Prelude::Layers(names) => Item::Layers(names),
            Prelude::Allowed => Item::Allowed,
            Prelude::Other => Item::Other,
        })
    }

    fn parse_block(
        &mut self,
        prelude: Prelude,
        _start: &ParserState,
        _input: &mut Parser<'i>,
    ) -> Result<Item, ParseError<()>> {
        // `@layer x { … }` is a rule: imports after it are ignored.
        let _ = prelude;
        Ok(Item::Other)
    }
}

/// Reads `[layer | layer(name)] [supports(…)] [media]` after the URL.
fn conditions(url: String, rest: &str) -> Import {
    let mut rest = rest;
    let mut layer = None;
    let lower = rest.to_ascii_lowercase();
    if lower.starts_with("layer(") {
        let end = rest.find(')').unwrap_or(rest.len());
        layer = Some(rest[6..end].trim().to_string());
        rest = rest.get(end + 1..).unwrap_or("").trim_start();
    } else if lower == "layer" || lower.starts_with("layer ") {
        layer = Some(String::new());
        rest = rest[5..].trim_start();
    }
    let mut supported = true;
    if rest.to_ascii_lowercase().starts_with("supports(") {
        let bytes = rest.as_bytes();
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, &b) in bytes.iter().enumerate().skip(8) {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let inner = rest[9..end.max(9)].trim();
        // `supports(display: grid)` tests a bare declaration.
        supported = if inner.starts_with('(') || inner.contains(' ') && !inner.contains(':') {
            supports_applies(inner)
        } else {
            supports_applies(&format!("({inner})"))
        };
        rest = rest.get(end + 1..).unwrap_or("").trim_start();
    }
    let media = rest.trim();
    Import {
        url,
        media: (!media.is_empty()).then(|| media.to_string()),
        layer,
        supported,
        layers_before: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn import(url: &str, media: Option<&str>, layer: Option<&str>, supported: bool) -> Import {
        Import {
            url: url.into(),
            media: media.map(Into::into),
            layer: layer.map(Into::into),
            supported,
            layers_before: Vec::new(),
        }
    }

    #[test]
    fn reads_the_leading_imports_with_their_conditions() {
        let got = imports(
            r#"@charset "utf-8"; @layer base, theme;
            @import url(a.css);
            @import "b.css" print;
            @IMPORT url("c.css") layer(theme) supports(display: grid) screen and (min-width: 40em);
            @import url(d.css) layer supports(not (display: grid));
            @import 42;
            p { color: red }
            @import url(late.css);"#,
        );
        let mut first = import("a.css", None, None, true);
        first.layers_before = vec!["base".into(), "theme".into()];
        assert_eq!(
            got,
            vec![
                first,
                import("b.css", Some("print"), None, true),
                import(
                    "c.css",
                    Some("screen and (min-width: 40em)"),
                    Some("theme"),
                    true
                ),
                import("d.css", None, Some(""), false),
            ]
        );
        assert!(got[0].may_apply());
        assert!(!got[1].may_apply());
        assert!(got[2].may_apply());
        assert!(!got[3].may_apply());
        assert!(imports("p { color: red }").is_empty());
        assert!(imports("@media print { } @import url(x.css);").is_empty());
    }

    #[test]
    fn layers_declared_ahead_of_an_import_go_with_the_next_sheet_out() {
        let root = Url::parse("https://e.test/css/main.css").unwrap();
        let room = Room {
            sheets: 10,
            bytes: 1 << 20,
        };
        let text_of = |url: &Url| -> Result<Arc<str>, (Option<u16>, String)> {
            match url.path() {
                "/css/b.css" => Ok("@layer c; @import url(d.css) layer(d); p{}".into()),
                "/css/d.css" => Ok("p{}".into()),
                _ => Err((Some(404), "HTTP 404".into())),
            }
        };
        let main: Arc<str> = "@layer a, b;\n@import url(b.css) layer(b);\n@layer a { p{} }".into();
        let walk = ImportWalk::new(root.clone(), None, Arc::clone(&main), room).run(text_of);
        let got: Vec<(&str, Option<&str>, Vec<&str>)> = walk
            .sheets
            .iter()
            .map(|s| {
                (
                    s.url.as_str(),
                    s.layer.as_deref(),
                    s.layers_before.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "https://e.test/css/d.css",
                    Some("b.d"),
                    vec!["a", "b", "b.c"]
                ),
                ("https://e.test/css/b.css", Some("b"), vec![]),
                ("https://e.test/css/main.css", None, vec![]),
            ]
        );
        // The linked sheet's text is the caller's, not a copy.
        assert!(Arc::ptr_eq(&walk.sheets[2].text, &main));

        // A `<style>` element's walk gives the imported sheets only, tied to
        // the element by its key.
        let base = Url::parse("https://e.test/doc/page.html").unwrap();
        let style = "@import url(/css/d.css); p { color: red }";
        let walk = ImportWalk::for_style_element(base, None, style.into(), room).run(text_of);
        let got: Vec<(&str, Option<u64>)> = walk
            .sheets
            .iter()
            .map(|s| (s.url.as_str(), s.style_element))
            .collect();
        assert_eq!(
            got,
            vec![("https://e.test/css/d.css", Some(style_key(style)))]
        );
    }
}
