//! Whether "Scan now" can start a scan under the account's plan, and why not.
//!
//! The refusal itself stays where it always was, in `ops::scans::start_scan`
//! (the store's `create_scan_if_quota`, the same for the API, the dashboard
//! and the scheduler); this only reads the same numbers first, so the page
//! can disable the button and say why and until when rather than let a person
//! fill the form for a 429.

use chrono::{DateTime, Days, Utc};
use maud::{html, Markup};

use super::layout;
use crate::store::Account;

/// The id of the paragraph that says why "Scan now" is disabled (the
/// button's `aria-describedby`).
pub const REASON_ID: &str = "scan-now-reason";

/// Why no scan can be started now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanBlock {
    /// The reason, in a sentence.
    pub reason: String,
    /// When scans become possible again (the next UTC midnight), when waiting
    /// helps at all (a plan without scans never resets).
    pub resets_at: Option<DateTime<Utc>>,
}

/// The first instant of the UTC day after `now`'s.
pub fn next_utc_midnight(now: DateTime<Utc>) -> DateTime<Utc> {
    let today = now.date_naive();
    today
        .checked_add_days(Days::new(1))
        .unwrap_or(today)
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or(now)
}

/// `Some` when `account` cannot start a scan now, having started `used` scans
/// today (UTC): its plan has no scans, or today's are used up.
pub fn scan_block(account: &Account, used: u32, now: DateTime<Utc>) -> Option<ScanBlock> {
    let plan = layout::plan_name(account.plan);
    match account.plan.scans_per_day() {
        Some(0) => Some(ScanBlock {
            reason: format!(
                "The {plan} plan includes no scans: scans need the Professional or Enterprise plan."
            ),
            resets_at: None,
        }),
        Some(limit) if used >= limit => Some(ScanBlock {
            reason: format!(
                "Today's scans are used up: the {plan} plan allows {limit} scans per day (UTC) and {used} were started today."
            ),
            resets_at: Some(next_utc_midnight(now)),
        }),
        _ => None,
    }
}

/// The paragraph beside the disabled button: the reason and when it resets.
pub fn reason(block: &ScanBlock) -> Markup {
    html! {
        p.blocked id=(REASON_ID) {
            "Scan now is unavailable. " (block.reason)
            @if let Some(at) = block.resets_at {
                " Scans can start again at " (layout::when(at)) "."
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Plan;
    use chrono::TimeZone;

    fn account(plan: Plan) -> Account {
        Account {
            id: "acc_1".into(),
            name: None,
            plan,
            created_at: Utc::now(),
        }
    }

    #[test]
    fn blocks_exactly_when_the_quota_is_spent() {
        let now = Utc.with_ymd_and_hms(2026, 11, 26, 21, 40, 0).unwrap();
        let pro = account(Plan::Professional);
        assert_eq!(scan_block(&pro, 1, now), None);
        let spent = scan_block(&pro, 2, now).unwrap();
        assert_eq!(
            spent.resets_at,
            Some(Utc.with_ymd_and_hms(2026, 11, 27, 0, 0, 0).unwrap())
        );
        assert!(spent.reason.contains("allows 2 scans per day"), "{spent:?}");
        let starter = scan_block(&account(Plan::Starter), 0, now).unwrap();
        assert_eq!(starter.resets_at, None);
        assert_eq!(scan_block(&account(Plan::Enterprise), 1000, now), None);
    }
}
