//! Page analysis off the async runtime.
//!
//! Each HTML page goes to a rayon worker through a bounded hand-off: a fetch task
//! must take one of a fixed number of slots before its page is queued on the
//! pool, so fetched-but-unanalyzed pages never pile up in memory, however fast
//! the network is. On the worker the page is parsed once
//! ([`PageContext::parse`]), the selected page rules run over that one DOM
//! ([`analyze_parsed`]), the site-rule summary and the links are taken from it,
//! and the DOM is dropped before the result travels back.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use sitescan_rules::links::{self, PageLinks};
use sitescan_rules::site::PageSummary;
use sitescan_rules::{analyze_parsed, Page, PageAnalysis, PageContext, Rule};
use tokio::sync::{oneshot, Semaphore};

/// What the rayon worker hands back for one page.
pub(crate) struct Analyzed {
    pub(crate) analysis: PageAnalysis,
    pub(crate) summary: PageSummary,
    pub(crate) links: PageLinks,
}

/// The bounded hand-off to the rayon pool.
#[derive(Clone)]
pub(crate) struct Dispatcher {
    slots: Arc<Semaphore>,
    rules: Arc<Vec<&'static dyn Rule>>,
}

impl Dispatcher {
    /// At most `capacity` pages queued or in analysis at once.
    pub(crate) fn new(capacity: usize, rules: Vec<&'static dyn Rule>) -> Dispatcher {
        Dispatcher {
            slots: Arc::new(Semaphore::new(capacity.max(1))),
            rules: Arc::new(rules),
        }
    }

    /// Analyzes a page on the rayon pool; waits for a slot first.
    ///
    /// `Err` carries the panic message when parsing itself panicked (rule panics
    /// are caught per rule inside [`analyze_parsed`]).
    pub(crate) async fn analyze(&self, page: Page) -> Result<Analyzed, String> {
        let _slot = self.slots.acquire().await.map_err(|e| e.to_string())?;
        let rules = Arc::clone(&self.rules);
        let (tx, rx) = oneshot::channel();
        rayon::spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(|| {
                let cx = PageContext::parse(&page);
                let analysis = analyze_parsed(&cx, &rules);
                let summary = PageSummary::of(&cx);
                let links = links::extract(&cx);
                drop(cx);
                Analyzed {
                    analysis,
                    summary,
                    links,
                }
            }))
            .map_err(|panic| {
                panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "page analysis panicked".to_string())
            });
            let _ = tx.send(result);
        });
        rx.await
            .map_err(|_| "analysis worker went away".to_string())?
    }
}
