//! `sitescan scan <url>`: crawl a site, write the report, exit by threshold.
//!
//! The report goes to stdout (or `--output`) in any format of
//! `sitescan_engine::render`, compared with `--baseline` and gated by
//! `--fail-on`, `--fail-on-new`, `--max-findings` and `--min-score` (see
//! [`super::output`]). On a terminal with neither `--format` nor `--output`,
//! a person reads it: a summary instead, the full report saved as files
//! ([`super::summary`]). Progress and messages go to stderr: a progress bar
//! per phase when stderr is a terminal, plain log lines otherwise (CI logs;
//! [`super::progress`]). As a person's own tool on their own machine, `scan`
//! may fetch loopback and private addresses unless `--no-private`.
//!
//! Exit 3 ("could not run") also when the start URL does not end on a 2xx
//! HTML page (the engine's `Error::StartPage`, judged before anything else is
//! crawled): no report is written then.
//!
//! The findings wait in an anonymous temporary file in the system's temporary
//! directory (`TMPDIR`) until the report is written, so memory stays flat on
//! large sites (`sitescan_engine::Scanner::scan_spooled`).

use std::io::IsTerminal;

use clap::Args as ClapArgs;
use sitescan_engine::auth::{BasicAuth, NameValue, SiteAuth};
use sitescan_engine::config::{
    LinkScope, StatusRange, DEFAULT_ACCEPT, DEFAULT_CONCURRENCY, DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_PAGES, DEFAULT_RATE_PER_HOST, DEFAULT_USER_AGENT,
};
use sitescan_engine::render::count;
use sitescan_engine::{Error, ReportSource, ScanConfig, Scanner, SpooledReport};
use sitescan_rules::Category;

use super::output::{Delivery, OutputArgs};
use super::progress::ScanProgress;
use super::{CliError, CliResult};

/// Arguments of `sitescan scan`.
#[derive(Debug, ClapArgs)]
pub(crate) struct Args {
    /// The start URL (http:// or https://).
    url: String,

    /// Rule sets and rule ids, comma-separated (wcag-a, wcag-aa, best-practice,
    /// accessibility, seo, security, performance, quality, all, or ids).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "all",
        env = "SITESCAN_RULES"
    )]
    rules: Vec<String>,

    /// Pages fetched at most; the crawl stops exactly there.
    #[arg(long, default_value_t = DEFAULT_MAX_PAGES, env = "SITESCAN_MAX_PAGES")]
    max_pages: usize,

    /// Link depth followed at most (the start page is depth 0).
    #[arg(long, default_value_t = DEFAULT_MAX_DEPTH, env = "SITESCAN_MAX_DEPTH")]
    max_depth: u32,

    /// Requests per second per host (a robots.txt Crawl-delay can only slow it).
    #[arg(long, default_value_t = DEFAULT_RATE_PER_HOST, env = "SITESCAN_RATE")]
    rate: f64,

    /// Requests in flight at once.
    #[arg(long, default_value_t = DEFAULT_CONCURRENCY, env = "SITESCAN_CONCURRENCY")]
    concurrency: usize,

    /// Only crawl URLs matching this regular expression (repeatable).
    #[arg(long = "include", value_name = "PATTERN", env = "SITESCAN_INCLUDE")]
    include: Vec<String>,

    /// Skip URLs matching this regular expression (repeatable).
    #[arg(long = "exclude", value_name = "PATTERN", env = "SITESCAN_EXCLUDE")]
    exclude: Vec<String>,

    /// Also crawl subdomains of the start host.
    #[arg(long, env = "SITESCAN_SUBDOMAINS")]
    subdomains: bool,

    /// User agent sent, and matched against robots.txt groups by its first word.
    #[arg(long, default_value = DEFAULT_USER_AGENT, env = "SITESCAN_USER_AGENT")]
    user_agent: String,

    /// Refuse loopback, private and link-local addresses (as the service does).
    #[arg(long, env = "SITESCAN_NO_PRIVATE")]
    no_private: bool,

    /// Ignore robots.txt (only for sites you own).
    #[arg(long, env = "SITESCAN_IGNORE_ROBOTS")]
    ignore_robots: bool,

    /// Crawl sites whose TLS certificate is invalid (self-signed or expired
    /// staging sites); the tls-certificate rule still reports the certificate.
    #[arg(long, env = "SITESCAN_INSECURE")]
    insecure: bool,

    /// Also trust the root certificates in this PEM file (a private CA of a
    /// staging site); repeatable.
    #[arg(long = "ca-cert", value_name = "FILE", env = "SITESCAN_CA_CERT")]
    ca_cert: Vec<std::path::PathBuf>,
    /// Final statuses of link and resource checks that count as working,
    /// comma-separated codes and ranges as lychee writes them: 403, 200..=299,
    /// 200..300, ..=299, 500.. (codes 100 to 999).
    #[arg(
        long,
        value_name = "CODES",
        default_value = DEFAULT_ACCEPT,
        value_parser = parse_accept,
        env = "SITESCAN_ACCEPT"
    )]
    accept: AcceptList,

    /// Which links and resources the scan requests to check them: all (any
    /// host), internal (the scanned site only: flaky external sites cannot
    /// fail the run) or none (only what the crawl fetches anyway). Unchecked
    /// URLs never pass: they are counted in the report's stats.skipped.links.
    #[arg(
        long,
        value_enum,
        value_name = "SCOPE",
        default_value_t = LinksArg::All,
        env = "SITESCAN_LINKS"
    )]
    links: LinksArg,

    /// Render each page in headless Chromium and check the DOM its scripts
    /// built (Debian's `chromium`; SITESCAN_CHROMIUM names another binary).
    #[arg(long, env = "SITESCAN_RENDER")]
    render: bool,

    /// Credentials for a site behind a login: a JSON file of the engine's
    /// SiteAuth (headers, cookies, basic, login_form, login_steps,
    /// sign_out_exclude), `-` for stdin. Sent only to the start URL's origin;
    /// never in the report. Preferred to the flags below, whose values show
    /// in the process list.
    #[arg(long = "auth", value_name = "FILE", env = "SITESCAN_AUTH")]
    auth: Option<std::path::PathBuf>,

    /// An extra request header for the site, `Name: value` (repeatable; the
    /// value shows in the process list: prefer --auth).
    #[arg(long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    header: Vec<Secret<(String, String)>>,

    /// A cookie for the site, `name=value` (repeatable; the value shows in
    /// the process list: prefer --auth).
    #[arg(long = "cookie", value_name = "NAME=VALUE", value_parser = parse_cookie)]
    cookie: Vec<Secret<(String, String)>>,

    /// HTTP basic authentication for the site, `user:password` (shows in the
    /// process list: prefer --auth).
    #[arg(long = "basic", value_name = "USER:PASSWORD", value_parser = parse_basic)]
    basic: Option<Secret<(String, String)>>,
    /// With --render: how the browser waits for each page, its throttling
    /// and its pictures.
    #[command(flatten)]
    render_args: super::render_args::RenderArgs,

    /// The page budget: what one page's analysis may spend.
    #[command(flatten)]
    budget: super::budget::BudgetArgs,

    /// Output format, file, baseline and gates.
    #[command(flatten)]
    output: OutputArgs,
}

/// The values of `--links` (clap's view of [`LinkScope`], so `--help` lists
/// them and a wrong one is a usage error naming the choices).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LinksArg {
    /// Check links and resources on every host.
    All,
    /// Check only the scanned site's links and resources.
    Internal,
    /// Request nothing beyond the crawl's own pages and stylesheets.
    None,
}

impl From<LinksArg> for LinkScope {
    fn from(arg: LinksArg) -> LinkScope {
        match arg {
            LinksArg::All => LinkScope::All,
            LinksArg::Internal => LinkScope::Internal,
            LinksArg::None => LinkScope::None,
        }
    }
}

/// A credential from the command line: `Debug` never shows it.
#[derive(Clone)]
struct Secret<T>(T);

impl<T> std::fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

fn parse_header(s: &str) -> Result<Secret<(String, String)>, String> {
    let (name, value) = s
        .split_once(':')
        .ok_or("expected `Name: value` (a colon between the name and the value)")?;
    Ok(Secret((name.trim().to_string(), value.trim().to_string())))
}

fn parse_cookie(s: &str) -> Result<Secret<(String, String)>, String> {
    let (name, value) = s
        .split_once('=')
        .ok_or("expected `name=value` (an equals sign between the name and the value)")?;
    Ok(Secret((name.trim().to_string(), value.to_string())))
}

fn parse_basic(s: &str) -> Result<Secret<(String, String)>, String> {
    let (user, password) = s
        .split_once(':')
        .ok_or("expected `user:password` (a colon between the user name and the password)")?;
    Ok(Secret((user.to_string(), password.to_string())))
}

/// A JSON error without the values it quotes (serde quotes a wrong value,
/// which may be a password): its kind, position and field names are kept.
fn json_error_without_values(e: &serde_json::Error) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in e.to_string().chars() {
        if c == '"' {
            if !quoted {
                out.push_str("\"…\"");
            }
            quoted = !quoted;
        } else if !quoted {
            out.push(c);
        }
    }
    out
}

/// The parsed `--accept` list (a newtype so clap takes the whole list as one
/// value: ranges contain no commas, the list does).
#[derive(Debug, Clone)]
struct AcceptList(Vec<StatusRange>);

fn parse_accept(s: &str) -> Result<AcceptList, String> {
    StatusRange::parse_list(s).map(AcceptList)
}

impl Args {
    /// The credentials of `--auth`, `--header`, `--cookie` and `--basic`
    /// (the flags add to the file; `--basic` replaces the file's).
    fn site_auth(&self) -> Result<SiteAuth, CliError> {
        let mut auth = match &self.auth {
            None => SiteAuth::default(),
            Some(path) => {
                let (name, text) = if path.as_os_str() == "-" {
                    let mut text = String::new();
                    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(
                        |e| {
                            CliError::usage(anyhow::anyhow!(
                                "cannot read the credentials from stdin: {e}"
                            ))
                        },
                    )?;
                    ("stdin".to_string(), text)
                } else {
                    let text = std::fs::read_to_string(path).map_err(|e| {
                        CliError::usage(anyhow::anyhow!(
                            "cannot read the credentials file {}: {e}",
                            path.display()
                        ))
                    })?;
                    (path.display().to_string(), text)
                };
                serde_json::from_str(&text).map_err(|e| {
                    CliError::usage(anyhow::anyhow!(
                        "the credentials in {name} are not valid: {}; see docs/src/authenticated-scans.md for the format",
                        json_error_without_values(&e)
                    ))
                })?
            }
        };
        for Secret((name, value)) in &self.header {
            auth.headers.push(NameValue {
                name: name.clone(),
                value: value.clone(),
            });
        }
        for Secret((name, value)) in &self.cookie {
            auth.cookies.push(NameValue {
                name: name.clone(),
                value: value.clone(),
            });
        }
        if let Some(Secret((username, password))) = &self.basic {
            auth.basic = Some(BasicAuth {
                username: username.clone(),
                password: password.clone(),
            });
        }
        Ok(auth)
    }

    fn config(&self) -> Result<ScanConfig, CliError> {
        let mut ca_certs = Vec::new();
        for path in &self.ca_cert {
            let pem = std::fs::read_to_string(path).map_err(|e| {
                CliError::usage(anyhow::anyhow!(
                    "cannot read the CA certificate file {}: {e}",
                    path.display()
                ))
            })?;
            ca_certs.push(pem);
        }
        Ok(ScanConfig {
            rules: self.rules.clone(),
            max_pages: self.max_pages,
            max_depth: self.max_depth,
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            subdomains: self.subdomains,
            rate_per_host: self.rate,
            concurrency: self.concurrency,
            respect_robots: !self.ignore_robots,
            user_agent: self.user_agent.clone(),
            allow_private: !self.no_private,
            tls_insecure: self.insecure,
            ca_certs,
            accept: self.accept.0.clone(),
            links: self.links.into(),
            budget: self.budget.budget(),
            render: self.render,
            render_options: self.render_args.options(),
            ..ScanConfig::default()
        })
    }
}

fn classify(e: Error) -> CliError {
    match e {
        Error::InvalidUrl { .. } | Error::Config(_) => CliError::usage(e),
        other => CliError::run(other),
    }
}

/// Runs a scan.
pub(crate) fn run(args: Args) -> CliResult {
    let interactive = std::io::stderr().is_terminal();
    let delivery = Delivery::choose(&args.output, std::io::stdout().is_terminal());
    crate::telemetry::init_cli(interactive);
    // A wrong baseline file fails now, not after the crawl.
    args.render_args.check(args.render)?;
    let baseline = args.output.load_baseline()?;
    let auth = args.site_auth()?;
    // Bad credentials fail now, before the browser or the crawl starts.
    if let Ok(start) = url::Url::parse(&args.url) {
        auth.validate(&start)
            .map_err(|e| CliError::usage(anyhow::anyhow!("invalid credentials: {e}")))?;
    }
    let scanner = Scanner::builder()
        .config(args.config()?)
        .auth(auth)
        .build()
        .map_err(classify)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            CliError::run(anyhow::Error::from(e).context("could not start the runtime"))
        })?;
    let progress = ScanProgress::new(interactive, args.max_pages);
    let result = runtime.block_on(async {
        scanner
            .scan_spooled(&args.url, &std::env::temp_dir(), &|p| progress.update(p))
            .await
            .map_err(classify)
    });
    progress.finish();
    let report = result?;
    if interactive && delivery == Delivery::Report {
        eprintln!("{}", one_line(&report));
    }
    let code = args
        .output
        .finish_spooled(report, baseline.as_ref(), delivery)?;
    if let Some(path) = &args.output.output {
        tracing::info!(path = %path.display(), "report written");
    }
    Ok(code)
}

/// The line a person at a terminal sees when the report itself went to a
/// file or a pipe: pages, findings, scores, and why the crawl stopped early.
fn one_line(report: &SpooledReport) -> String {
    let head = report.head();
    let mut line = format!(
        "sitescan: {} scanned, {}",
        count(head.pages.len() as u64, "page", "pages"),
        count(report.finding_count(), "finding", "findings"),
    );
    let scores: Vec<String> = Category::ALL
        .into_iter()
        .filter_map(|c| {
            let s = head.summary.get(&c)?;
            let score = s.score?;
            Some(match &s.grade {
                Some(g) => format!("{c} {score} ({g})"),
                None => format!("{c} {score}"),
            })
        })
        .collect();
    if !scores.is_empty() {
        line.push_str("; scores: ");
        line.push_str(&scores.join(", "));
    }
    if head.stats.truncated {
        line.push_str(&format!(
            "; stopped at the page limit with {} URLs left",
            head.stats.urls_left
        ));
    }
    line
}
