//! Logging setup: the only place a `tracing` subscriber is installed.

use tracing_subscriber::EnvFilter;

/// Default filter when `RUST_LOG` is not set.
pub const DEFAULT_FILTER: &str =
    "sitescan=info,sitescan_engine=info,sitescan_daemon=info,tower_http=info";

/// Human-readable logs on stderr, for the CLI. `quiet` keeps only warnings.
pub fn init_cli(quiet: bool) {
    let default = if quiet { "warn" } else { DEFAULT_FILTER };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .try_init();
}

/// JSON logs on stderr, for `serve` and `worker`.
pub fn init_service() {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let _ = tracing_subscriber::fmt()
        .json()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
