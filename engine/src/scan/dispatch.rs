//! Page analysis off the async runtime.
//!
//! Each HTML page goes to a rayon worker through a bounded hand-off: a fetch task
//! must take one of a fixed number of slots before its page is queued on the
//! pool, so fetched-but-unanalyzed pages never pile up in memory, however fast
//! the network is. On the worker the page is parsed once
//! ([`PageContext::parse`]), the selected page rules run over that one DOM
//! ([`analyze_parsed`]), the site-rule summary and the links are taken from it,
//! and the DOM is dropped before the result travels back.
//!
//! Every page is analyzed within the scan's [`PageBudget`] and sees the scan's
//! [`Cancel`] token: a page over its time, or in analysis when the scan is
//! canceled, stops within a moment and frees its worker.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use sitescan_rules::links::{self, PageLinks};
use sitescan_rules::site::{link_places, PageSummary};
use sitescan_rules::{
    analyze_parsed, Cancel, Occurrence, Page, PageAnalysis, PageBudget, PageContext, Rule,
};
use tokio::sync::{oneshot, Semaphore};

/// What the rayon worker hands back for one page.
pub(crate) struct Analyzed {
    pub(crate) analysis: PageAnalysis,
    pub(crate) summary: PageSummary,
    pub(crate) links: PageLinks,
    /// Where each of `summary.links` is (empty unless asked for).
    pub(crate) places: Vec<Occurrence>,
}

/// The bounded hand-off to the rayon pool.
#[derive(Clone)]
pub(crate) struct Dispatcher {
    slots: Arc<Semaphore>,
    rules: Arc<Vec<&'static dyn Rule>>,
    budget: PageBudget,
    cancel: Cancel,
    /// Take the places of the page's links (`broken-links` reports them).
    link_places: bool,
}

impl Dispatcher {
    /// At most `capacity` pages queued or in analysis at once, each within
    /// `budget` and stopped by `cancel`.
    pub(crate) fn new(
        capacity: usize,
        rules: Vec<&'static dyn Rule>,
        budget: PageBudget,
        cancel: Cancel,
    ) -> Dispatcher {
        Dispatcher {
            slots: Arc::new(Semaphore::new(capacity.max(1))),
            rules: Arc::new(rules),
            budget,
            cancel,
            link_places: false,
        }
    }

    /// Also takes the places of each page's links ([`Analyzed::places`]).
    pub(crate) fn with_link_places(mut self, on: bool) -> Dispatcher {
        self.link_places = on;
        self
    }

    /// Analyzes a page on the rayon pool; waits for a slot first.
    ///
    /// `Err` carries the panic message when parsing itself panicked (rule panics
    /// are caught per rule inside [`analyze_parsed`]).
    pub(crate) async fn analyze(&self, page: Page) -> Result<Analyzed, String> {
        let _slot = self.slots.acquire().await.map_err(|e| e.to_string())?;
        let rules = Arc::clone(&self.rules);
        let (budget, cancel) = (self.budget, self.cancel.clone());
        let want_places = self.link_places;
        let (tx, rx) = oneshot::channel();
        rayon::spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(|| {
                let cx = PageContext::parse_with(&page, budget, cancel);
                // Links first: a page over the links cap is noted in the
                // analysis's `analysis-incomplete` finding.
                let links = links::extract(&cx);
                let analysis = analyze_parsed(&cx, &rules);
                let summary = PageSummary::of(&cx);
                let places = if want_places {
                    link_places(&cx)
                } else {
                    Vec::new()
                };
                drop(cx);
                Analyzed {
                    analysis,
                    summary,
                    links,
                    places,
                }
            }))
            .map_err(|panic| {
                sitescan_rules::panic_message(&*panic)
                    .unwrap_or("page analysis panicked")
                    .to_string()
            });
            let _ = tx.send(result);
        });
        rx.await
            .map_err(|_| "analysis worker went away".to_string())?
    }
}
