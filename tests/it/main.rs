//! End-to-end tests, all in one binary (as ripgrep and omniqueue do).
//!
//! - `cli`: the `sitescan` binary's commands, exit codes and messages.
//! - `budget`: the page budget (library, CLI, API ceiling) and a cancel that stops CPU.
//! - `api`: the REST API over real HTTP against fixture sites (`api_support`: the
//!   in-process server and helpers); `api_edges`: what Stripe/GitHub users expect
//!   (all validation problems, Bearer, Idempotency-Key, quota refunds, absolute
//!   URLs, RateLimit headers, link options and link-phase progress); `serve`: the `serve`/`admin` binaries, restart.
//! - `api_render`: render scans through the API (`config.render`): run in the
//!   embedded service's browser, validated with exact answers, refused by a
//!   service without a browser.
//! - `contract`: the Store and Queue contract, run on the embedded backend.
//! - `crash_loop`: `serve` killed while a page is in analysis: that scan is failed
//!   after two kills, the others keep their attempts.
//! - `fleet`: the Redis backend (same contract), `sitescan worker` processes under faults;
//!   `fleet_support` holds their Redis servers, prefixes and workers (shared with
//!   `benches/fleet_scale.rs`); `fleet_screenshots`: a render scan run by a
//!   `sitescan worker --render` process whose pictures the API process serves.
//! - `crawl`: the crawler over real HTTP against the fixture server (politeness,
//!   limits, redirects, SSRF guard, sitemaps, the library API).
//! - `conformance`: the ACT conformance floor (`conformance/floor.json`).
//! - `hostile_fetch`: the crawler against a hostile server (decompression bombs
//!   as page, sitemap, robots.txt and stylesheet; a huge sitemap index; bodies cut
//!   short or stalled).
//! - `render`: render mode with a real Chromium: the rendered DOM through the
//!   rules, every route a page's script has to a refused address, a hung tab,
//!   the CLI's `--render` and a missing browser, the scripted toggles that do
//!   and do not collapse a navigation.
//! - `screenshots`: render mode's pictures (a highlighted clip of each failing
//!   element, a page thumbnail), their caps, the HTML report embedding them and
//!   the API serving them with the reports' tenancy on both backends.
//! - `render_layout`: rules preferring the browser's facts (styles, boxes,
//!   blended backgrounds, modal dialogs, shadow roots): static vs render findings.
//! - `render_reflow`: the reflow and zoomed text rules on the page laid out at
//!   320 and 640 CSS pixels in Chromium vs the cascade's estimates.
//! - `reports`: report formats, baselines and gates (`sitescan report`).
//! - `site_checks`: link/resource checks over the network and the security grade.
//! - `links`: deterministic page sets under a page limit, one `broken-links`
//!   finding per target with its places, `HEAD`/`GET` per answer, link-phase
//!   progress, a scan without outside network (network namespace).
//! - `dashboard`: the dashboard's pages over HTTP: sign-in, sessions, CSRF, keys,
//!   sites, scan quota, tenancy, and our own rules over every page;
//!   `dashboard_screenshots`: render mode's pictures in the findings explorer,
//!   served with the session's tenancy.
//! - `siteinfo`: robots.txt, sitemaps, the CORS probe and the TLS handshake checks
//!   (loopback HTTPS servers with rcgen certificates).
//! - `subresources`: subresource facts fetched once per scan, the rules over them,
//!   accepted statuses.
//! - `ssrf_and_limits`: IPv6 transition forms and credentials at registration, JSON
//!   with trailing garbage, key lifetimes out of range.
//! - `webhooks`: signed scan events to a real receiver, retries, restart, 410, registration.
//! - `hostile`: the hostile corpus (fixtures::hostile) scanned by the CLI and through
//!   `serve` beside another tenant: every scan finishes, over-limit pages say so.
//! - `fuzz_corpus`: the fuzz targets' saved corpus replayed without the fuzzer.
//! - `docs`: the README and the book under `docs/`: local links and anchors
//!   resolve, every page is in the table of contents, every `--help` flag is
//!   documented, nothing points outside the repository.
//! - `api_reference`: the API reference's sections generated from the OpenAPI
//!   document are current (`SITESCAN_BLESS=1` rewrites them).
//! - `walkthrough`: the book's curl walkthrough, run as printed.
//! - `schedules`: scheduled scans: the API, runs on time, quota skips, a missed
//!   run firing once, exactly one scan per run with two `serve --redis` processes.
//! - `auth`: scans behind a login (basic authentication, a session cookie, a
//!   sign-in form with a CSRF token, browser sign-in steps in render mode): the
//!   private pages reached, credentials never sent to another origin, sign-out
//!   never requested, secrets in no report and no log.
//! - `marks`: triage marks: the API on both backends, the store's cap, a marked
//!   finding leaving the score and never new, `remote marks export|import` with
//!   `scan --baseline`.
//! - `netns`: a CLI scan in a network namespace of its own (`unshare -rn`), for
//!   the tests of a closed network and of the SSRF guard on redirects.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod api;
mod api_edges;
mod api_reference;
mod api_render;
mod api_support;
mod auth;
mod budget;
mod cascade;
mod cascade_imports;
mod cli;
mod conformance;
mod contract;
mod crash_loop;
mod crawl;
mod credentials;
mod dashboard;
mod dashboard_screenshots;
mod docs;
mod fleet;
mod fleet_screenshots;
mod fleet_support;
mod fuzz_corpus;
mod hostile;
mod hostile_fetch;
mod links;
mod marks;
mod monitoring_walkthrough;
mod netns;
mod regressions;
mod remote;
mod render;
mod render_layout;
mod render_reflow;
mod render_viewport;
mod reports;
mod schedules;
mod screenshots;
mod serve;
mod site_checks;
mod siteinfo;
mod ssrf_and_limits;
mod subresources;
mod walkthrough;
mod web_vitals;
mod webhook_support;
mod webhooks;
