//! Render mode's options as flags, shared by `scan` (the options of its own
//! scan) and `remote scan` (sent as the API's `config.render_options`): one
//! set of names and one parser per value, with the API's bounds. Each only
//! means something with `--render`; given without it (as a flag or by its
//! environment variable) it is a usage error (exit 2) saying so.

use clap::Args as ClapArgs;
use serde_json::{json, Value};
use sitescan_engine::{RenderOptions, RenderWait, ScreenshotOptions, Throttle, ViewportSize};

use super::CliError;
use crate::ops::scans::{check_wait_selector, max_wait_ms_from_secs};

/// How render mode waits for each page, and what it records.
#[derive(Debug, Clone, Default, ClapArgs)]
pub(crate) struct RenderArgs {
    /// With --render: what the browser waits for after a page's load event
    /// before its DOM is taken: network-idle (the default: no request of the
    /// page in flight for 500 ms) or load (the load event, then 500 ms).
    #[arg(
        long,
        value_enum,
        value_name = "EVENT",
        env = "SITESCAN_WAIT_UNTIL",
        conflicts_with = "wait_selector"
    )]
    wait_until: Option<WaitUntil>,

    /// With --render: wait for an element matching this CSS selector (1 to
    /// 200 characters), then 500 ms, before a page's DOM is taken.
    #[arg(
        long,
        value_name = "CSS",
        value_parser = parse_wait_selector,
        env = "SITESCAN_WAIT_SELECTOR"
    )]
    wait_selector: Option<String>,

    /// With --render: longest wait for one page from its navigation, in
    /// seconds (0.1 to 60, fractions allowed; default 10); past it the DOM is
    /// taken as it is.
    #[arg(
        long,
        value_name = "SECS",
        value_parser = parse_max_wait,
        env = "SITESCAN_MAX_WAIT"
    )]
    max_wait: Option<MaxWait>,

    /// With --render: the network and CPU pages are loaded with, for their
    /// Web Vitals: none (default), mobile (slow 4G, 4x slower CPU, a phone's
    /// viewport) or desktop. Applied throttling, as Lighthouse's devtools mode.
    #[arg(long, value_enum, value_name = "PRESET", env = "SITESCAN_THROTTLE")]
    throttle: Option<ThrottleArg>,

    /// With --render: the viewport pages are laid out and judged in, CSS
    /// pixels, each side 200 to 4000 (default 1280x720, a desktop window as
    /// Playwright's; with --throttle mobile or desktop, that preset's own
    /// unless this is given).
    #[arg(
        long,
        value_name = "WIDTHxHEIGHT",
        value_parser = parse_viewport,
        env = "SITESCAN_VIEWPORT"
    )]
    viewport: Option<ViewportSize>,

    /// With --render: most pictures per scan (a highlighted screenshot of
    /// each failing element, a thumbnail of each page; default 200), embedded
    /// in the HTML report; 0 takes none. At most 20 MB of pictures in any case.
    #[arg(long, value_name = "N", env = "SITESCAN_MAX_SCREENSHOTS")]
    max_screenshots: Option<usize>,
}

/// The values of `--wait-until` (a [`RenderWait`] without a selector).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum WaitUntil {
    /// No request of the page in flight for the quiet period (the default).
    NetworkIdle,
    /// The load event, then the quiet period.
    Load,
}

/// The values of `--throttle` (clap's view of [`Throttle`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ThrottleArg {
    /// No throttling.
    None,
    /// Slow 4G and a 4x slower CPU on a phone's viewport.
    Mobile,
    /// A fast connection on a desktop viewport.
    Desktop,
}

impl From<ThrottleArg> for Throttle {
    fn from(arg: ThrottleArg) -> Throttle {
        match arg {
            ThrottleArg::None => Throttle::None,
            ThrottleArg::Mobile => Throttle::Mobile,
            ThrottleArg::Desktop => Throttle::Desktop,
        }
    }
}

/// `--max-wait`, in whole milliseconds (the API's unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MaxWait(u64);

fn parse_max_wait(s: &str) -> Result<MaxWait, String> {
    max_wait_ms_from_secs(s).map(MaxWait)
}

fn parse_viewport(s: &str) -> Result<ViewportSize, String> {
    s.parse()
}

fn parse_wait_selector(s: &str) -> Result<String, String> {
    check_wait_selector(s)?;
    Ok(s.to_string())
}

impl RenderArgs {
    /// The flags given, by name, in the order `--help` lists them.
    fn given(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.wait_until.is_some() {
            out.push("--wait-until");
        }
        if self.wait_selector.is_some() {
            out.push("--wait-selector");
        }
        if self.max_wait.is_some() {
            out.push("--max-wait");
        }
        if self.throttle.is_some() {
            out.push("--throttle");
        }
        if self.viewport.is_some() {
            out.push("--viewport");
        }
        if self.max_screenshots.is_some() {
            out.push("--max-screenshots");
        }
        out
    }

    /// Exit 2 when an option is given without `--render`.
    pub(crate) fn check(&self, render: bool) -> Result<(), CliError> {
        let given = self.given();
        if render || given.is_empty() {
            return Ok(());
        }
        let (verb, they, them) = if given.len() == 1 {
            ("applies", "it says", "it")
        } else {
            ("apply", "they say", "them")
        };
        Err(CliError::usage(anyhow::anyhow!(
            "{} only {verb} with --render ({they} how the browser loads each page): add --render, or leave {them} out",
            given.join(", "),
        )))
    }

    /// The wait asked for, if any.
    fn wait(&self) -> Option<RenderWait> {
        match (&self.wait_selector, self.wait_until) {
            (Some(sel), _) => Some(RenderWait::Selector(sel.clone())),
            (None, Some(WaitUntil::Load)) => Some(RenderWait::Load),
            (None, Some(WaitUntil::NetworkIdle)) => Some(RenderWait::NetworkIdle),
            (None, None) => None,
        }
    }

    /// The engine's options for a local scan (defaults where nothing was
    /// given).
    pub(crate) fn options(&self) -> RenderOptions {
        let mut options = RenderOptions::default();
        if let Some(wait) = self.wait() {
            options.wait = wait;
        }
        if let Some(MaxWait(ms)) = self.max_wait {
            options.max_wait_ms = ms;
        }
        if let Some(t) = self.throttle {
            options.throttle = t.into();
        }
        options.viewport = self.viewport;
        if let Some(max) = self.max_screenshots {
            options.screenshots = ScreenshotOptions {
                enabled: max > 0,
                max,
                ..Default::default()
            };
        }
        options
    }

    /// The API's `config.render_options` of what was given (`None`: nothing
    /// was, and the service's defaults apply).
    pub(crate) fn api_options(&self) -> Option<Value> {
        let mut out = serde_json::Map::new();
        if let Some(wait) = self.wait() {
            out.insert("wait".into(), json!(wait));
        }
        if let Some(MaxWait(ms)) = self.max_wait {
            out.insert("max_wait_ms".into(), json!(ms));
        }
        if let Some(t) = self.throttle {
            out.insert("throttle".into(), json!(Throttle::from(t).as_str()));
        }
        if let Some(v) = self.viewport {
            out.insert("viewport".into(), json!(v));
        }
        if let Some(max) = self.max_screenshots {
            out.insert(
                "screenshots".into(),
                json!({"enabled": max > 0, "max": max}),
            );
        }
        (!out.is_empty()).then_some(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_wait_is_read_in_seconds_within_the_apis_bounds() {
        assert_eq!(parse_max_wait("15"), Ok(MaxWait(15_000)));
        assert_eq!(parse_max_wait("0.5"), Ok(MaxWait(500)));
        assert_eq!(parse_max_wait("0.1"), Ok(MaxWait(100)));
        assert_eq!(parse_max_wait("60"), Ok(MaxWait(60_000)));
        let range = "give 0.1 to 60 seconds (e.g. 15 or 0.5)";
        assert_eq!(parse_max_wait("0.05"), Err(range.to_string()));
        assert_eq!(parse_max_wait("61"), Err(range.to_string()));
        assert_eq!(parse_max_wait("-1"), Err(range.to_string()));
        assert_eq!(parse_max_wait("inf"), Err(range.to_string()));
        assert_eq!(
            parse_max_wait("soon"),
            Err(format!("`soon` is not a number of seconds: {range}"))
        );
    }

    #[test]
    fn viewport_is_read_as_width_x_height_within_the_bounds() {
        assert_eq!(
            parse_viewport("800x600"),
            Ok(ViewportSize {
                width: 800,
                height: 600
            })
        );
        assert_eq!(
            parse_viewport("100x600"),
            Err(
                "a viewport width of 100 pixels is out of bounds: give 200 to 4000 pixels (e.g. 1280x720)"
                    .to_string()
            )
        );
        assert_eq!(
            parse_viewport("800 by 600"),
            Err("`800 by 600` is not a viewport: give WIDTHxHEIGHT in CSS pixels, each 200 to 4000 (e.g. 1280x720)".to_string())
        );
    }

    #[test]
    fn the_api_options_carry_only_what_was_given() {
        assert_eq!(RenderArgs::default().api_options(), None);
        let args = RenderArgs {
            wait_until: None,
            wait_selector: Some("#app h1".into()),
            max_wait: Some(MaxWait(15_000)),
            throttle: Some(ThrottleArg::Mobile),
            viewport: Some(ViewportSize {
                width: 800,
                height: 600,
            }),
            max_screenshots: Some(0),
        };
        assert_eq!(
            args.api_options(),
            Some(json!({
                "wait": {"selector": "#app h1"},
                "max_wait_ms": 15000,
                "throttle": "mobile",
                "viewport": {"width": 800, "height": 600},
                "screenshots": {"enabled": false, "max": 0}
            }))
        );
        let local = args.options();
        assert_eq!(local.wait, RenderWait::Selector("#app h1".into()));
        assert_eq!(local.max_wait_ms, 15_000);
        assert_eq!(
            local.viewport,
            Some(ViewportSize {
                width: 800,
                height: 600
            })
        );
        assert_eq!(RenderArgs::default().options().viewport, None);
        assert!(!local.screenshots.on());
        assert!(args.check(true).is_ok());
        let e = args.check(false).unwrap_err();
        assert_eq!(e.code, super::super::EXIT_USAGE);
        assert_eq!(
            e.error.to_string(),
            "--wait-selector, --max-wait, --throttle, --viewport, --max-screenshots only apply with --render (they say how the browser loads each page): add --render, or leave them out"
        );
    }
}
