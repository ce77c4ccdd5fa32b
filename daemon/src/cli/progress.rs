//! How far a running `scan` is, on stderr: an indicatif bar per phase when
//! stderr is a terminal, plain log lines otherwise (CI logs).
//!
//! The engine reports [`Progress`] after every page and, in the link phase,
//! as links are checked. The bar shows the phase, done / total, the rate and
//! the time left:
//!
//! ```text
//! ⠙ crawl [=========>------------------]  30/519 pages (2 errors) · 4.1/s · ETA 2m
//! ⠹ links [===================>--------]  1204/1996 links · 52.3/s · ETA 15s
//! ⠸ finish site checks and the report · 3s
//! ```
//!
//! The crawl's total is the pages known so far (done plus queued), capped by
//! `--max-pages`: the limit alone would promise an hour's ETA on a site of
//! forty pages. Without a terminal the engine logs every page; this module
//! adds a line when a phase starts and, in the link phase, one every
//! [`LOG_EVERY`] so a long link check does not look frozen.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use sitescan_engine::{Phase, Progress};

/// How often the link phase logs its counts when stderr is not a terminal.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// The progress display of one scan.
#[derive(Debug)]
pub(crate) struct ScanProgress {
    interactive: bool,
    max_pages: u64,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// What is shown now; `None` before the first event.
    shown: Option<Shown>,
    /// The bar (on a terminal only).
    bar: Option<ProgressBar>,
    last_log: Option<Instant>,
}

/// What the bar is drawn as: a bar needs a total, a spinner does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Bar(Phase),
    Spinner(Phase),
}

/// One frame's numbers, independent of indicatif (tested on their own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    /// `crawl`, `links` or `finish`.
    pub(crate) label: &'static str,
    /// Done so far, and the total when one is known (else a spinner).
    pub(crate) done: u64,
    /// The total, when known.
    pub(crate) total: Option<u64>,
    /// What follows the numbers: the unit and any errors, e.g. `pages (2 errors)`.
    pub(crate) what: String,
}

/// The frame a progress event shows.
pub(crate) fn frame(p: &Progress, max_pages: u64) -> Frame {
    match p.phase {
        Phase::Crawl => {
            let known = p.pages_done.saturating_add(p.pages_queued);
            let total = known.min(max_pages).max(p.pages_done);
            let what = match p.errors {
                0 => "pages".to_string(),
                1 => "pages (1 error)".to_string(),
                n => format!("pages ({n} errors)"),
            };
            Frame {
                label: "crawl",
                done: p.pages_done,
                total: Some(total),
                what,
            }
        }
        Phase::Links if p.links_total > 0 => Frame {
            label: "links",
            done: p.links_checked.min(p.links_total),
            total: Some(p.links_total),
            what: "links".to_string(),
        },
        Phase::Links => Frame {
            label: "links",
            done: 0,
            total: None,
            what: "checking links and resources".to_string(),
        },
        Phase::Finish => Frame {
            label: "finish",
            done: 0,
            total: None,
            what: "site checks and the report".to_string(),
        },
    }
}

/// A phase with a total. `{per_sec:1}`: one decimal (indicatif reads the
/// width of `per_sec` as its precision).
const BAR_TEMPLATE: &str =
    "{spinner:.cyan} {prefix:.bold} [{bar:28.cyan/blue}] {pos}/{len} {msg} · {per_sec:1} · ETA {eta}";
/// A phase without a total (yet).
const SPINNER_TEMPLATE: &str = "{spinner:.cyan} {prefix:.bold} {msg} · {elapsed}";

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template(BAR_TEMPLATE)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template(SPINNER_TEMPLATE)
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

/// A bar (or spinner) for `shown`, built whole before its first frame is
/// drawn: changing the style of a live bar draws frames that mix the old
/// phase's style with the new numbers.
fn make_bar(shown: Shown, f: &Frame) -> ProgressBar {
    let bar = match (shown, f.total) {
        (Shown::Bar(_), Some(total)) => ProgressBar::new(total)
            .with_style(bar_style())
            .with_position(f.done),
        _ => ProgressBar::new_spinner().with_style(spinner_style()),
    }
    .with_prefix(f.label)
    .with_message(f.what.clone());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

impl ScanProgress {
    /// A display for a scan of at most `max_pages` pages; a bar when
    /// `interactive` (stderr is a terminal), log lines otherwise.
    pub(crate) fn new(interactive: bool, max_pages: usize) -> Self {
        let mut state = State::default();
        if interactive {
            let start = Frame {
                label: "crawl",
                done: 0,
                total: None,
                what: "fetching the start page".to_string(),
            };
            state.bar = Some(make_bar(Shown::Spinner(Phase::Crawl), &start));
        }
        ScanProgress {
            interactive,
            max_pages: max_pages as u64,
            state: Mutex::new(state),
        }
    }

    /// Shows one progress event.
    pub(crate) fn update(&self, p: Progress) {
        let f = frame(&p, self.max_pages);
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let shown = match f.total {
            Some(_) => Shown::Bar(p.phase),
            None => Shown::Spinner(p.phase),
        };
        let phase_changed = state.shown.map(phase_of) != Some(p.phase);
        if !self.interactive {
            log(&p, phase_changed, &mut state.last_log, Instant::now());
        } else if state.shown != Some(shown) {
            // A new phase (or its total became known): a new bar, with its
            // own clock and rate.
            if let Some(old) = state.bar.take() {
                old.finish_and_clear();
            }
            state.bar = Some(make_bar(shown, &f));
        } else if let Some(bar) = &state.bar {
            if let Some(total) = f.total {
                bar.set_length(total);
            }
            bar.set_position(f.done);
            bar.set_message(f.what.clone());
        }
        state.shown = Some(shown);
    }

    /// Removes the bar (the summary or the messages come next).
    pub(crate) fn finish(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(bar) = state.bar.take() {
            bar.finish_and_clear();
        }
    }
}

fn phase_of(shown: Shown) -> Phase {
    match shown {
        Shown::Bar(p) | Shown::Spinner(p) => p,
    }
}

/// Log lines for a stderr that is no terminal: each phase's start, and the
/// link phase's counts every [`LOG_EVERY`].
fn log(p: &Progress, phase_changed: bool, last: &mut Option<Instant>, now: Instant) {
    match p.phase {
        Phase::Crawl => {}
        Phase::Links if phase_changed => {
            tracing::info!(
                pages = p.pages_done,
                links = p.links_total,
                "crawl done; checking links and resources"
            );
            *last = Some(now);
        }
        Phase::Links => {
            if last.is_none_or(|t| now.duration_since(t) >= LOG_EVERY) {
                tracing::info!(
                    checked = p.links_checked,
                    total = p.links_total,
                    "checking links and resources"
                );
                *last = Some(now);
            }
        }
        Phase::Finish if phase_changed => {
            tracing::info!(
                pages = p.pages_done,
                links = p.links_checked,
                "running the site checks"
            );
        }
        Phase::Finish => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(phase: Phase, done: u64, queued: u64, errors: u64) -> Progress {
        Progress {
            pages_done: done,
            pages_queued: queued,
            errors,
            phase,
            ..Progress::default()
        }
    }

    #[test]
    fn crawl_counts_pages_against_the_known_urls_capped_by_the_limit() {
        let f = frame(&progress(Phase::Crawl, 30, 489, 0), 1000);
        assert_eq!(
            f,
            Frame {
                label: "crawl",
                done: 30,
                total: Some(519),
                what: "pages".into()
            }
        );
        let f = frame(&progress(Phase::Crawl, 30, 4890, 1), 500);
        assert_eq!(f.total, Some(500));
        assert_eq!(f.what, "pages (1 error)");
        assert_eq!(
            frame(&progress(Phase::Crawl, 3, 0, 2), 500).what,
            "pages (2 errors)"
        );
        // Never a total below what is done.
        assert_eq!(frame(&progress(Phase::Crawl, 7, 0, 0), 5).total, Some(7));
    }

    #[test]
    fn links_show_checked_of_total_or_a_spinner_until_the_total_is_known() {
        let mut p = progress(Phase::Links, 30, 0, 0);
        assert_eq!(frame(&p, 100).total, None);
        assert_eq!(frame(&p, 100).what, "checking links and resources");
        p.links_total = 1996;
        p.links_checked = 1204;
        let f = frame(&p, 100);
        assert_eq!((f.label, f.done, f.total), ("links", 1204, Some(1996)));
        assert_eq!(f.what, "links");
        let f = frame(&progress(Phase::Finish, 30, 0, 0), 100);
        assert_eq!((f.label, f.total), ("finish", None));
    }

    #[test]
    fn no_frame_ends_in_dangling_punctuation() {
        let phases = [Phase::Crawl, Phase::Links, Phase::Finish];
        for phase in phases {
            for errors in [0, 1, 5] {
                let mut p = progress(phase, 3, 4, errors);
                p.links_total = 10;
                let f = frame(&p, 100);
                let last = f.what.chars().last().unwrap();
                assert!(last.is_alphanumeric() || last == ')', "{f:?}");
                assert!(!f.what.contains(", ,") && !f.what.contains("  "), "{f:?}");
            }
        }
    }

    /// Log lines written while `f` runs, as text.
    fn logged(f: impl FnOnce()) -> String {
        #[derive(Clone, Default)]
        struct Buf(std::sync::Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Buf {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buf = Buf::default();
        let writer = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .without_time()
            .with_target(false)
            .finish();
        tracing::subscriber::with_default(subscriber, f);
        let bytes = buf.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn without_a_terminal_each_phase_logs_once_and_links_every_ten_seconds() {
        let t0 = Instant::now();
        let mut last = None;
        let mut links = progress(Phase::Links, 30, 0, 0);
        links.links_total = 1996;
        let text = logged(|| {
            log(&progress(Phase::Crawl, 1, 5, 0), true, &mut last, t0);
            log(&progress(Phase::Crawl, 2, 5, 0), false, &mut last, t0);
            log(&links, true, &mut last, t0);
            links.links_checked = 500;
            log(&links, false, &mut last, t0 + Duration::from_secs(9));
            links.links_checked = 1204;
            log(&links, false, &mut last, t0 + Duration::from_secs(10));
            log(&links, false, &mut last, t0 + Duration::from_secs(15));
            let mut finish = links;
            finish.phase = Phase::Finish;
            log(&finish, true, &mut last, t0 + Duration::from_secs(16));
            log(&finish, false, &mut last, t0 + Duration::from_secs(17));
        });
        assert_eq!(
            text,
            " INFO crawl done; checking links and resources pages=30 links=1996\n \
             INFO checking links and resources checked=1204 total=1996\n \
             INFO running the site checks pages=30 links=1204\n"
        );
    }

    #[test]
    fn templates_parse() {
        ProgressStyle::with_template(BAR_TEMPLATE).unwrap();
        ProgressStyle::with_template(SPINNER_TEMPLATE).unwrap();
    }
}
