//! What a rule sees while it runs ([`PageContext`], [`Check`]) and what it leaves
//! behind ([`Finding`], [`RuleTally`], [`PageAnalysis`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

use ego_tree::NodeId;
use scraper::{ElementRef, Html};
use serde::{Deserialize, Serialize};

use crate::aria::tree::TreeFacts;
use crate::budget::{Cancel, Limit, Overrun, PageBudget};
use crate::css::{ComputedStyle, SheetCaps, Styles, Viewport};
use crate::dom;
use crate::meta::{Category, Impact, RuleMeta, Scope};
use crate::page::Page;

/// The outcome of one rule for one element (or page), as ACT defines them.
///
/// Inapplicable is not an outcome value: a rule that recorded nothing on a page was
/// inapplicable there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The element meets the requirement.
    Passed,
    /// The element fails the requirement.
    Failed,
    /// Undecidable without a person (e.g. contrast over a background image).
    /// Never counts as a pass.
    CantTell,
}

/// One thing a person should fix or review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Id of the rule that reported it.
    pub rule_id: String,
    /// The rule's category.
    pub category: Category,
    /// `failed` or `cant-tell`.
    pub outcome: Outcome,
    /// The rule's impact.
    pub impact: Impact,
    /// URL of the page (final URL after redirects).
    pub page_url: String,
    /// CSS selector unique in the document; empty for page- or header-level findings.
    pub selector: String,
    /// Short HTML (or header) excerpt showing the problem.
    pub snippet: String,
    /// What is wrong, specifically.
    pub message: String,
    /// WCAG success criteria, copied from the rule.
    pub wcag: Vec<String>,
    /// Measured data, e.g. `{"contrast_ratio": 2.9, "expected": 4.5}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    /// Whether the finding was already in the baseline report the scan was compared
    /// with; absent when no baseline was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineState>,
    /// Every place the same problem shows, when one finding stands for many (a
    /// missing header of a whole host, a broken link target linked from several
    /// pages). `page_url`, `selector` and `snippet` above are the first of them.
    /// Empty (and absent from JSON) for a finding about one place, except where
    /// a place carries what the finding itself cannot (a broken link target
    /// linked once still lists its place, for the link text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub occurrences: Vec<Occurrence>,
    /// How many places in all, when `occurrences` was cut to its cap
    /// ([`MAX_OCCURRENCES`]); absent when every place is listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occurrences_total: Option<u64>,
    /// What the finding is about: `page` (absent from JSON; an element or the
    /// page itself), `host` (a fact of the whole host: one finding per host,
    /// its pages in `occurrences`) or `resource` (a subresource named by
    /// `resource`: one finding per resource, the pages loading it in
    /// `occurrences`).
    #[serde(default, skip_serializing_if = "Scope::is_page")]
    pub scope: Scope,
    /// URL of the subresource the finding is about (scope `resource`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The triage mark of the finding's fingerprint on its site (`ignored` or
    /// `false_positive`, set by the engine from the marks a scan was given,
    /// never by rules); a marked finding counts in no score, count or gate.
    /// Absent when unmarked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<Mark>,
    /// Id of the picture of the failing element (render mode), which the
    /// engine keeps beside the report; absent when none was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
}

/// The most places one finding lists in [`Finding::occurrences`]; beyond it only
/// [`Finding::occurrences_total`] counts them, so one problem on 100,000 pages
/// cannot grow a report without bound.
pub const MAX_OCCURRENCES: usize = 100;

/// One place where a grouped finding's problem shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occurrence {
    /// URL of the page (final URL after redirects).
    pub page_url: String,
    /// CSS selector unique in that page; empty for page- or header-level places.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub selector: String,
    /// Short HTML (or header) excerpt at that place.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub snippet: String,
    /// The link text or other label a person finds the place by, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Where a finding stands against a baseline report (set by the engine's baseline
/// comparison, never by rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BaselineState {
    /// Not in the baseline: introduced since.
    New,
    /// Also in the baseline.
    Unchanged,
}

/// Why a finding was marked: it is real but accepted (`ignored`), or the rule
/// was wrong (`false_positive`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkStatus {
    /// A real problem that the site's owners accept.
    Ignored,
    /// Not a problem: the rule judged wrongly.
    FalsePositive,
}

impl MarkStatus {
    /// The wire name: `ignored` or `false_positive`.
    pub fn as_str(self) -> &'static str {
        match self {
            MarkStatus::Ignored => "ignored",
            MarkStatus::FalsePositive => "false_positive",
        }
    }

    /// Parses the wire name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "ignored" => Some(MarkStatus::Ignored),
            "false_positive" => Some(MarkStatus::FalsePositive),
            _ => None,
        }
    }
}

/// A triage mark carried by a finding (see [`Finding::mark`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// `ignored` or `false_positive`.
    pub status: MarkStatus,
    /// Why, in the marker's words (may be empty).
    #[serde(default)]
    pub note: String,
    /// Who marked it, when known (a user's email or an API key's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// When it was marked.
    pub at: chrono::DateTime<chrono::Utc>,
}

impl Finding {
    /// Attaches measured data.
    pub fn with_data(&mut self, data: serde_json::Value) -> &mut Self {
        self.data = Some(data);
        self
    }

    /// Replaces the snippet (e.g. with a header line instead of markup).
    pub fn with_snippet(&mut self, snippet: impl Into<String>) -> &mut Self {
        self.snippet = snippet.into();
        self
    }

    /// Marks the finding as about one subresource (scope `resource`): the
    /// engine reports it once per scan with the pages that load it as
    /// occurrences.
    pub fn on_resource(&mut self, url: impl Into<String>) -> &mut Self {
        self.scope = Scope::Resource;
        self.resource = Some(url.into());
        self
    }

    /// How many places the finding stands for: `occurrences_total`, else the
    /// occurrences listed, else one.
    pub fn occurrence_count(&self) -> u64 {
        self.occurrences_total
            .unwrap_or(self.occurrences.len() as u64)
            .max(1)
    }
}

/// How many elements of one page a rule passed, failed or could not decide.
/// All zero means the rule was inapplicable on the page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleTally {
    /// Rule id.
    pub rule_id: String,
    /// Elements (or page-level checks) that passed.
    pub passed: u32,
    /// Elements that failed.
    pub failed: u32,
    /// Elements that need review.
    pub cant_tell: u32,
}

impl RuleTally {
    /// True when the rule found nothing to check on the page.
    pub fn inapplicable(&self) -> bool {
        self.passed == 0 && self.failed == 0 && self.cant_tell == 0
    }
}

/// A rule that panicked on a page: reported, never a crashed scan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleError {
    /// Rule id.
    pub rule_id: String,
    /// The panic message.
    pub message: String,
}

/// Everything the rules said about one page.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PageAnalysis {
    /// Failed and cant-tell findings, in rule order then document order.
    pub findings: Vec<Finding>,
    /// One tally per rule that ran without error.
    pub tallies: Vec<RuleTally>,
    /// Rules that crashed on this page.
    pub errors: Vec<RuleError>,
    /// The page's note when its analysis went over its budget or was canceled
    /// (the `analysis-incomplete` finding's message); `None` when complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
    /// The limits the page went over, in the order they were hit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overruns: Vec<Overrun>,
}

/// Each parent's positioned children that paint, with the boxes each
/// paints within in render mode (`None`: anywhere, or not known).
pub(crate) type PositionedPainters =
    FxHashMap<NodeId, Vec<(NodeId, Option<Vec<crate::rendered::Rect>>)>>;

/// A parsed page plus the facts many rules share, computed once on demand.
///
/// Lives on one rayon worker for the duration of a page's rules and is then
/// dropped, DOM and all.
pub struct PageContext<'p> {
    page: &'p Page,
    doc: Html,
    ids: OnceLock<HashMap<String, Vec<NodeId>>>,
    styles: OnceLock<Styles>,
    /// The texts of the `<style>` elements, in document order, once read
    /// (see [`PageContext::author_sheets`]).
    inline_styles: OnceLock<Vec<String>>,
    /// [`PageContext::styles_incomplete`], once known.
    styles_incomplete: OnceLock<Option<String>>,
    /// Styles at 200% zoom ([`Viewport::ZOOMED`]); `None` when no `@media`
    /// rule could differ from the desktop styles.
    zoomed: OnceLock<Option<Styles>>,
    /// Whether any stylesheet or `style` attribute declares `overflow`.
    overflow_declared: OnceLock<bool>,
    tree: OnceLock<TreeFacts>,
    referrers: OnceLock<FxHashMap<(&'static str, String), Vec<NodeId>>>,
    order: OnceLock<FxHashMap<NodeId, usize>>,
    names: Mutex<FxHashMap<NodeId, Arc<str>>>,
    layout: OnceLock<crate::repeated::Layout>,
    /// Parents of out-of-flow elements that paint, with those elements and
    /// the area each paints (see `color-contrast`).
    positioned_parents: OnceLock<PositionedPainters>,
    /// The layout boxes of a rendered page, indexed (see `color-contrast`).
    boxes: OnceLock<crate::boxes::BoxIndex>,
    http_links: OnceLock<Vec<(NodeId, url::Url)>>,
    by_name: OnceLock<FxHashMap<Box<str>, Vec<NodeId>>>,
    body_text: OnceLock<String>,
    text_blocks: OnceLock<Vec<crate::support::blocks::TextBlock>>,
    /// Each element's position among its siblings, for findings' selectors
    /// (counting siblings per finding made many findings quadratic).
    siblings: OnceLock<dom::SiblingIndex>,
    /// Each element's render stamp (see [`crate::rendered`]); empty for a
    /// page read as served.
    stamps: FxHashMap<NodeId, u32>,
    budget: PageBudget,
    cancel: Cancel,
    /// When the time budget runs out; `None` when it lies past what `Instant`
    /// can hold (an effectively unlimited budget).
    deadline: Option<Instant>,
    /// Set once [`PageContext::should_stop`] said yes: it says yes from then on.
    stopped: AtomicBool,
    /// The limits the page went over so far.
    overruns: Mutex<Vec<Overrun>>,
}

/// Attributes that hold id references, indexed by [`PageContext::referrers`].
pub const IDREF_ATTRS: &[&str] = &[
    "aria-activedescendant",
    "aria-controls",
    "aria-describedby",
    "aria-details",
    "aria-errormessage",
    "aria-flowto",
    "aria-labelledby",
    "aria-owns",
    "for",
    "headers",
    "list",
];

impl<'p> PageContext<'p> {
    /// Parses the page body (html5ever, via scraper) within the default caps of
    /// [`PageBudget`] but with no time limit and no cancel: for callers that run
    /// a page's rules themselves (tests, tools). The engine uses
    /// [`PageContext::parse_with`].
    pub fn parse(page: &'p Page) -> PageContext<'p> {
        let budget = PageBudget {
            time: Duration::MAX,
            ..PageBudget::DEFAULT
        };
        PageContext::parse_with(page, budget, Cancel::new())
    }

    /// Parses the page body within `budget`, whose time starts now (parsing
    /// counts), and stops early once `cancel` is tripped.
    pub fn parse_with(page: &'p Page, budget: PageBudget, cancel: Cancel) -> PageContext<'p> {
        let deadline = Instant::now().checked_add(budget.time);
        let stamped = page.rendered.as_ref().is_some_and(|r| r.is_present());
        let (doc, capped, stamps) = if stamped {
            dom::parse_document_stamped(&page.body, &budget.parse_limits())
        } else {
            let (doc, capped) = dom::parse_document_with(&page.body, &budget.parse_limits());
            (doc, capped, FxHashMap::default())
        };
        let mut cx = PageContext::of_parsed(page, doc, capped, budget, cancel, deadline);
        cx.stamps = stamps;
        cx
    }

    /// A context over a document parsed within `budget`, noting what the
    /// parser cut.
    fn of_parsed(
        page: &'p Page,
        doc: Html,
        capped: dom::ParseCapped,
        budget: PageBudget,
        cancel: Cancel,
        deadline: Option<Instant>,
    ) -> PageContext<'p> {
        let mut overruns = Vec::new();
        if capped.nodes_dropped {
            overruns.push(Overrun {
                limit: Limit::Nodes,
                count: 0,
            });
        }
        if page.stylesheets_skipped > 0 {
            overruns.push(Overrun {
                limit: Limit::Stylesheets,
                count: u64::try_from(page.stylesheets_skipped).unwrap_or(u64::MAX),
            });
        }
        if capped.depth_flattened > 0 {
            overruns.push(Overrun {
                limit: Limit::Depth,
                count: u64::try_from(capped.depth_flattened).unwrap_or(u64::MAX),
            });
        }
        PageContext {
            page,
            doc,
            budget,
            cancel,
            deadline,
            stopped: AtomicBool::new(false),
            overruns: Mutex::new(overruns),
            ids: OnceLock::new(),
            styles: OnceLock::new(),
            inline_styles: OnceLock::new(),
            styles_incomplete: OnceLock::new(),
            zoomed: OnceLock::new(),
            overflow_declared: OnceLock::new(),
            tree: OnceLock::new(),
            referrers: OnceLock::new(),
            order: OnceLock::new(),
            names: Mutex::new(FxHashMap::default()),
            layout: OnceLock::new(),
            positioned_parents: OnceLock::new(),
            boxes: OnceLock::new(),
            http_links: OnceLock::new(),
            by_name: OnceLock::new(),
            body_text: OnceLock::new(),
            text_blocks: OnceLock::new(),
            siblings: OnceLock::new(),
            stamps: FxHashMap::default(),
        }
    }

    /// What the browser measured for `node` (render mode): `None` for a page
    /// read as served, and for an element the browser's facts do not cover
    /// (see [`crate::rendered`]).
    pub fn rendered(&self, node: NodeId) -> Option<&crate::rendered::ElementFacts> {
        let stamp = self.stamps.get(&node)?;
        self.page.rendered.as_ref()?.element(*stamp)
    }

    /// The render stamp of `node` (see [`crate::rendered`]): `None` for a
    /// page read as served and for an element a script added after the
    /// stamping.
    pub fn stamp(&self, node: NodeId) -> Option<u32> {
        self.stamps.get(&node).copied()
    }

    /// The browser's facts of the whole page, when taken.
    pub fn rendered_page(&self) -> Option<&crate::rendered::RenderedFacts> {
        self.page.rendered.as_deref().filter(|r| r.is_present())
    }

    /// The viewport the cascade evaluates `@media` rules for: the one a
    /// rendered page was laid out in (render mode's `--viewport`, 1280 × 720
    /// by default), so that where the browser's facts leave an element to the
    /// estimates (no layout box: `display: none` or `contents`) they agree
    /// with the layout the browser judged; [`Viewport::DESKTOP`] for a page as
    /// served.
    pub fn media_viewport(&self) -> Viewport {
        self.page
            .rendered
            .as_deref()
            .map(|r| r.viewport)
            .filter(|v| {
                v.width >= 1.0 && v.height >= 1.0 && v.width.is_finite() && v.height.is_finite()
            })
            .map_or(Viewport::DESKTOP, |v| Viewport {
                width: v.width,
                height: v.height,
            })
    }

    /// The page as fetched.
    pub fn page(&self) -> &'p Page {
        self.page
    }

    /// The page's budget.
    pub fn budget(&self) -> &PageBudget {
        &self.budget
    }

    /// Whether the analysis must stop now: its time budget ran out or its scan
    /// was canceled. Cheap (an atomic load and a clock read): long loops over
    /// what a page sends call it every element or so, and return what they
    /// have. Once it said yes it says yes for good, and the page's
    /// `analysis-incomplete` finding names why.
    pub fn should_stop(&self) -> bool {
        if self.stopped.load(Ordering::Relaxed) {
            return true;
        }
        let why = if self.cancel.is_canceled() {
            Limit::Canceled
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Limit::Time
        } else {
            return false;
        };
        if !self.stopped.swap(true, Ordering::Relaxed) {
            self.overrun(Overrun {
                limit: why,
                count: 0,
            });
        }
        true
    }

    /// Records a limit the page went over (once per limit: a second report
    /// of the same limit keeps the larger count).
    pub fn overrun(&self, overrun: Overrun) {
        let mut list = self.overruns.lock().unwrap_or_else(|p| p.into_inner());
        match list.iter_mut().find(|o| o.limit == overrun.limit) {
            Some(seen) => seen.count = seen.count.max(overrun.count),
            None => list.push(overrun),
        }
    }

    /// The limits the page went over so far, in the order they were hit.
    pub fn overruns(&self) -> Vec<Overrun> {
        self.overruns
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The parsed document.
    pub fn doc(&self) -> &Html {
        &self.doc
    }

    /// The innermost blocks of running text with their texts, made once
    /// ([`crate::support::blocks`]).
    pub fn text_blocks(&self) -> &[crate::support::blocks::TextBlock] {
        self.text_blocks
            .get_or_init(|| crate::support::blocks::innermost_text_blocks(self))
    }

    /// The visible text of the first `<body>` ([`crate::site::visible_text`]:
    /// no script, style, template or noscript text; white space folded), made
    /// once: several rules and the site summary read it.
    pub fn body_text(&self) -> &str {
        self.body_text.get_or_init(|| {
            crate::support::select(self, crate::support::selector!("body"))
                .next()
                .map(crate::site::visible_text)
                .unwrap_or_default()
        })
    }

    /// The `<html>` element.
    pub fn root(&self) -> ElementRef<'_> {
        self.doc.root_element()
    }

    /// A selector matching exactly `el` in this document (ids and sibling
    /// places indexed once per document).
    pub fn selector_of(&self, el: ElementRef<'_>) -> String {
        let ids = self.ids();
        let siblings = self
            .siblings
            .get_or_init(|| dom::SiblingIndex::new(&self.doc));
        dom::unique_selector_indexed(
            el,
            |_, id| ids.get(id).is_some_and(|nodes| nodes.len() == 1),
            siblings,
        )
    }

    /// Elements by `id` attribute value, in document order (duplicates kept).
    pub fn ids(&self) -> &HashMap<String, Vec<NodeId>> {
        self.ids.get_or_init(|| {
            let mut map: HashMap<String, Vec<NodeId>> = HashMap::new();
            for el in self.root().descendants().filter_map(ElementRef::wrap) {
                if let Some(id) = el.value().id() {
                    map.entry(id.to_string()).or_default().push(el.id());
                }
            }
            map
        })
    }

    /// The first element with this id, as a browser's `getElementById` returns it.
    pub fn element_by_id(&self, id: &str) -> Option<ElementRef<'_>> {
        let node = *self.ids().get(id)?.first()?;
        self.doc.tree.get(node).and_then(ElementRef::wrap)
    }

    /// The element behind a node id of this document.
    pub fn element(&self, node: NodeId) -> Option<ElementRef<'_>> {
        self.doc.tree.get(node).and_then(ElementRef::wrap)
    }

    /// The element the engine stamped `stamp` in render mode (see
    /// [`crate::rendered`]); `None` for a page read as served, or when no
    /// element carries that stamp. A scan over the stamps: for the few
    /// lookups of a page, not per element.
    pub fn element_by_stamp(&self, stamp: u32) -> Option<ElementRef<'_>> {
        self.stamps
            .iter()
            .find_map(|(node, s)| (*s == stamp).then_some(*node))
            .and_then(|node| self.element(node))
    }

    /// Computed styles of every element (`<style>`, linked sheets, `style`
    /// attributes), computed on first use, with `@media` rules evaluated for
    /// [`PageContext::media_viewport`].
    pub fn styles(&self) -> &Styles {
        self.styles.get_or_init(|| {
            let (styles, capped) = Styles::compute_within_at(
                &self.doc,
                &self.page.stylesheets,
                self.media_viewport(),
                &self.budget,
                &|| self.should_stop(),
            );
            for limit in capped {
                self.overrun(Overrun { limit, count: 0 });
            }
            styles
        })
    }

    /// The page's author stylesheets as the cascade reads them: the text of each
    /// `<style>` element in document order (each after the sheets it
    /// imports), then each linked sheet's, with
    /// what was left of the page's caps on style rules and selectors when it
    /// was read. Sheets past the page's cap on stylesheets are left out.
    ///
    /// For rules that read stylesheets themselves: parsing within these caps
    /// ([`crate::css::sheet_facts`]) keeps a hostile sheet from costing them
    /// more than it costs the cascade, whose overruns the page already reports.
    ///
    /// The `<style>` texts are gathered once per page: several rules ask,
    /// and each would otherwise collect them again.
    pub fn author_sheets(&self) -> Vec<(&str, SheetCaps)> {
        let admitted = self.styles().admitted_sheets();
        let inline = self.inline_styles.get_or_init(|| {
            self.root()
                .descendants()
                .filter_map(ElementRef::wrap)
                .filter(|e| e.value().name() == "style")
                .map(|e| e.text().collect::<String>())
                .collect()
        });
        use crate::css::cascade::{author_order, AuthorSheet};
        author_order(
            inline.iter().map(|t| (t.as_str(), None)),
            &self.page.stylesheets,
        )
        .into_iter()
        .map(|sheet| match sheet {
            AuthorSheet::Style(text, _) => text,
            AuthorSheet::Fetched(sheet) => &*sheet.text,
        })
        .zip(admitted.iter().copied())
        .collect()
    }

    /// Why the page's computed styles may not be what a browser computes,
    /// when they may not: a stylesheet the page uses could not be loaded, the
    /// page links more sheets than a scan fetches, or the page's stylesheets
    /// went over the page budget's caps (and were applied in part). `None`
    /// when every sheet was applied whole.
    ///
    /// Rules built on the cascade report *cannot tell* with this reason where
    /// the missing styles could change their answer.
    pub fn styles_incomplete(&self) -> Option<&str> {
        self.styles_incomplete
            .get_or_init(|| {
                // A sheet a browser misses too changes nothing it shows.
                let missing: Vec<_> = self
                    .page
                    .stylesheets_missing
                    .iter()
                    .filter(|m| !m.browser_too)
                    .collect();
                if let Some(first) = missing.first() {
                    return Some(match missing.len() {
                        1 => format!(
                            "the stylesheet {} could not be loaded ({})",
                            first.url, first.reason
                        ),
                        n => format!(
                            "{n} stylesheets could not be loaded (the first, {}: {})",
                            first.url, first.reason
                        ),
                    });
                }
                if self.page.stylesheets_skipped > 0 {
                    return Some(format!(
                        "{} stylesheet(s) were not fetched (past the page's cap on stylesheets)",
                        self.page.stylesheets_skipped
                    ));
                }
                // The cascade records its own caps when it runs.
                self.styles();
                self.overruns()
                    .iter()
                    .find(|o| {
                        matches!(
                            o.limit,
                            Limit::Stylesheets | Limit::CssRules | Limit::Selectors
                        )
                    })
                    .map(|o| {
                        format!(
                            "the page's stylesheets went over the page budget ({}) and were applied in part",
                            o.limit.config_key()
                        )
                    })
            })
            .as_deref()
    }

    /// Computed styles at 200% zoom: the `@media` rules evaluated for a 640×512
    /// viewport ([`Viewport::ZOOMED`]). The same as [`PageContext::styles`] when no
    /// `@media` block or `media` attribute applies differently at the two
    /// viewports, so such pages pay no second cascade.
    pub fn zoomed_styles(&self) -> &Styles {
        let zoomed = self.zoomed.get_or_init(|| {
            // Incremental: only elements matched by an `@media` rule that holds at
            // one viewport and not the other (and their descendants) are restyled.
            self.styles()
                .restyle_within(&self.doc, Viewport::ZOOMED, &|| self.should_stop())
        });
        zoomed.as_ref().unwrap_or_else(|| self.styles())
    }

    /// Whether any `<style>`, linked stylesheet or `style` attribute mentions
    /// `overflow`: without it no box clips or scrolls its content, and rules
    /// about overflow can skip the page (and the zoomed cascade) at once.
    pub fn overflow_declared(&self) -> bool {
        *self.overflow_declared.get_or_init(|| {
            self.page
                .stylesheets
                .iter()
                .any(|s| s.text.contains("overflow"))
                || self
                    .root()
                    .descendants()
                    .filter_map(ElementRef::wrap)
                    .any(|el| {
                        el.value()
                            .attr("style")
                            .is_some_and(|v| v.contains("overflow"))
                            || (el.value().name() == "style"
                                && el.text().any(|t| t.contains("overflow")))
                    })
        })
    }

    /// The computed style of an element at 200% zoom (see
    /// [`PageContext::zoomed_styles`]).
    pub fn zoomed_style(&self, el: ElementRef<'_>) -> &ComputedStyle {
        static INITIAL: OnceLock<ComputedStyle> = OnceLock::new();
        self.zoomed_styles()
            .get(el.id())
            .unwrap_or_else(|| INITIAL.get_or_init(ComputedStyle::initial))
    }

    /// The computed style of an element.
    pub fn style(&self, el: ElementRef<'_>) -> &ComputedStyle {
        static INITIAL: OnceLock<ComputedStyle> = OnceLock::new();
        // Only an element of another document has no entry; it gets initial values.
        self.styles()
            .get(el.id())
            .unwrap_or_else(|| INITIAL.get_or_init(ComputedStyle::initial))
    }

    /// Accessibility tree facts for the document (hidden, roles, focus), computed on
    /// first use.
    pub fn tree(&self) -> &TreeFacts {
        self.tree.get_or_init(|| match self.rendered_page() {
            None => TreeFacts::compute(self.root(), self.styles()),
            Some(facts) => {
                let modal = facts.modal.and_then(|m| {
                    self.stamps
                        .iter()
                        .find_map(|(node, s)| (*s == m).then_some(*node))
                });
                TreeFacts::compute_with(
                    self.root(),
                    self.styles(),
                    &|node| self.rendered(node),
                    modal,
                )
            }
        })
    }

    /// Not included in the accessibility tree.
    pub fn is_hidden(&self, el: ElementRef<'_>) -> bool {
        self.tree().is_hidden(el.id())
    }

    /// Rendered and visible on screen (not `display:none`, `visibility:hidden`,
    /// `opacity:0` or a visually-hidden clip / off-screen pattern).
    pub fn is_visible(&self, el: ElementRef<'_>) -> bool {
        !self.tree().is_invisible(el.id())
    }

    /// The computed ARIA role (explicit valid role, else implicit, after
    /// presentational conflict resolution).
    pub fn role(&self, el: ElementRef<'_>) -> Option<&'static str> {
        self.tree().role(el.id())
    }

    /// Focusable (natively or by `tabindex`; not disabled, inert or unrendered).
    pub fn is_focusable(&self, el: ElementRef<'_>) -> bool {
        self.tree().is_focusable(el)
    }

    /// In sequential focus navigation (focusable, `tabindex` not negative).
    pub fn in_tab_order(&self, el: ElementRef<'_>) -> bool {
        self.tree().in_tab_order(el)
    }

    /// Inside an element whose role makes its children presentational.
    pub fn is_presentational_child(&self, el: ElementRef<'_>) -> bool {
        self.tree().is_presentational_child(el.id())
    }

    /// The accessible name (accname 1.2), cached per element.
    pub fn accessible_name(&self, el: ElementRef<'_>) -> Arc<str> {
        // Past the page's budget no rule's result is kept: skip the work (and
        // keep the empty answer out of the cache).
        if self.should_stop() {
            return Arc::from("");
        }
        if let Ok(cache) = self.names.lock() {
            if let Some(n) = cache.get(&el.id()) {
                return n.clone();
            }
        }
        let name: Arc<str> = crate::aria::name::compute_name(self, el).into();
        if let Ok(mut cache) = self.names.lock() {
            cache.insert(el.id(), name.clone());
        }
        name
    }

    /// The accessible description (`aria-describedby`, `aria-description`, `title`).
    pub fn accessible_description(&self, el: ElementRef<'_>) -> String {
        crate::aria::name::compute_description(self, el)
    }

    /// Elements whose id-reference attribute `attr` (one of [`IDREF_ATTRS`], e.g.
    /// `aria-labelledby`, `aria-owns`, `for`) names `id`, in document order. Indexed
    /// once per document on first use.
    pub fn referrers(&self, attr: &str, id: &str) -> Vec<ElementRef<'_>> {
        let map = self.referrers.get_or_init(|| {
            let mut map: FxHashMap<(&'static str, String), Vec<NodeId>> = FxHashMap::default();
            for el in self.root().descendants().filter_map(ElementRef::wrap) {
                for (name, value) in el.value().attrs() {
                    let Some(attr) = IDREF_ATTRS.iter().find(|a| **a == name) else {
                        continue;
                    };
                    for token in value.split_ascii_whitespace() {
                        map.entry((*attr, token.to_string()))
                            .or_default()
                            .push(el.id());
                    }
                }
            }
            map
        });
        let Some(attr) = IDREF_ATTRS.iter().find(|a| **a == attr) else {
            return Vec::new();
        };
        map.get(&(*attr, id.to_string()))
            .map(|nodes| nodes.iter().filter_map(|n| self.element(*n)).collect())
            .unwrap_or_default()
    }

    /// Repeated blocks and where the page's own content starts
    /// ([`crate::repeated::layout`]), computed once per page: five bypass and
    /// landmark rules share it.
    pub(crate) fn layout_cell(&self) -> &OnceLock<crate::repeated::Layout> {
        &self.layout
    }

    /// The parents of positioned elements that paint, with those elements
    /// and their painted areas, computed once per page by `color-contrast`.
    pub(crate) fn positioned_parents_cell(&self) -> &OnceLock<PositionedPainters> {
        &self.positioned_parents
    }

    /// The layout boxes of the rendered page's elements, indexed by height,
    /// built once per page by `color-contrast`.
    pub(crate) fn boxes_cell(&self) -> &OnceLock<crate::boxes::BoxIndex> {
        &self.boxes
    }

    /// The page's `http(s)` links ([`crate::support::http_links`]), resolved once
    /// per page: several SEO rules share them.
    pub(crate) fn http_links_cell(&self) -> &OnceLock<Vec<(NodeId, url::Url)>> {
        &self.http_links
    }

    /// The elements with this local name (exact, so lowercase for HTML), in the
    /// order [`Html::select`] visits them: node creation order, attached
    /// elements only. Indexed once per document on first use, so that rules
    /// selecting `<meta>` or `<script>` elements do not each walk the document.
    pub(crate) fn elements_named(&self, name: &str) -> &[NodeId] {
        let index = self.by_name.get_or_init(|| {
            let mut map: FxHashMap<Box<str>, Vec<NodeId>> = FxHashMap::default();
            for node in self.doc.tree.nodes() {
                if let Some(el) = ElementRef::wrap(node) {
                    if el.parent().is_some() {
                        match map.get_mut(el.value().name()) {
                            Some(nodes) => nodes.push(el.id()),
                            None => {
                                map.insert(el.value().name().into(), vec![el.id()]);
                            }
                        }
                    }
                }
            }
            map
        });
        index.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Position of an element in document order (0 for the root element).
    pub fn document_position(&self, el: ElementRef<'_>) -> usize {
        let order = self.order.get_or_init(|| {
            self.root()
                .descendants()
                .filter_map(ElementRef::wrap)
                .enumerate()
                .map(|(i, e)| (e.id(), i))
                .collect()
        });
        order.get(&el.id()).copied().unwrap_or(usize::MAX)
    }

    /// The `label` elements that label a form control: `label[for=id]` (when the
    /// control is the first element with that id) and a wrapping `label` without a
    /// `for` attribute whose first labelable descendant is the control, in document
    /// order.
    pub fn labels(&self, el: ElementRef<'_>) -> Vec<ElementRef<'_>> {
        if !labelable(el) {
            return Vec::new();
        }
        let mut out: Vec<ElementRef<'_>> = Vec::new();
        if let Some(id) = el.value().id() {
            if self
                .element_by_id(id)
                .is_some_and(|first| first.id() == el.id())
            {
                out.extend(
                    self.referrers("for", id)
                        .into_iter()
                        .filter(|l| l.value().name() == "label"),
                );
            }
        }
        for anc in el.ancestors().filter_map(ElementRef::wrap) {
            if anc.value().name() == "label"
                && crate::dom::attr(anc, "for").is_none()
                && first_labelable(anc).is_some_and(|c| c.id() == el.id())
            {
                if let Some(label) = self.element(anc.id()) {
                    out.push(label);
                }
            }
        }
        out.sort_by_key(|l| self.document_position(*l));
        out.dedup_by_key(|l| l.id());
        out
    }
}

/// Labelable elements (HTML §4.10.2), except `form-associated custom elements`.
fn labelable(el: ElementRef<'_>) -> bool {
    match el.value().name() {
        "button" | "meter" | "output" | "progress" | "select" | "textarea" => true,
        "input" => {
            crate::dom::attr(el, "type").is_none_or(|t| !t.trim().eq_ignore_ascii_case("hidden"))
        }
        _ => false,
    }
}

/// The first labelable descendant of a `label` (its labeled control when no `for`).
fn first_labelable(label: ElementRef<'_>) -> Option<ElementRef<'_>> {
    label
        .descendants()
        .skip(1)
        .filter_map(ElementRef::wrap)
        .find(|e| labelable(*e))
}

/// The recorder one rule writes its outcomes into while it runs on one page.
pub struct Check<'c, 'p> {
    cx: &'c PageContext<'p>,
    meta: &'static RuleMeta,
    tally: RuleTally,
    findings: Vec<Finding>,
    /// The element [`Rule::check_element`](crate::Rule::check_element) is
    /// visiting, so [`Check::pass`] knows which element passed; `None` in
    /// [`Rule::check_document`](crate::Rule::check_document).
    pub(crate) current: Option<NodeId>,
    /// Where each outcome was recorded (`None`: the page as a whole), kept only
    /// when the rule runs under [`RuleTester`](crate::testing::RuleTester),
    /// which checks that an example's outcome lands on the element it names.
    trace: Option<Vec<Traced>>,
}

/// One outcome and where a rule recorded it (`None`: the page as a whole).
pub(crate) type Traced = (Outcome, Option<NodeId>);

impl<'c, 'p> Check<'c, 'p> {
    pub(crate) fn new(cx: &'c PageContext<'p>, meta: &'static RuleMeta) -> Self {
        Check {
            cx,
            meta,
            tally: RuleTally {
                rule_id: meta.id.to_string(),
                ..RuleTally::default()
            },
            findings: Vec::new(),
            current: None,
            trace: None,
        }
    }

    /// Keeps where each outcome is recorded (see [`Check::finish_traced`]).
    pub(crate) fn traced(mut self) -> Self {
        self.trace = Some(Vec::new());
        self
    }

    fn note(&mut self, outcome: Outcome, node: Option<NodeId>) {
        if let Some(trace) = &mut self.trace {
            trace.push((outcome, node));
        }
    }

    /// The page under check.
    pub fn page(&self) -> &'c PageContext<'p> {
        self.cx
    }

    /// Records one requirement that passed: on the element being visited when
    /// called from [`Rule::check_element`](crate::Rule::check_element), on the
    /// page as a whole when called from
    /// [`Rule::check_document`](crate::Rule::check_document) (use
    /// [`Check::pass_on`] there to name the element).
    pub fn pass(&mut self) {
        self.tally.passed += 1;
        self.note(Outcome::Passed, self.current);
    }

    /// Records that `el` passed (for rules that walk elements themselves in
    /// [`Rule::check_document`](crate::Rule::check_document)).
    pub fn pass_on(&mut self, el: ElementRef<'_>) {
        self.tally.passed += 1;
        self.note(Outcome::Passed, Some(el.id()));
    }

    /// Records a failure on an element.
    pub fn fail(&mut self, el: ElementRef<'_>, message: impl Into<String>) -> &mut Finding {
        self.tally.failed += 1;
        self.note(Outcome::Failed, Some(el.id()));
        self.push(Outcome::Failed, Some(el), message.into())
    }

    /// Records an element that needs a person's review.
    pub fn cant_tell(&mut self, el: ElementRef<'_>, message: impl Into<String>) -> &mut Finding {
        self.tally.cant_tell += 1;
        self.note(Outcome::CantTell, Some(el.id()));
        self.push(Outcome::CantTell, Some(el), message.into())
    }

    /// Records a failure of the page as a whole (a header, a missing element).
    pub fn fail_page(&mut self, message: impl Into<String>) -> &mut Finding {
        self.tally.failed += 1;
        self.note(Outcome::Failed, None);
        self.push(Outcome::Failed, None, message.into())
    }

    /// Records a page-level item that needs review.
    pub fn cant_tell_page(&mut self, message: impl Into<String>) -> &mut Finding {
        self.tally.cant_tell += 1;
        self.note(Outcome::CantTell, None);
        self.push(Outcome::CantTell, None, message.into())
    }

    fn push(
        &mut self,
        outcome: Outcome,
        el: Option<ElementRef<'_>>,
        message: String,
    ) -> &mut Finding {
        let (selector, snippet) = match el {
            Some(el) => (self.cx.selector_of(el), dom::snippet(el)),
            None => (String::new(), String::new()),
        };
        self.findings.push(Finding {
            rule_id: self.meta.id.to_string(),
            category: self.meta.category,
            outcome,
            impact: self.meta.impact,
            page_url: self.cx.page.final_url.to_string(),
            selector,
            snippet,
            message,
            wcag: self.meta.wcag.iter().map(|s| s.to_string()).collect(),
            data: None,
            baseline: None,
            occurrences: Vec::new(),
            occurrences_total: None,
            scope: self.meta.scope,
            resource: None,
            mark: None,
            screenshot: None,
        });
        let last = self.findings.len() - 1;
        &mut self.findings[last]
    }

    pub(crate) fn finish(self) -> (RuleTally, Vec<Finding>) {
        (self.tally, self.findings)
    }

    /// [`Check::finish`] plus where each outcome was recorded (empty unless
    /// [`Check::traced`]).
    pub(crate) fn finish_traced(self) -> (RuleTally, Vec<Finding>, Vec<Traced>) {
        (self.tally, self.findings, self.trace.unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scraper::Selector;

    fn first<'a>(cx: &'a PageContext<'_>, sel: &str) -> ElementRef<'a> {
        cx.doc()
            .select(&Selector::parse(sel).unwrap())
            .next()
            .unwrap()
    }

    #[test]
    fn zoomed_styles_apply_narrow_media_rules_only_when_they_differ() {
        let html = "<html><head><style>@media (max-width: 640px) { .c { overflow: hidden } } @media print { .c { color: red } }</style></head><body><p class=c style='overflow-x:auto'>t</p></body></html>";
        let page = Page::from_html("https://example.com/", html);
        let cx = PageContext::parse(&page);
        let p = first(&cx, "p");
        assert!(cx.overflow_declared());
        assert_eq!(cx.style(p).get("overflow-y"), None);
        assert_eq!(cx.zoomed_style(p).get("overflow-y"), Some("hidden"));
        assert!(!std::ptr::eq(cx.zoomed_styles(), cx.styles()));

        // Print-only media: the zoomed cascade is the desktop one, not recomputed.
        let html = "<html><head><style>@media print { p { color: red } }</style></head><body><p>t</p></body></html>";
        let page = Page::from_html("https://example.com/", html);
        let cx = PageContext::parse(&page);
        assert!(std::ptr::eq(cx.zoomed_styles(), cx.styles()));
        assert!(!cx.overflow_declared());
    }

    #[test]
    fn labels_referrers_and_order() {
        let page = Page::from_html(
            "https://example.com/",
            r#"<label for=a id=l1>One</label><label>Two <input id=a></label>
            <label for=a>Three</label><input id=a class=dup>
            <label>Wrap <input id=b><input id=c></label>
            <span id=t>T</span><div aria-labelledby="t t" aria-owns=t class=r></div>"#,
        );
        let cx = PageContext::parse(&page);
        let texts = |el: ElementRef<'_>| -> Vec<String> {
            cx.labels(el)
                .iter()
                .map(|l| dom::normalized_text(*l))
                .collect()
        };
        assert_eq!(texts(first(&cx, "#a")), vec!["One", "Two", "Three"]);
        // A duplicate id is labelled by nothing: `for` finds the first element.
        assert!(texts(first(&cx, "input.dup")).is_empty());
        assert_eq!(texts(first(&cx, "#b")), vec!["Wrap"]);
        assert!(texts(first(&cx, "#c")).is_empty());
        assert_eq!(cx.referrers("aria-labelledby", "t").len(), 2);
        assert_eq!(cx.referrers("aria-owns", "t").len(), 1);
        assert!(cx.referrers("aria-owns", "nope").is_empty());
        assert!(cx.referrers("not-an-idref", "t").is_empty());
        let l1 = first(&cx, "#l1");
        let r = first(&cx, "div.r");
        assert!(cx.document_position(l1) < cx.document_position(r));
    }

    #[test]
    fn what_the_parser_cut_is_named_in_the_pages_finding() {
        let page = Page::from_html(
            "https://example.com/",
            "<html lang=en><title>T</title><p>x</p></html>",
        );
        let capped = dom::ParseCapped {
            depth_flattened: 3,
            nodes_dropped: true,
        };
        let cx = PageContext::of_parsed(
            &page,
            dom::parse_document(&page.body),
            capped,
            PageBudget::DEFAULT,
            Cancel::new(),
            None,
        );
        let analysis = crate::analyze_parsed(&cx, &[&crate::a11y::document_title::DocumentTitle]);
        assert_eq!(analysis.findings.len(), 1);
        assert_eq!(
            analysis.findings[0].message,
            "The page has more than 200000 nodes (the page budget, --max-page-nodes or config budget.max_nodes): nodes past the first 200000 were dropped and not analyzed; \
             3 elements are nested deeper than 512 levels (the page budget, --max-page-depth or config budget.max_depth): they were analyzed as children of the element at that depth, as browsers flatten them"
        );
        // Input cut, not time: the rule ran and keeps its result.
        assert_eq!(analysis.tallies[0].rule_id, "document-title");
        assert_eq!(analysis.tallies[0].passed, 1);
    }

    #[test]
    fn accessors_share_one_computation() {
        let page = Page::from_html(
            "https://example.com/",
            r#"<style>.h{display:none}</style><button class=h>x</button><button id=v>Go</button>"#,
        );
        let cx = PageContext::parse(&page);
        let hidden = first(&cx, "button.h");
        let shown = first(&cx, "#v");
        assert!(cx.is_hidden(hidden) && !cx.is_visible(hidden) && !cx.is_focusable(hidden));
        assert!(!cx.is_hidden(shown) && cx.is_visible(shown) && cx.in_tab_order(shown));
        assert_eq!(cx.role(shown), Some("button"));
        let a = cx.accessible_name(shown);
        let b = cx.accessible_name(shown);
        assert_eq!(&*a, "Go");
        assert!(
            Arc::ptr_eq(&a, &b),
            "the second call is served from the cache"
        );
        assert_eq!(cx.style(hidden).display, "none");
    }
}
