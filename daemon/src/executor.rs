//! [`EngineExecutor`]: the [`ScanExecutor`] that runs scans with the engine's
//! `Scanner` (the same code as `sitescan scan`), turning its events into the
//! worker's. Kept apart from the worker so the worker can be tested with any
//! executor and the fleet's workers reuse it.

use futures::stream::{self, BoxStream};
use futures::StreamExt;
use sitescan_engine::{ScanConfig, ScanEvent, Scanner};

use crate::store::Progress;
use crate::worker::{ExecEvent, ScanExecutor};

/// Runs scans with `sitescan_engine::Scanner`.
#[derive(Debug, Clone, Copy, Default)]
pub struct EngineExecutor;

impl ScanExecutor for EngineExecutor {
    fn execute(&self, url: &str, config: ScanConfig) -> BoxStream<'static, ExecEvent> {
        let scanner = match Scanner::builder().config(config).build() {
            Ok(s) => s,
            Err(e) => return stream::once(async move { ExecEvent::Failed(e.to_string()) }).boxed(),
        };
        scanner
            .scan_stream(url)
            .filter_map(|event| async move {
                match event {
                    ScanEvent::Progress(p) => Some(ExecEvent::Progress(Progress {
                        pages_done: p.pages_done,
                        pages_queued: p.pages_queued,
                        errors: p.errors,
                    })),
                    ScanEvent::Page(_) => None,
                    ScanEvent::Finished(report) => Some(ExecEvent::Finished(report)),
                    ScanEvent::Failed(e) => Some(ExecEvent::Failed(e.to_string())),
                }
            })
            .boxed()
    }
}
