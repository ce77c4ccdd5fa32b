//! The page budget's flags, shared by `scan` (the budget of its scan) and by
//! `serve` and `worker` (the most a scan of the service may ask for).

use std::time::Duration;

use clap::Args as ClapArgs;
use sitescan_engine::config::{
    DEFAULT_MAX_CSS_RULES, DEFAULT_MAX_LINKS, DEFAULT_MAX_SELECTORS, DEFAULT_MAX_STYLESHEETS,
};
use sitescan_engine::PageBudget;

/// The page budget as flags. For `scan` it is the scan's budget; for `serve`
/// and `worker` it is the ceiling: a scan's `config.budget` may lower each
/// limit, never raise it, and a scan that says nothing gets the defaults held
/// under these.
#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct BudgetArgs {
    /// Wall time one page's analysis may take, in seconds (fractions allowed;
    /// 0 stops at once). A page over it gets an analysis-incomplete finding
    /// and the scan goes on.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = parse_secs, env = "SITESCAN_PAGE_TIME")]
    page_time: Duration,

    /// Nodes kept per page; the rest of a larger page is not analyzed.
    #[arg(long, value_name = "N", default_value_t = PageBudget::DEFAULT.max_nodes, env = "SITESCAN_MAX_PAGE_NODES")]
    max_page_nodes: usize,

    /// Nesting depth kept per page; deeper elements are flattened as browsers do.
    #[arg(long, value_name = "N", default_value_t = PageBudget::DEFAULT.max_depth, env = "SITESCAN_MAX_PAGE_DEPTH")]
    max_page_depth: usize,

    /// Links one page contributes to the crawl and the link checks.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LINKS, env = "SITESCAN_MAX_PAGE_LINKS")]
    max_page_links: usize,

    /// Style rules parsed per page, over all its stylesheets.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CSS_RULES, env = "SITESCAN_MAX_CSS_RULES")]
    max_css_rules: usize,

    /// Selectors compiled per page, over all its stylesheets.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SELECTORS, env = "SITESCAN_MAX_SELECTORS")]
    max_selectors: usize,

    /// Stylesheets (`<style>` and linked) applied per page.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STYLESHEETS, env = "SITESCAN_MAX_STYLESHEETS")]
    max_stylesheets: usize,
}

/// Longest `--page-time`, seconds: a day (a longer budget is no budget).
const MAX_PAGE_TIME_SECS: f64 = 86_400.0;

fn parse_secs(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds (e.g. 5 or 0.5)"))?;
    if !(0.0..=MAX_PAGE_TIME_SECS).contains(&secs) {
        return Err(format!("give 0 to {MAX_PAGE_TIME_SECS} seconds"));
    }
    Ok(Duration::from_secs_f64(secs))
}

impl BudgetArgs {
    /// The budget the flags give.
    pub(crate) fn budget(&self) -> PageBudget {
        PageBudget {
            time: self.page_time,
            max_nodes: self.max_page_nodes,
            max_depth: self.max_page_depth,
            max_links: self.max_page_links,
            max_css_rules: self.max_css_rules,
            max_selectors: self.max_selectors,
            max_stylesheets: self.max_stylesheets,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_take_fractions_and_refuse_the_rest() {
        assert_eq!(parse_secs("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_secs("0"), Ok(Duration::ZERO));
        assert!(parse_secs("-1").unwrap_err().contains("give 0 to"));
        assert!(parse_secs("five").unwrap_err().contains("not a number"));
    }
}
