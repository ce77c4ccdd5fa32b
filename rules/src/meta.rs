//! Static metadata every rule declares next to its check.

use serde::{Deserialize, Serialize};

/// The five areas a rule belongs to; each gets its own score in a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// WCAG 2.1 A/AA and accessibility best practices.
    Accessibility,
    /// Search engine optimisation.
    Seo,
    /// Transport, headers, cookies, content security.
    Security,
    /// Static performance signals from crawl timings and markup.
    Performance,
    /// Content quality: broken links, placeholders, readability, spelling.
    Quality,
}

impl Category {
    /// Every category, in report order.
    pub const ALL: [Category; 5] = [
        Category::Accessibility,
        Category::Seo,
        Category::Security,
        Category::Performance,
        Category::Quality,
    ];

    /// The lowercase name used on the wire and in rule set names.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Accessibility => "accessibility",
            Category::Seo => "seo",
            Category::Security => "security",
            Category::Performance => "performance",
            Category::Quality => "quality",
        }
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// WCAG conformance level of the success criteria a rule checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Level {
    /// Level A.
    A,
    /// Level AA.
    AA,
}

/// How much a failure hurts the people it affects (axe-core's four steps).
///
/// Ordered from least to most severe, so `impact >= threshold` reads naturally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Impact {
    /// Annoyance or a missed opportunity.
    Minor,
    /// Noticeable friction for some users.
    Moderate,
    /// Serious barrier for some users.
    Serious,
    /// Blocks some users entirely.
    Critical,
}

impl Impact {
    /// Every impact, most severe first.
    pub const ALL: [Impact; 4] = [
        Impact::Critical,
        Impact::Serious,
        Impact::Moderate,
        Impact::Minor,
    ];

    /// The lowercase name used on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Impact::Minor => "minor",
            Impact::Moderate => "moderate",
            Impact::Serious => "serious",
            Impact::Critical => "critical",
        }
    }

    /// Weight of a rule of this impact in a category score (see `engine::report::score`).
    pub fn weight(self) -> u32 {
        match self {
            Impact::Critical => 10,
            Impact::Serious => 7,
            Impact::Moderate => 3,
            Impact::Minor => 1,
        }
    }
}

impl std::str::FromStr for Impact {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "minor" => Ok(Impact::Minor),
            "moderate" => Ok(Impact::Moderate),
            "serious" => Ok(Impact::Serious),
            "critical" => Ok(Impact::Critical),
            other => Err(format!(
                "unknown impact `{other}`: use one of critical, serious, moderate, minor"
            )),
        }
    }
}

impl std::fmt::Display for Impact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a rule is, declared once as a `static` in the rule's own file.
///
/// Ids are stable forever: tools filter and baseline on them.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RuleMeta {
    /// Stable kebab-case id, e.g. `image-alt`.
    pub id: &'static str,
    /// Area the rule scores in.
    pub category: Category,
    /// One-line title.
    pub title: &'static str,
    /// What to do about a failure, in one or two sentences.
    pub help: &'static str,
    /// A public page that explains the requirement.
    pub help_url: &'static str,
    /// WCAG 2.1 success criteria the rule checks (`["1.1.1"]`); empty outside accessibility.
    pub wcag: &'static [&'static str],
    /// WCAG level, for accessibility rules that map to a success criterion.
    pub level: Option<Level>,
    /// Impact of a failure.
    pub impact: Impact,
    /// ACT rule ids this rule implements (as axe-core lists them).
    pub act: &'static [&'static str],
    /// Accessibility best practice outside WCAG conformance (rule set `best-practice`).
    pub best_practice: bool,
    /// Only a person can decide: every applicable element is a review item
    /// (`cant-tell`), never a pass or a failure. Such rules are kept out of
    /// `wcag-a` and `wcag-aa`, which pipelines run after every deploy, so those
    /// sets report what a machine decided plus the undecidable cases of decidable
    /// checks; ask for them with the `review` set (or `accessibility`, `all`, an id).
    pub manual_review: bool,
    /// What the rule needs the engine to gather beyond the pages themselves
    /// (see [`Need`]). The engine gathers each only when a selected rule needs
    /// it; the scan loop never tests rule ids.
    #[serde(skip)]
    pub needs: &'static [Need],
    /// What the rule's findings are about, by default: one page (an element of
    /// it or the page as a whole), or a fact of the whole host that the engine
    /// reports once per host (see [`Scope`]). A finding about a subresource says
    /// so itself ([`crate::Finding::on_resource`]).
    pub scope: Scope,
    /// Rules that own the same mistake on the same element: when one of them
    /// reports the element on the page, this rule's finding on it is dropped
    /// (and not counted), so one problem is reported once. A page-level
    /// finding (no selector) is dropped when the owner has a page-level
    /// finding too. Applies only when the owner ran on the page.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub defers_to: &'static [&'static str],
    /// For rules that judge a measurement that varies from run to run (a
    /// download time, a time to first byte): where the finding's `data` holds
    /// the measured value and the limit, and how far over the limit a value may
    /// be and still count as noise when a scan is compared with a baseline
    /// (see `sitescan_engine::baseline`).
    #[serde(skip)]
    pub measured: Option<Measured>,
    /// Markdown docs: "What it checks", "Why it matters", "Failing" and "Passing"
    /// examples in fenced `html` blocks.
    #[serde(skip)]
    pub docs: &'static str,
}

/// Something a rule needs the engine to gather for it, beyond the pages the
/// crawl fetches. A rule lists its needs in [`RuleMeta::needs`]; the engine
/// asks the selection ([`crate::registry::Selection::needs`]) and does the
/// work only when some selected rule needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Need {
    /// The network facts of each page's subresources (scripts, stylesheets,
    /// images, fonts): [`crate::Page::subresources`] and their statuses.
    Subresources,
    /// The status of every link target (the link checks after the crawl).
    LinkStatus,
    /// Where each link is on its page (selector, text), to list the places a
    /// broken target is linked from.
    LinkPlaces,
    /// The status of every subresource URL (the resource checks after the crawl).
    ResourceStatus,
    /// The site's robots.txt as facts, fetched even when the crawl ignores it.
    Robots,
    /// The TLS handshake of the site's https origin.
    Tls,
    /// One request to the site with a foreign `Origin` header.
    CorsProbe,
    /// One request to the http: twin of an https start page.
    HttpProbe,
    /// The system's Hunspell dictionary, installed before the first page.
    Dictionary,
    /// The report's note on the pages skipped for their declared language
    /// (`readability` judges English text only; see
    /// [`crate::quality::readability::skipped_note`]).
    LanguageSkipNote,
    /// Render mode's keyboard walk of each page ([`crate::Page::interaction`]):
    /// Tab and Shift+Tab pressed in the browser, then the printable keys
    /// sent for single-key shortcuts. A static scan has no browser: the
    /// rules that need it report nothing there.
    Interaction,
    /// Render mode's layout of each page in narrow viewports
    /// ([`crate::narrow::NarrowFacts`] on [`crate::Page::rendered`]): 320 CSS
    /// pixels wide for reflow, 640 for text zoomed to 200%. A static scan has
    /// no browser: the rules that need it keep their cascade estimates there.
    NarrowViewport,
    /// Render mode's lab Web Vitals of each page ([`crate::Page::vitals`]):
    /// paint, layout-shift and long-task timings observed in the browser. A
    /// static scan has no browser: the rules that need them report nothing.
    WebVitals,
    /// Render mode's measured backdrop of text the browser cannot blend into
    /// one colour (over an image, a gradient, content behind), from a
    /// screenshot with the text hidden
    /// ([`crate::rendered::ElementFacts::backdrop`]). A static scan has no
    /// browser: the rules that need it keep their cascade estimates there.
    MeasuredBackdrop,
    /// Render mode's styles of links under `:hover` and `:focus`
    /// ([`crate::rendered::ElementFacts::states`]), forced in the browser. A
    /// static scan has no browser: the rules that need them read the
    /// stylesheets' `:hover` and `:focus` rules there.
    LinkStates,
}

/// What a finding is about, which decides how the engine groups findings that
/// say the same thing (one problem, one finding; the places it shows listed in
/// [`crate::Finding::occurrences`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// One page: an element of it, or the page as a whole. Never grouped.
    #[default]
    Page,
    /// A fact of the whole host (a response header the server sends, the
    /// protocol, the transport): the engine keeps one finding per rule, host
    /// (origin) and message, listing the pages as occurrences.
    Host,
    /// One subresource (a script, stylesheet, image, font) named by
    /// [`crate::Finding::resource`]: the engine keeps one finding per rule and
    /// resource URL per scan, listing the pages that load it as occurrences.
    Resource,
}

impl Scope {
    /// True for [`Scope::Page`] (left out of JSON: the default).
    pub fn is_page(&self) -> bool {
        *self == Scope::Page
    }
}

/// Where a measured finding keeps its value and limit (keys of its `data`), and
/// the noise margin of the measurement (see [`RuleMeta::measured`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// Key of the measured value in the finding's `data` (a number).
    pub value: &'static str,
    /// Key of the limit in the finding's `data` (a number).
    pub limit: &'static str,
    /// Share of the limit a measurement may exceed it by and still be noise:
    /// `0.5` treats values up to 1.5 × the limit as noise against a baseline
    /// in which the page passed.
    pub margin: f64,
}

impl Measured {
    /// The noise margin of timings taken by the crawler: a page measured at up
    /// to 1.5 × a timing limit may have been slowed by the network or by the
    /// machine running the scan rather than by the site.
    pub const TIMING_MARGIN: f64 = 0.5;

    /// The measured value and limit of a finding of this rule, when its data
    /// holds both as numbers.
    pub fn of(&self, data: Option<&serde_json::Value>) -> Option<(f64, f64)> {
        let data = data?;
        Some((
            data.get(self.value)?.as_f64()?,
            data.get(self.limit)?.as_f64()?,
        ))
    }

    /// Whether `value` is over `limit` by no more than the noise margin.
    pub fn within_noise(&self, value: f64, limit: f64) -> bool {
        value <= limit * (1.0 + self.margin)
    }
}

impl RuleMeta {
    /// A base to fill with struct update syntax in a `static`, so every rule file
    /// states only what differs.
    pub const BASE: RuleMeta = RuleMeta {
        id: "",
        category: Category::Accessibility,
        title: "",
        help: "",
        help_url: "",
        wcag: &[],
        level: None,
        impact: Impact::Moderate,
        act: &[],
        best_practice: false,
        manual_review: false,
        needs: &[],
        scope: Scope::Page,
        defers_to: &[],
        measured: None,
        docs: "",
    };
}
