//! The budget of one page's analysis: how long it may take and how much of what
//! a page sends it may make us hold ([`PageBudget`]), the token that stops an
//! analysis from outside ([`Cancel`]), and the limits a page went over
//! ([`Overrun`]).
//!
//! Every byte a page sends is a stranger's: without a budget one page can keep
//! a core busy for minutes or hold gigabytes. The caps on what is parsed
//! (nodes, depth, CSS rules, selectors, stylesheets, links) cut the input and
//! the rules run on the rest; the time budget and a cancel stop the rules
//! themselves. Either way the page gets one `analysis-incomplete` finding
//! naming every limit it went over ([`crate::quality::analysis_incomplete`]),
//! and the scan goes on with the next page.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::dom::ParseLimits;

/// Wall time a page's analysis (parse, shared facts, rules) may take.
pub const DEFAULT_PAGE_TIME: Duration = Duration::from_secs(5);
/// Links a page may contribute to the crawl and the link checks.
///
/// Ten times what a large portal's home page carries (a few hundred to a
/// thousand links); past it a page is a link farm or an attack, and every link
/// it adds costs a queued URL and a request.
pub const DEFAULT_MAX_LINKS: usize = 10_000;
/// Style rules parsed per page, over all its stylesheets.
///
/// A page built on a whole CSS framework plus its own styles carries a few
/// thousand rules; 20,000 leaves room for the heaviest real sites while keeping
/// what one page may make the cascade hold and match bounded (a stylesheet of
/// 60,000 rules took 548 MB and 29 s before this cap).
pub const DEFAULT_MAX_CSS_RULES: usize = 20_000;
/// Selectors compiled per page, over all its stylesheets (a rule with a
/// selector list counts each selector of the list).
///
/// Each selector is matched against candidate elements, so this bounds the
/// cascade's work per element; two and a half per rule on average is generous
/// for real stylesheets, whose selector lists are mostly short.
pub const DEFAULT_MAX_SELECTORS: usize = 50_000;
/// Stylesheets (`<style>` elements and linked sheets) applied per page.
pub const DEFAULT_MAX_STYLESHEETS: usize = 100;

/// What one page's analysis may spend. Serialized with the time in
/// milliseconds (`time_ms`); every field has its default when absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PageBudget {
    /// Wall time of the page's analysis (default [`DEFAULT_PAGE_TIME`]).
    #[serde(rename = "time_ms", with = "millis")]
    pub time: Duration,
    /// Nodes the parser keeps ([`ParseLimits::max_nodes`]).
    pub max_nodes: usize,
    /// Nesting depth the parser keeps; deeper elements are flattened
    /// ([`ParseLimits::max_depth`]).
    pub max_depth: usize,
    /// Links the page contributes to the crawl and the link checks (default
    /// [`DEFAULT_MAX_LINKS`]).
    pub max_links: usize,
    /// Style rules parsed over all the page's stylesheets (default
    /// [`DEFAULT_MAX_CSS_RULES`]).
    pub max_css_rules: usize,
    /// Selectors compiled over all the page's stylesheets (default
    /// [`DEFAULT_MAX_SELECTORS`]).
    pub max_selectors: usize,
    /// Stylesheets applied (default [`DEFAULT_MAX_STYLESHEETS`]).
    pub max_stylesheets: usize,
}

impl PageBudget {
    /// The defaults (the `DEFAULT_*` constants of this module and
    /// [`ParseLimits::DEFAULT`]).
    pub const DEFAULT: PageBudget = PageBudget {
        time: DEFAULT_PAGE_TIME,
        max_nodes: ParseLimits::DEFAULT.max_nodes,
        max_depth: ParseLimits::DEFAULT.max_depth,
        max_links: DEFAULT_MAX_LINKS,
        max_css_rules: DEFAULT_MAX_CSS_RULES,
        max_selectors: DEFAULT_MAX_SELECTORS,
        max_stylesheets: DEFAULT_MAX_STYLESHEETS,
    };

    /// The parser's share of the budget.
    pub fn parse_limits(&self) -> ParseLimits {
        ParseLimits {
            max_depth: self.max_depth,
            max_nodes: self.max_nodes,
        }
    }

    /// Each field the lower of the two budgets: what a scan asked, held under
    /// what an operator allows.
    pub fn min(&self, ceiling: &PageBudget) -> PageBudget {
        PageBudget {
            time: self.time.min(ceiling.time),
            max_nodes: self.max_nodes.min(ceiling.max_nodes),
            max_depth: self.max_depth.min(ceiling.max_depth),
            max_links: self.max_links.min(ceiling.max_links),
            max_css_rules: self.max_css_rules.min(ceiling.max_css_rules),
            max_selectors: self.max_selectors.min(ceiling.max_selectors),
            max_stylesheets: self.max_stylesheets.min(ceiling.max_stylesheets),
        }
    }

    /// The limits of this budget whose value is above `ceiling`'s, with both
    /// values (for a validation message naming each).
    pub fn above(&self, ceiling: &PageBudget) -> Vec<(Limit, u64, u64)> {
        Limit::BUDGETED
            .iter()
            .filter_map(|&l| {
                let (mine, max) = (self.value(l)?, ceiling.value(l)?);
                (mine > max).then_some((l, mine, max))
            })
            .collect()
    }

    /// The value of one limit (milliseconds for the time), `None` for
    /// [`Limit::Canceled`], which has none.
    pub fn value(&self, limit: Limit) -> Option<u64> {
        let n = |v: usize| Some(u64::try_from(v).unwrap_or(u64::MAX));
        match limit {
            Limit::Time => Some(u64::try_from(self.time.as_millis()).unwrap_or(u64::MAX)),
            Limit::Canceled => None,
            Limit::Nodes => n(self.max_nodes),
            Limit::Depth => n(self.max_depth),
            Limit::Links => n(self.max_links),
            Limit::CssRules => n(self.max_css_rules),
            Limit::Selectors => n(self.max_selectors),
            Limit::Stylesheets => n(self.max_stylesheets),
        }
    }
}

impl Default for PageBudget {
    fn default() -> Self {
        PageBudget::DEFAULT
    }
}

/// `Duration` as whole milliseconds on the wire.
mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}

/// A flag that stops analyses from outside: cheap to clone (one `Arc`), and
/// every clone sees a [`Cancel::cancel`] of any other.
///
/// The engine gives each scan one and trips it when the scan is canceled or
/// dropped; a page in analysis sees it at its next check (between rules, every
/// few hundred elements, inside the long loops of the shared facts) and stops.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A token not canceled yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Trips the token: every analysis holding a clone stops at its next check.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`Cancel::cancel`] was called on this token or a clone.
    pub fn is_canceled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// One limit of the page budget, or the cancel that stops an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// [`PageBudget::time`].
    Time,
    /// The scan was canceled.
    Canceled,
    /// [`PageBudget::max_nodes`].
    Nodes,
    /// [`PageBudget::max_depth`].
    Depth,
    /// [`PageBudget::max_links`].
    Links,
    /// [`PageBudget::max_css_rules`].
    CssRules,
    /// [`PageBudget::max_selectors`].
    Selectors,
    /// [`PageBudget::max_stylesheets`].
    Stylesheets,
}

impl Limit {
    /// Every limit with a value in [`PageBudget`].
    pub const BUDGETED: [Limit; 7] = [
        Limit::Time,
        Limit::Nodes,
        Limit::Depth,
        Limit::Links,
        Limit::CssRules,
        Limit::Selectors,
        Limit::Stylesheets,
    ];

    /// The `sitescan scan` flag that sets it (`SITESCAN_` + the flag's name in
    /// capitals for its environment variable); empty for a cancel.
    pub fn flag(self) -> &'static str {
        match self {
            Limit::Time => "--page-time",
            Limit::Canceled => "",
            Limit::Nodes => "--max-page-nodes",
            Limit::Depth => "--max-page-depth",
            Limit::Links => "--max-page-links",
            Limit::CssRules => "--max-css-rules",
            Limit::Selectors => "--max-selectors",
            Limit::Stylesheets => "--max-stylesheets",
        }
    }

    /// Its field in a scan's `budget` configuration (library and API); empty for
    /// a cancel.
    pub fn config_key(self) -> &'static str {
        match self {
            Limit::Time => "time_ms",
            Limit::Canceled => "",
            Limit::Nodes => "max_nodes",
            Limit::Depth => "max_depth",
            Limit::Links => "max_links",
            Limit::CssRules => "max_css_rules",
            Limit::Selectors => "max_selectors",
            Limit::Stylesheets => "max_stylesheets",
        }
    }
}

/// One limit a page went over, with what was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overrun {
    /// Which limit.
    pub limit: Limit,
    /// How many were seen or cut, where known: links found, elements
    /// flattened; 0 when the count stopped at the cap.
    pub count: u64,
}

impl Overrun {
    /// One sentence for the note and the finding: what was hit, its value, how
    /// to change it and what is missing because of it. `not_run` and `total` are
    /// the rules that did not run and all rules (time and cancel only).
    pub fn describe(&self, budget: &PageBudget, not_run: usize, total: usize) -> String {
        let value = budget.value(self.limit).unwrap_or(0);
        let how = format!(
            "the page budget, {} or config budget.{}",
            self.limit.flag(),
            self.limit.config_key()
        );
        match self.limit {
            Limit::Time => format!(
                "Analysis stopped after {} ({how}): {not_run} of {total} rules did not run; their results for this page are missing",
                seconds(budget.time)
            ),
            Limit::Canceled => format!(
                "Analysis stopped because the scan was canceled: {not_run} of {total} rules did not run; their results for this page are missing"
            ),
            Limit::Nodes => format!(
                "The page has more than {value} nodes ({how}): nodes past the first {value} were dropped and not analyzed"
            ),
            Limit::Depth => format!(
                "{} elements are nested deeper than {value} levels ({how}): they were analyzed as children of the element at that depth, as browsers flatten them",
                self.count
            ),
            Limit::Links => format!(
                "The page has {} links, more than {value} ({how}): links past the first {value} were not crawled or checked",
                self.count
            ),
            Limit::CssRules => format!(
                "The page's stylesheets have more than {value} style rules ({how}): rules past the first {value} were not applied, so styles (contrast, visibility, sizes) may be judged wrongly"
            ),
            Limit::Selectors => format!(
                "The page's stylesheets have more than {value} selectors ({how}): selectors past the first {value} were not applied, so styles (contrast, visibility, sizes) may be judged wrongly"
            ),
            // A count comes from the fetcher, which fetches at most that many
            // sheets per page (linked and imported).
            Limit::Stylesheets if self.count > 0 => format!(
                "The page links or imports {} stylesheets more than the {value} a page may use ({how}): they were not fetched or applied, so styles (contrast, visibility, sizes) may be judged wrongly",
                self.count
            ),
            Limit::Stylesheets => format!(
                "The page has more than {value} stylesheets ({how}): sheets past the first {value} were not applied, so styles (contrast, visibility, sizes) may be judged wrongly"
            ),
        }
    }
}

/// `5 s`, `1.5 s`, `250 ms`.
fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_round_trips_with_time_in_milliseconds_and_defaults_fill_gaps() {
        let json = serde_json::to_value(PageBudget::default()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"time_ms": 5000, "max_nodes": 200000, "max_depth": 512,
                "max_links": 10000, "max_css_rules": 20000, "max_selectors": 50000,
                "max_stylesheets": 100})
        );
        let some: PageBudget = serde_json::from_str(r#"{"time_ms": 250, "max_links": 3}"#).unwrap();
        assert_eq!(some.time, Duration::from_millis(250));
        assert_eq!(some.max_links, 3);
        assert_eq!(some.max_nodes, PageBudget::DEFAULT.max_nodes);
        assert!(serde_json::from_str::<PageBudget>(r#"{"time": 1}"#).is_err());
    }

    #[test]
    fn min_and_above_compare_each_limit() {
        let ceiling = PageBudget {
            time: Duration::from_secs(10),
            max_links: 100,
            ..PageBudget::DEFAULT
        };
        let asked = PageBudget {
            time: Duration::from_secs(60),
            max_links: 50,
            ..PageBudget::DEFAULT
        };
        let applied = asked.min(&ceiling);
        assert_eq!(applied.time, Duration::from_secs(10));
        assert_eq!(applied.max_links, 50);
        assert_eq!(asked.above(&ceiling), vec![(Limit::Time, 60_000, 10_000)]);
    }

    #[test]
    fn a_cancel_is_seen_by_every_clone() {
        let a = Cancel::new();
        let b = a.clone();
        assert!(!b.is_canceled());
        a.cancel();
        assert!(b.is_canceled());
    }

    #[test]
    fn messages_name_the_limit_its_value_and_how_to_change_it() {
        let b = PageBudget::DEFAULT;
        let time = Overrun {
            limit: Limit::Time,
            count: 0,
        };
        assert_eq!(
            time.describe(&b, 37, 152),
            "Analysis stopped after 5 s (the page budget, --page-time or config budget.time_ms): 37 of 152 rules did not run; their results for this page are missing"
        );
        let links = Overrun {
            limit: Limit::Links,
            count: 12_000,
        };
        assert_eq!(
            links.describe(&b, 0, 152),
            "The page has 12000 links, more than 10000 (the page budget, --max-page-links or config budget.max_links): links past the first 10000 were not crawled or checked"
        );
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(Duration::ZERO), "0 ms");
    }
}
