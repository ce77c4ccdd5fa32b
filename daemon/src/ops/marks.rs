//! Triage marks: a finding of a site, named by its fingerprint (the one the
//! CLI's baseline and the regressions use, `sitescan_engine::baseline::fingerprint`),
//! marked `ignored` (a real problem the site accepts) or `false_positive` (the
//! rule was wrong), with a note.
//!
//! **When marks apply.** A scan reads the site's marks when it starts: its
//! marked findings carry their `mark`, count in no score, impact count or gate,
//! and are never `new` in its regressions. A finished scan's report, scores
//! and regressions are fixed at completion, so reading it again always gives
//! the same answer; a mark set or removed later applies to the scans that
//! start after it. The dashboard's finding lists show the marks current when
//! they are viewed (a finding marked since the scan is shown marked, its
//! score unchanged until the next scan).

use chrono::Utc;
use sitescan_rules::{Mark, MarkStatus};

use crate::error::{Error, Problems, Result};
use crate::store::{MarkPut, Page, SiteMark, Store};
use crate::views::marks::PutMark;

/// Marks a site may have. A scan holds them all in memory, so they are bounded.
pub const MAX_MARKS_PER_SITE: usize = 10_000;
/// Longest note, in characters.
pub const MAX_NOTE_CHARS: usize = 2000;

/// The problem of a malformed fingerprint.
pub const BAD_FINGERPRINT: &str = "not a finding fingerprint: give the 32 lowercase hex digits of a finding's fingerprint (as in summary.regressions, or `sitescan remote marks export`)";
/// The problem of a `cursor` the mark list did not return.
pub const BAD_MARK_CURSOR: &str = "not a cursor this endpoint returned; pass meta.next_cursor of the previous page, or leave cursor out for the first page";

/// Whether `fp` is a fingerprint: 32 lowercase hex digits.
pub fn is_fingerprint(fp: &str) -> bool {
    fp.len() == 32
        && fp
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Checks `fp` (named `fingerprint`).
fn check_fingerprint(problems: &mut Problems, fp: &str) {
    if !is_fingerprint(fp) {
        problems.add("fingerprint", BAD_FINGERPRINT);
    }
}

/// The site, or `site_not_found` (another account's too).
async fn own_site(store: &dyn Store, account_id: &str, site_id: &str) -> Result<()> {
    store
        .site(account_id, site_id)
        .await?
        .map(|_| ())
        .ok_or_else(|| Error::not_found("site", site_id))
}

/// Sets the mark of `fingerprint` on a site of the account (`by`: who, for the
/// record). Returns the mark as stored and whether it is new. Every problem is
/// named at once: `fingerprint`, `status`, `note`.
pub async fn put_mark(
    store: &dyn Store,
    account_id: &str,
    site_id: &str,
    fingerprint: &str,
    body: PutMark,
    by: Option<String>,
) -> Result<(SiteMark, bool)> {
    own_site(store, account_id, site_id).await?;
    let mut problems = Problems::default();
    check_fingerprint(&mut problems, fingerprint);
    let status = MarkStatus::parse(&body.status);
    if status.is_none() {
        problems.add(
            "status",
            format!(
                "unknown status `{}`: give ignored or false_positive",
                body.status.chars().take(40).collect::<String>()
            ),
        );
    }
    let note = body.note.unwrap_or_default();
    if note.chars().count() > MAX_NOTE_CHARS {
        problems.add("note", format!("at most {MAX_NOTE_CHARS} characters"));
    }
    problems.finish()?;
    let Some(status) = status else {
        return Err(Error::Storage("status vanished after validation".into()));
    };
    let mark = SiteMark {
        account_id: account_id.to_string(),
        site_id: site_id.to_string(),
        fingerprint: fingerprint.to_string(),
        status,
        note,
        by,
        at: Utc::now(),
    };
    match store.put_mark(mark.clone(), MAX_MARKS_PER_SITE).await? {
        MarkPut::Created => Ok((mark, true)),
        MarkPut::Updated => Ok((mark, false)),
        MarkPut::Full => Err(Error::invalid(
            "fingerprint",
            format!("the site already has {MAX_MARKS_PER_SITE} marks, the most allowed; remove some first"),
        )),
    }
}

/// The mark of `fingerprint` on a site of the account (`mark_not_found` when
/// unmarked).
pub async fn mark(
    store: &dyn Store,
    account_id: &str,
    site_id: &str,
    fingerprint: &str,
) -> Result<SiteMark> {
    own_site(store, account_id, site_id).await?;
    if !is_fingerprint(fingerprint) {
        return Err(Error::invalid("fingerprint", BAD_FINGERPRINT));
    }
    store
        .mark(account_id, site_id, fingerprint)
        .await?
        .ok_or_else(|| Error::not_found("mark", fingerprint))
}

/// A page of a site's marks in fingerprint order, `limit` of them after
/// `cursor` (the fingerprint of the last mark of the previous page).
pub async fn list_marks(
    store: &dyn Store,
    account_id: &str,
    site_id: &str,
    cursor: Option<&str>,
    limit: usize,
) -> Result<Page<SiteMark>> {
    own_site(store, account_id, site_id).await?;
    if cursor.is_some_and(|c| !is_fingerprint(c)) {
        return Err(Error::invalid("cursor", BAD_MARK_CURSOR));
    }
    // At most MAX_MARKS_PER_SITE: read whole, paged here.
    let all = store.list_marks(account_id, site_id).await?;
    let start = cursor.map_or(0, |c| all.partition_point(|m| m.fingerprint.as_str() <= c));
    let limit = limit.max(1);
    let more = all.len().saturating_sub(start) > limit;
    let items: Vec<SiteMark> = all.into_iter().skip(start).take(limit).collect();
    let next_cursor = if more {
        items.last().map(|m| m.fingerprint.clone())
    } else {
        None
    };
    Ok(Page { items, next_cursor })
}

/// Removes the mark of `fingerprint` on a site of the account
/// (`mark_not_found` when unmarked).
pub async fn remove_mark(
    store: &dyn Store,
    account_id: &str,
    site_id: &str,
    fingerprint: &str,
) -> Result<()> {
    own_site(store, account_id, site_id).await?;
    if !is_fingerprint(fingerprint) {
        return Err(Error::invalid("fingerprint", BAD_FINGERPRINT));
    }
    if store.delete_mark(account_id, site_id, fingerprint).await? {
        Ok(())
    } else {
        Err(Error::not_found("mark", fingerprint))
    }
}

/// The site's marks as a scan applies them. A site deleted meanwhile has none.
pub async fn marks_for_scan(
    store: &dyn Store,
    account_id: &str,
    site_id: &str,
) -> Result<sitescan_engine::Marks> {
    Ok(store
        .list_marks(account_id, site_id)
        .await?
        .into_iter()
        .map(|m| {
            (
                m.fingerprint,
                Mark {
                    status: m.status,
                    note: m.note,
                    by: m.by,
                    at: m.at,
                },
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_32_lowercase_hex_digits() {
        assert!(is_fingerprint("0123456789abcdef0123456789abcdef"));
        assert!(!is_fingerprint("0123456789ABCDEF0123456789abcdef"));
        assert!(!is_fingerprint("0123456789abcdef0123456789abcde"));
        assert!(!is_fingerprint("0123456789abcdef0123456789abcdeg"));
        assert!(!is_fingerprint(""));
    }
}
