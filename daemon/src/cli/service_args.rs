//! What the service commands share (`serve`, `worker`, `admin`): the embedded
//! store's default directory, the webhook delivery options and the shutdown
//! signal. Apart so that none of those commands imports another for them.

use std::time::Duration;

use clap::Args as ClapArgs;

use super::CliError;

/// Default data directory of the embedded store.
pub(crate) const DEFAULT_DATA_DIR: &str = "sitescan-data";

/// Webhook delivery options shared by `serve` and `worker` (the processes that
/// run a delivery task; `serve --redis` leaves deliveries to the workers).
#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct WebhookArgs {
    /// Seconds to wait before each retry of a failed webhook delivery,
    /// comma-separated (attempts at most = values + 1; each wait varies by ±20%).
    #[arg(
        long,
        env = "SITESCAN_WEBHOOK_RETRY_DELAYS",
        default_value = "60,300,1800,7200,18000,36000,36000"
    )]
    pub(crate) webhook_retry_delays: String,
    /// Seconds one webhook delivery attempt may take.
    #[arg(long, env = "SITESCAN_WEBHOOK_TIMEOUT", default_value_t = 10.0)]
    pub(crate) webhook_timeout: f64,
}

impl WebhookArgs {
    /// The delivery settings these options give, or a usage error.
    pub(crate) fn settings(
        &self,
        allow_private: bool,
    ) -> Result<crate::webhooks::DeliverySettings, CliError> {
        let mut settings = crate::webhooks::DeliverySettings::new(allow_private);
        settings.retry_delays = parse_delays(&self.webhook_retry_delays)
            .map_err(|e| CliError::usage(anyhow::anyhow!("--webhook-retry-delays: {e}")))?;
        if !(self.webhook_timeout.is_finite() && (0.1..=300.0).contains(&self.webhook_timeout)) {
            return Err(CliError::usage(anyhow::anyhow!(
                "--webhook-timeout must be 0.1 to 300 seconds"
            )));
        }
        settings.timeout = Duration::from_secs_f64(self.webhook_timeout);
        Ok(settings)
    }
}

/// Parses `60,300,1800`: 1 to 20 waits of 0.01 s to 7 days each.
fn parse_delays(raw: &str) -> Result<Vec<Duration>, String> {
    let mut out = Vec::new();
    for part in raw.split(',') {
        let part = part.trim();
        let secs: f64 = part
            .parse()
            .map_err(|_| format!("`{part}` is not a number of seconds"))?;
        if !(secs.is_finite() && (0.01..=7.0 * 86_400.0).contains(&secs)) {
            return Err(format!("`{part}` must be 0.01 to 604800 seconds"));
        }
        out.push(Duration::from_secs_f64(secs));
    }
    if out.len() > 20 {
        return Err("at most 20 retries".to_string());
    }
    Ok(out)
}

/// A future resolving on SIGINT or SIGTERM. The handlers are installed here,
/// before the address is announced, so a signal sent right after is not lost.
pub(crate) fn shutdown_signal(
) -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {},
                _ = int.recv() => {},
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webhook_retry_delays_parse_and_the_default_is_the_documented_one() {
        assert_eq!(
            parse_delays("0.2, 0.8").unwrap(),
            [Duration::from_millis(200), Duration::from_millis(800)]
        );
        assert!(parse_delays("").is_err());
        assert!(parse_delays("1,x").unwrap_err().contains("`x`"));
        assert!(parse_delays("-1").is_err());
        assert!(parse_delays("1e9").is_err());
        assert!(parse_delays(&vec!["1"; 21].join(",")).is_err());
        let args = WebhookArgs {
            webhook_retry_delays: "60,300,1800,7200,18000,36000,36000".into(),
            webhook_timeout: 10.0,
        };
        let s = args.settings(false).unwrap();
        let d = crate::webhooks::DeliverySettings::new(false);
        assert_eq!((s.retry_delays, s.timeout), (d.retry_delays, d.timeout));
        let bad = WebhookArgs {
            webhook_timeout: 0.0,
            ..args
        };
        assert!(bad.settings(false).is_err());
    }
}
