//! The canonical JSON report, pretty-printed (DESIGN.md, "The JSON report"; its
//! JSON Schema is `schema/report.schema.json` at the repository root).

use crate::error::{Error, Result};
use crate::report::Report;

pub(super) fn render(report: &Report) -> Result<Vec<u8>> {
    let mut out = serde_json::to_vec_pretty(report).map_err(|e| Error::Render {
        format: "json",
        reason: e.to_string(),
    })?;
    out.push(b'\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;

    #[test]
    fn round_trips_and_keeps_the_contract_fields() {
        let report = sample::report();
        let bytes = render(&report).unwrap();
        let back: Report = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back.findings, report.findings);
        assert_eq!(back.summary, report.summary);
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["schema_version"], 1);
        assert_eq!(v["findings"][0]["rule_id"], "image-alt");
        assert_eq!(v["findings"][6]["outcome"], "cant-tell");
        assert_eq!(v["summary"]["accessibility"]["critical"], 2);
        // Without a baseline, the report has no baseline fields at all.
        assert!(v.get("fixed").is_none() && v.get("baseline").is_none());
        assert!(v["findings"][0].get("baseline").is_none());
        assert!(v["summary"]["seo"].get("new").is_none());
    }
}
