//! [`EngineExecutor`]: the [`ScanExecutor`] that runs scans with the engine's
//! `Scanner` (the same code as `sitescan scan`), turning its events into the
//! worker's. Kept apart from the worker so the worker can be tested with any
//! executor and the fleet's workers reuse it.
//!
//! **Flat memory.** Service scans take the CLI's spooled path
//! ([`Scanner::scan_spooled`]): each page's findings go to a nameless
//! temporary file in the system's temporary directory (`TMPDIR`) as the page
//! finishes, and the report is rendered from it once, at the end. Nothing
//! between the scan and the worker can queue up without bound: progress goes
//! through a `watch` (the latest value wins) and the analysis starts and ends
//! through a bounded channel.

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream};
use futures::{FutureExt, StreamExt};
use sitescan_engine::auth::SiteAuth;
use sitescan_engine::{AnalysisWatch, ScanConfig, Scanner, ScannerBuilder};
use tokio::sync::{mpsc, oneshot, watch};

use crate::worker::{ExecEvent, ScanExecutor, ScanInputs};

/// Room for analysis events between the scan and the worker. A page's
/// analysis waits until the worker has taken its start event, and the worker
/// takes events in order, so what waits in the channel is at most the starts
/// and ends of the pages in analysis at once — far below this.
const WATCH_EVENTS: usize = 256;

/// Runs scans with `sitescan_engine::Scanner`.
#[derive(Debug, Clone, Copy, Default)]
pub struct EngineExecutor;

/// Hands the engine's analysis start and end to the worker as events; a page's
/// analysis waits until the worker has recorded it (or the worker is gone).
#[derive(Debug)]
struct ToWorker(mpsc::Sender<ExecEvent>);

impl AnalysisWatch for ToWorker {
    fn starting(&self, url: &str) -> BoxFuture<'static, ()> {
        let (ready, recorded) = oneshot::channel();
        let event = ExecEvent::Analyzing {
            url: url.to_string(),
            ready,
        };
        let tx = self.0.clone();
        async move {
            if tx.send(event).await.is_ok() {
                // Err: the worker dropped the event unanswered; go on anyway.
                let _ = recorded.await;
            }
        }
        .boxed()
    }

    fn finished(&self, url: &str) {
        let event = ExecEvent::Analyzed(url.to_string());
        match self.0.try_send(event) {
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => {}
            // Not expected (see `WATCH_EVENTS`); the end of an analysis must
            // not be lost, so it waits for room in a task of its own.
            Err(mpsc::error::TrySendError::Full(event)) => {
                let tx = self.0.clone();
                tokio::spawn(async move {
                    let _ = tx.send(event).await;
                });
            }
        }
    }
}

/// Hands a site's credentials to the engine's scanner: the one place the
/// service's credentials meet the engine. `None` leaves the builder as it is.
pub fn with_site_auth(builder: ScannerBuilder, auth: Option<SiteAuth>) -> ScannerBuilder {
    match auth {
        Some(auth) => builder.auth(auth),
        None => builder,
    }
}

impl ScanExecutor for EngineExecutor {
    fn execute(&self, url: &str, config: ScanConfig) -> BoxStream<'static, ExecEvent> {
        self.execute_with(url, config, ScanInputs::default())
    }

    fn execute_with(
        &self,
        url: &str,
        config: ScanConfig,
        inputs: ScanInputs,
    ) -> BoxStream<'static, ExecEvent> {
        let (tx, mut rx) = mpsc::channel(WATCH_EVENTS);
        let builder = Scanner::builder()
            .config(config)
            .marks(inputs.marks)
            .analysis_watch(Arc::new(ToWorker(tx)));
        let built = with_site_auth(builder, inputs.auth)
            .build()
            .map_err(|e| e.to_string());
        let scanner = match built {
            Ok(s) => s,
            Err(e) => return stream::once(async move { ExecEvent::Failed(e) }).boxed(),
        };
        let (progress_tx, progress_rx) = watch::channel(None);
        let url = url.to_string();
        let scan = async move {
            let progress = move |p: sitescan_engine::Progress| {
                progress_tx.send_replace(Some(p));
            };
            let spool = std::env::temp_dir();
            match scanner.scan_spooled(&url, &spool, &progress).await {
                Ok(report) => ExecEvent::Finished(Box::new(report)),
                Err(e) => ExecEvent::Failed(e.to_string()),
            }
        };
        let progress = stream::unfold(progress_rx, |mut rx| async move {
            // Ends when the scan (the sender) is gone.
            rx.changed().await.ok()?;
            let latest = *rx.borrow_and_update();
            Some((latest, rx))
        })
        .filter_map(|p| futures::future::ready(p.map(ExecEvent::Progress)));
        let watch = stream::poll_fn(move |cx| rx.poll_recv(cx));
        // All three at once: the scan is driven while the worker answers
        // analysis starts (the scan waits for those answers). The scan's own
        // event (`Finished` or `Failed`) ends the merged stream.
        stream::select(
            stream::once(scan)
                .map(Some)
                .chain(stream::once(async { None })),
            stream::select(progress, watch).map(Some),
        )
        .take_while(|e| futures::future::ready(e.is_some()))
        .filter_map(futures::future::ready)
        .boxed()
    }
}
