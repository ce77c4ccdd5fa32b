//! The `sitescan` binary: all of it lives in `sitescan_daemon::cli`.

fn main() -> std::process::ExitCode {
    sitescan_daemon::cli::main()
}
