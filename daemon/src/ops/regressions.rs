//! Regressions: each completed scan compared with the previous completed scan
//! of the same site and the same configuration, by finding fingerprint (the
//! CLI baseline's [`fingerprint`], the one definition of a finding's identity).
//!
//! - **Same configuration** ([`same_config`]): the same rule selection (the
//!   applied `rules` list, compared as a set) and the same render flag. Page
//!   limits, include/exclude patterns and link scope may differ: what they
//!   change shows as new or fixed findings.
//! - **Previous** ([`previous_scan`]): the newest scan created before this one
//!   that is completed and has the same configuration, looked for among at most
//!   [`MAX_LOOKBACK`] earlier scans of the site.
//! - **Bounded memory**: the previous report is copied chunk by chunk from the
//!   store into a nameless temporary file and read back with a streaming JSON
//!   reader, one finding at a time ([`for_each_stored_finding`]); only the two
//!   fingerprint sets and the first [`MAX_LISTED`] items of each list are held.
//! - **Marks** (`crate::ops::marks`): a finding the scan marked (it carries
//!   `mark`) is never new, and a finding marked in the previous scan that went
//!   away is not fixed: marked findings count for nothing either way.
//! - **`scan.regressed`** ([`announce`]): after the scan's completion is saved,
//!   one event per webhook that wants it when the count of new *failed*
//!   findings at or above the site's `regression_threshold` is not zero. It
//!   goes through the same outbox and signed delivery task as the other events.

use std::collections::HashSet;
use std::fmt;
use std::io::{Seek, SeekFrom, Write};

use chrono::Utc;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use sitescan_engine::baseline::fingerprint;
use sitescan_engine::{ReportSource, SpooledReport, SCHEMA_VERSION};
use sitescan_rules::{Finding, Impact, Outcome};
use tracing::warn;

use crate::error::{Error, Result};
use crate::store::{
    new_id, AppliedConfig, ChangedFinding, Delivery, DeliveryStatus, FindingChanges, Regressions,
    Scan, ScanStatus, Store,
};
use crate::webhooks::delivery_id;

/// Visits the findings of the scan just finished: calls its argument with each.
pub type CurrentFindings<'a> = dyn Fn(&mut dyn FnMut(&Finding) -> sitescan_engine::Result<()>) -> sitescan_engine::Result<()>
    + 'a;

/// Items listed at most in `new` and in `fixed` (the counts stay exact).
pub const MAX_LISTED: usize = 100;
/// Earlier scans of the site looked through at most for the previous one.
pub const MAX_LOOKBACK: usize = 500;
/// The event sent when new findings at or above the site's threshold appear.
pub const REGRESSED_EVENT: &str = "scan.regressed";

/// True when scans with these configurations are comparable: the same rule
/// selection (as a set) and the same render flag.
pub fn same_config(a: &AppliedConfig, b: &AppliedConfig) -> bool {
    if a.render != b.render {
        return false;
    }
    let rules = |c: &AppliedConfig| c.rules.iter().cloned().collect::<HashSet<String>>();
    rules(a) == rules(b)
}

/// The previous completed scan of `scan`'s site with the same configuration
/// (created before it), if any among the [`MAX_LOOKBACK`] scans before it.
pub async fn previous_scan(store: &dyn Store, scan: &Scan) -> Result<Option<Scan>> {
    let mut cursor = scan.id.clone();
    let mut seen = 0;
    while seen < MAX_LOOKBACK {
        let page = store
            .list_scans(&scan.account_id, &scan.site_id, Some(&cursor), 50)
            .await?;
        for s in page.items {
            seen += 1;
            if s.status == ScanStatus::Completed && same_config(&s.config, &scan.config) {
                return Ok(Some(s));
            }
            cursor = s.id;
        }
        if page.next_cursor.is_none() {
            break;
        }
    }
    Ok(None)
}

/// Copies the stored JSON report of `scan_id` into a nameless temporary file,
/// one chunk in memory at a time; `None` when there is none.
pub async fn stored_report_file(store: &dyn Store, scan_id: &str) -> Result<Option<std::fs::File>> {
    let mut file: Option<std::fs::File> = None;
    let mut index = 0;
    while let Some(chunk) = store.report_chunk(scan_id, index).await? {
        let f = match &mut file {
            Some(f) => f,
            None => file.insert(tempfile::tempfile()?),
        };
        f.write_all(&chunk)?;
        index += 1;
    }
    if let Some(f) = &mut file {
        f.seek(SeekFrom::Start(0))?;
    }
    Ok(file)
}

/// Calls `visit` with each finding of a JSON report read from `reader`, one at
/// a time (the report is never whole in memory). Refuses a report of another
/// schema version.
pub fn for_each_stored_finding(
    reader: impl std::io::Read,
    visit: &mut dyn FnMut(Finding),
) -> Result<()> {
    visit_stored_report(reader, None, visit)
}

/// What [`for_each_stored_item`] reads of a report's page entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct StoredPage {
    /// The URL requested.
    #[serde(default)]
    pub url: String,
    /// The URL after redirects (the one findings name).
    #[serde(default)]
    pub final_url: String,
    /// Render mode: the id of the page's thumbnail.
    #[serde(default)]
    pub thumbnail: Option<String>,
}

/// [`for_each_stored_finding`] that also calls `page` with each page entry
/// (its URLs and thumbnail), one at a time, in the one pass.
pub fn for_each_stored_item(
    reader: impl std::io::Read,
    page: &mut dyn FnMut(StoredPage),
    visit: &mut dyn FnMut(Finding),
) -> Result<()> {
    visit_stored_report(reader, Some(page), visit)
}

fn visit_stored_report(
    reader: impl std::io::Read,
    page: Option<&mut dyn FnMut(StoredPage)>,
    visit: &mut dyn FnMut(Finding),
) -> Result<()> {
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(reader));
    TopLevel(visit, page)
        .deserialize(&mut de)
        .map_err(|e| Error::Corrupt(format!("stored report is unusable: {e}")))?;
    de.end()
        .map_err(|e| Error::Corrupt(format!("stored report is unusable: {e}")))
}

/// The report object: `findings` (and `pages`, when asked) visited,
/// `schema_version` checked, the rest skipped.
struct TopLevel<'a, 'p>(
    &'a mut dyn FnMut(Finding),
    Option<&'p mut dyn FnMut(StoredPage)>,
);

impl<'de> DeserializeSeed<'de> for TopLevel<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopLevel<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sitescan JSON report")
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> std::result::Result<(), A::Error> {
        let mut version = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "findings" => map.next_value_seed(Findings(&mut *self.0))?,
                "pages" if self.1.is_some() => {
                    if let Some(page) = self.1.as_deref_mut() {
                        map.next_value_seed(Pages(page))?;
                    }
                }
                "schema_version" => version = Some(map.next_value::<u64>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match version {
            Some(v) if v == u64::from(SCHEMA_VERSION) => Ok(()),
            Some(v) => Err(serde::de::Error::custom(format!(
                "schema_version {v} is not the supported {SCHEMA_VERSION}"
            ))),
            None => Err(serde::de::Error::custom("no schema_version field")),
        }
    }
}

/// The `findings` array, element by element.
struct Findings<'a>(&'a mut dyn FnMut(Finding));

impl<'de> DeserializeSeed<'de> for Findings<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Findings<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of findings")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        while let Some(finding) = seq.next_element::<Finding>()? {
            (self.0)(finding);
        }
        Ok(())
    }
}

/// The `pages` array, entry by entry.
struct Pages<'a>(&'a mut dyn FnMut(StoredPage));

impl<'de> DeserializeSeed<'de> for Pages<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Pages<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of pages")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        while let Some(page) = seq.next_element::<StoredPage>()? {
            (self.0)(page);
        }
        Ok(())
    }
}

fn outcome_str(o: Outcome) -> &'static str {
    match o {
        Outcome::Failed => "failed",
        Outcome::CantTell => "cant-tell",
        Outcome::Passed => "passed",
    }
}

/// Counts `f` into `changes` (and lists it while there is room).
fn note(changes: &mut FindingChanges, fp: String, f: &Finding) {
    changes.count += 1;
    if f.outcome == Outcome::Failed {
        changes.failed_by_impact.add(f.impact);
    }
    if changes.items.len() < MAX_LISTED {
        changes.items.push(ChangedFinding {
            fingerprint: fp,
            rule: f.rule_id.clone(),
            impact: f.impact.as_str().to_string(),
            outcome: outcome_str(f.outcome).to_string(),
            page_url: f.page_url.clone(),
            selector: f.selector.clone(),
            message: f.message.clone(),
        });
    }
}

/// Compares the findings of `current` with those of the previous scan's
/// stored report (`previous`: its id and the report read back from the
/// store). Blocking (reads files): run it off the async threads. A
/// fingerprint counts once, however many findings share it.
pub fn compare(
    current: &dyn ReportSource,
    previous: Option<(String, std::fs::File)>,
) -> Result<Regressions> {
    compare_findings(&|visit| current.for_each_finding(visit), previous)
}

/// What [`compare`] does, the current findings given by `current` (it calls
/// its argument with each of them, in report order, and may be called twice).
pub fn compare_findings(
    current: &CurrentFindings<'_>,
    previous: Option<(String, std::fs::File)>,
) -> Result<Regressions> {
    let Some((previous_id, file)) = previous else {
        return Ok(Regressions::default());
    };
    let mut now: HashSet<String> = HashSet::new();
    current(&mut |f| {
        now.insert(fingerprint(f));
        Ok(())
    })
    .map_err(|e| Error::Storage(format!("the scan's findings could not be read: {e}")))?;
    let mut out = Regressions {
        compared_with: Some(previous_id),
        ..Regressions::default()
    };
    let mut before: HashSet<String> = HashSet::new();
    for_each_stored_finding(file, &mut |f| {
        let fp = fingerprint(&f);
        // A finding marked in the previous scan counted for nothing there:
        // its going away fixes nothing.
        if !now.contains(&fp) && !before.contains(&fp) && f.mark.is_none() {
            note(&mut out.fixed, fp.clone(), &f);
        }
        before.insert(fp);
    })?;
    drop(now);
    current(&mut |f| {
        // A marked finding (ignored, false positive) is never new.
        if f.mark.is_some() {
            return Ok(());
        }
        let fp = fingerprint(f);
        // Inserting marks the fingerprint seen: its duplicates count once.
        if before.insert(fp.clone()) {
            note(&mut out.new, fp, f);
        }
        Ok(())
    })
    .map_err(|e| Error::Storage(format!("the scan's findings could not be read: {e}")))?;
    Ok(out)
}

/// The comparison of a finished scan, for its summary: `None` (and a warning)
/// when it could not be made; the scan completes all the same.
pub async fn compare_finished(
    store: &dyn Store,
    scan: &Scan,
    current: std::sync::Arc<SpooledReport>,
) -> Option<Regressions> {
    let made = async {
        let previous = match previous_scan(store, scan).await? {
            Some(p) => stored_report_file(store, &p.id)
                .await?
                .map(|file| (p.id.clone(), file)),
            None => None,
        };
        tokio::task::spawn_blocking(move || compare(&*current, previous))
            .await
            .map_err(|e| Error::Storage(format!("comparison task failed: {e}")))?
    };
    match made.await {
        Ok(r) => Some(r),
        Err(e) => {
            warn!(error = %e, "could not compare the scan with the previous one");
            None
        }
    }
}

/// New failed findings at or above `threshold` in `changes`.
pub fn at_or_above(changes: &FindingChanges, threshold: Impact) -> u64 {
    let c = &changes.failed_by_impact;
    [
        (Impact::Minor, c.minor),
        (Impact::Moderate, c.moderate),
        (Impact::Serious, c.serious),
        (Impact::Critical, c.critical),
    ]
    .iter()
    .filter(|(i, _)| *i >= threshold)
    .map(|(_, n)| n)
    .sum()
}

/// The `data` of a `scan.regressed` event.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RegressedData {
    /// The scan that regressed.
    pub scan_id: String,
    /// Its site.
    pub site_id: String,
    /// The previous scan it was compared with.
    pub compared_with: Option<String>,
    /// The site's threshold when the event was sent.
    pub threshold: String,
    /// New failed findings at or above the threshold.
    pub new_at_threshold: u64,
    /// All new findings (the count) and the first of them.
    pub new: FindingChanges,
    /// Fixed findings, counted.
    pub fixed_count: u64,
}

/// The JSON body of a `scan.regressed` event.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RegressedEvent {
    /// `evt_...`; the same on every retry.
    pub id: String,
    /// `scan.regressed`.
    #[serde(rename = "type")]
    pub type_: String,
    /// When the event happened.
    pub created: chrono::DateTime<Utc>,
    /// What regressed.
    pub data: RegressedData,
}

/// Queues `scan.regressed` for the webhooks that want it when `scan` (just
/// completed) has new failed findings at or above its site's threshold.
/// Returns the deliveries queued. A site deleted meanwhile uses the default
/// threshold.
pub async fn announce(store: &dyn Store, scan: &Scan) -> Result<usize> {
    let Some(regressions) = scan.summary.as_ref().and_then(|s| s.regressions.as_ref()) else {
        return Ok(0);
    };
    if regressions.compared_with.is_none() {
        return Ok(0);
    }
    let threshold = store
        .site(&scan.account_id, &scan.site_id)
        .await?
        .map(|s| s.regression_threshold)
        .unwrap_or_default();
    let over = at_or_above(&regressions.new, threshold.impact());
    if over == 0 {
        return Ok(0);
    }
    let hooks = store.list_webhooks(&scan.account_id).await?;
    let wanting: Vec<_> = hooks
        .iter()
        .filter(|w| w.wants(REGRESSED_EVENT, &scan.site_id))
        .collect();
    if wanting.is_empty() {
        return Ok(0);
    }
    let at = Utc::now();
    let event_id = new_id("evt")?;
    let body = serde_json::to_string(&RegressedEvent {
        id: event_id.clone(),
        type_: REGRESSED_EVENT.to_string(),
        created: at,
        data: RegressedData {
            scan_id: scan.id.clone(),
            site_id: scan.site_id.clone(),
            compared_with: regressions.compared_with.clone(),
            threshold: threshold.impact().as_str().to_string(),
            new_at_threshold: over,
            new: regressions.new.clone(),
            fixed_count: regressions.fixed.count,
        },
    })
    .map_err(|e| Error::Corrupt(e.to_string()))?;
    let deliveries: Vec<Delivery> = wanting
        .into_iter()
        .enumerate()
        .map(|(i, w)| Delivery {
            id: delivery_id(&event_id, i + 1),
            webhook_id: w.id.clone(),
            account_id: w.account_id.clone(),
            event_id: event_id.clone(),
            event_type: REGRESSED_EVENT.to_string(),
            payload: body.clone(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: Some(at),
            created_at: at,
            attempt_log: Vec::new(),
        })
        .collect();
    let n = deliveries.len();
    store.save_deliveries(deliveries).await?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_report_is_read_finding_by_finding() {
        let json = format!(
            r#"{{"schema_version":{SCHEMA_VERSION},"site":{{"x":[1,2]}},"findings":[
            {{"rule_id":"image-alt","category":"accessibility","outcome":"failed","impact":"critical",
              "page_url":"http://a/","selector":"img","snippet":"<img>","message":"m","wcag":[]}}
            ],"tail":null}}"#
        );
        let mut rules = Vec::new();
        for_each_stored_finding(json.as_bytes(), &mut |f| rules.push(f.rule_id)).unwrap();
        assert_eq!(rules, vec!["image-alt".to_string()]);
        let old = json.replace(&format!(":{SCHEMA_VERSION},"), ":0,");
        assert!(for_each_stored_finding(old.as_bytes(), &mut |_| {}).is_err());
    }

    #[test]
    fn pages_and_findings_are_read_in_one_pass_in_either_order() {
        let page = r#"{"url":"http://a/","final_url":"http://a/home","status":200,"depth":0,
            "ttfb_ms":1,"total_ms":2,"bytes":3,"findings":1,"thumbnail":"thumb-2","vitals":{"x":[1]}}"#;
        let finding = r#"{"rule_id":"image-alt","category":"accessibility","outcome":"failed","impact":"critical",
            "page_url":"http://a/home","selector":"img","snippet":"<img>","message":"m","wcag":[]}"#;
        for json in [
            format!(
                r#"{{"schema_version":{SCHEMA_VERSION},"pages":[{page},{{"url":"http://a/b"}}],"findings":[{finding}]}}"#
            ),
            format!(
                r#"{{"findings":[{finding}],"pages":[{page}],"schema_version":{SCHEMA_VERSION}}}"#
            ),
        ] {
            let (mut pages, mut rules) = (Vec::new(), Vec::new());
            for_each_stored_item(json.as_bytes(), &mut |p| pages.push(p), &mut |f| {
                rules.push(f.rule_id)
            })
            .unwrap();
            assert_eq!(rules, ["image-alt"]);
            assert_eq!(
                pages[0],
                StoredPage {
                    url: "http://a/".into(),
                    final_url: "http://a/home".into(),
                    thumbnail: Some("thumb-2".into()),
                }
            );
            // Without the page visitor the pages are skipped unread.
            let mut n = 0;
            for_each_stored_finding(json.as_bytes(), &mut |_| n += 1).unwrap();
            assert_eq!(n, 1);
        }
    }

    fn finding(rule: &str, impact: &str, selector: &str) -> Finding {
        serde_json::from_value(serde_json::json!({
            "rule_id": rule, "category": "accessibility", "outcome": "failed",
            "impact": impact, "page_url": "http://a/", "selector": selector,
            "snippet": format!("<img id={selector}>"), "message": "m", "wcag": []
        }))
        .unwrap()
    }

    fn stored(findings: &[Finding]) -> std::fs::File {
        let json = serde_json::json!({"schema_version": SCHEMA_VERSION, "findings": findings});
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(json.to_string().as_bytes()).unwrap();
        f.seek(SeekFrom::Start(0)).unwrap();
        f
    }

    #[test]
    fn lists_are_capped_and_counts_exact() {
        // Before: 3 shared + 40 gone. Now: the 3 shared, 150 new (one of
        // them twice: a fingerprint counts once).
        let shared: Vec<Finding> = (0..3)
            .map(|i| finding("image-alt", "critical", &format!("#s{i}")))
            .collect();
        let mut before = shared.clone();
        before.extend((0..40).map(|i| finding("link-name", "serious", &format!("#g{i}"))));
        let mut now = shared;
        now.extend((0..150).map(|i| finding("image-alt", "minor", &format!("#n{i}"))));
        now.push(finding("image-alt", "minor", "#n0"));
        let current = |visit: &mut dyn FnMut(&Finding) -> sitescan_engine::Result<()>| {
            now.iter().try_for_each(visit)
        };
        let r = compare_findings(&current, Some(("scan_a".into(), stored(&before)))).unwrap();
        assert_eq!(r.compared_with.as_deref(), Some("scan_a"));
        assert_eq!(r.new.count, 150);
        assert_eq!(r.new.items.len(), MAX_LISTED);
        assert_eq!(r.new.failed_by_impact.minor, 150);
        assert_eq!(r.new.items[0].selector, "#n0");
        assert_eq!(r.new.items[99].selector, "#n99");
        assert_eq!(r.fixed.count, 40);
        assert_eq!(r.fixed.items.len(), 40);
        assert_eq!(r.fixed.failed_by_impact.serious, 40);
        assert_eq!(r.fixed.items[0].rule, "link-name");
        // No previous scan: nothing compared.
        let r = compare_findings(&current, None).unwrap();
        assert_eq!(r, Regressions::default());
    }

    #[test]
    fn thresholds_count_failed_findings_at_or_above() {
        let mut c = FindingChanges::default();
        c.failed_by_impact.add(Impact::Minor);
        c.failed_by_impact.add(Impact::Serious);
        assert_eq!(at_or_above(&c, Impact::Minor), 2);
        assert_eq!(at_or_above(&c, Impact::Serious), 1);
        assert_eq!(at_or_above(&c, Impact::Critical), 0);
    }
}
