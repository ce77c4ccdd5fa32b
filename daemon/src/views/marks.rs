//! The triage mark resource as the API shows and accepts it: the mark, the
//! body of `PUT /sites/{siteId}/marks/{fingerprint}` and the answer of its
//! `DELETE`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::store::SiteMark;

/// Links of a mark.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MarkLinks {
    /// This mark.
    #[serde(rename = "self")]
    pub self_: String,
    /// The site it applies to.
    pub site: String,
}

/// A triage mark as the API shows it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MarkView {
    /// The finding fingerprint marked (32 lowercase hex digits: a finding's
    /// `fingerprint` in `summary.regressions`, or what
    /// `sitescan_engine::baseline::fingerprint` computes).
    #[schema(example = "3f1c0d7a9b2e4c5d6e7f8091a2b3c4d5")]
    pub fingerprint: String,
    /// The site.
    pub site_id: String,
    /// `ignored` (a real problem the site accepts) or `false_positive` (the
    /// rule was wrong).
    #[schema(example = "false_positive")]
    pub status: String,
    /// Why, in the marker's words (may be empty).
    pub note: String,
    /// Who set it: the API key's name or the dashboard user's e-mail.
    pub by: Option<String>,
    /// When it was last set (UTC).
    pub at: DateTime<Utc>,
    /// Where to go next.
    pub links: MarkLinks,
}

impl From<SiteMark> for MarkView {
    fn from(m: SiteMark) -> Self {
        MarkView {
            links: MarkLinks {
                self_: format!("/api/v1/sites/{}/marks/{}", m.site_id, m.fingerprint),
                site: format!("/api/v1/sites/{}", m.site_id),
            },
            fingerprint: m.fingerprint,
            site_id: m.site_id,
            status: m.status.as_str().to_string(),
            note: m.note,
            by: m.by,
            at: m.at,
        }
    }
}

/// Body of `PUT /sites/{siteId}/marks/{fingerprint}`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutMark {
    /// `ignored` or `false_positive`.
    #[schema(example = "false_positive")]
    pub status: String,
    /// Why (at most 2000 characters; default empty).
    #[serde(default)]
    #[schema(example = "decorative image, alt=\"\" is right", max_length = 2000)]
    pub note: Option<String>,
}

/// Answer of `DELETE /sites/{siteId}/marks/{fingerprint}`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MarkDeleted {
    /// The fingerprint unmarked.
    pub fingerprint: String,
    /// Always true.
    pub deleted: bool,
}
