//! [`EngineExecutor`]: the [`ScanExecutor`] that runs scans with the engine's
//! `Scanner` (the same code as `sitescan scan`), turning its events into the
//! worker's. Kept apart from the worker so the worker can be tested with any
//! executor and the fleet's workers reuse it.

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream};
use futures::{FutureExt, StreamExt};
use sitescan_engine::{AnalysisWatch, ScanConfig, ScanEvent, Scanner};
use tokio::sync::{mpsc, oneshot};

use crate::worker::{ExecEvent, ScanExecutor};

/// Runs scans with `sitescan_engine::Scanner`.
#[derive(Debug, Clone, Copy, Default)]
pub struct EngineExecutor;

/// Hands the engine's analysis start and end to the worker as events; a page's
/// analysis waits until the worker has recorded it (or the worker is gone).
#[derive(Debug)]
struct ToWorker(mpsc::UnboundedSender<ExecEvent>);

impl AnalysisWatch for ToWorker {
    fn starting(&self, url: &str) -> BoxFuture<'static, ()> {
        let (ready, recorded) = oneshot::channel();
        let sent = self.0.send(ExecEvent::Analyzing {
            url: url.to_string(),
            ready,
        });
        async move {
            if sent.is_ok() {
                // Err: the worker dropped the event unanswered; go on anyway.
                let _ = recorded.await;
            }
        }
        .boxed()
    }

    fn finished(&self, url: &str) {
        let _ = self.0.send(ExecEvent::Analyzed(url.to_string()));
    }
}

impl ScanExecutor for EngineExecutor {
    fn execute(&self, url: &str, config: ScanConfig) -> BoxStream<'static, ExecEvent> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let scanner = match Scanner::builder()
            .config(config)
            .analysis_watch(Arc::new(ToWorker(tx)))
            .build()
        {
            Ok(s) => s,
            Err(e) => return stream::once(async move { ExecEvent::Failed(e.to_string()) }).boxed(),
        };
        let scan = scanner
            .scan_stream(url)
            .filter_map(|event| async move {
                match event {
                    ScanEvent::Progress(p) => Some(ExecEvent::Progress(p)),
                    ScanEvent::Page(_) => None,
                    ScanEvent::Finished(report) => Some(ExecEvent::Finished(report)),
                    ScanEvent::Failed(e) => Some(ExecEvent::Failed(e.to_string())),
                }
            })
            .boxed();
        let watch = stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed();
        // Both sources at once: the scan is driven while the worker answers
        // analysis starts (the scan waits for those answers). The scan's own
        // stream ends the merged one: its last event is `Finished` or `Failed`,
        // and the watch's sender lives as long as the scan does.
        stream::select(
            scan.map(Some).chain(stream::once(async { None })),
            watch.map(Some),
        )
        .take_while(|e| futures::future::ready(e.is_some()))
        .filter_map(futures::future::ready)
        .boxed()
    }
}
