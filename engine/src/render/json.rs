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

    fn report_validator() -> jsonschema::Validator {
        let schema: serde_json::Value = serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../schema/report.schema.json"
        )))
        .unwrap();
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap()
    }

    fn schema_errors(report: &Report) -> Vec<String> {
        let v: serde_json::Value = serde_json::from_slice(&render(report).unwrap()).unwrap();
        report_validator()
            .iter_errors(&v)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect()
    }

    #[test]
    fn reports_validate_against_the_published_schema() {
        let mut compared = sample::report();
        crate::baseline::apply_baseline(&mut compared, &sample::empty_report());
        let analyzed = sample::analyzed_report();
        assert!(
            !analyzed.findings.is_empty(),
            "the real rules should find the missing title"
        );
        for report in [sample::report(), sample::empty_report(), compared, analyzed] {
            let errors = schema_errors(&report);
            assert!(errors.is_empty(), "schema errors:\n{}", errors.join("\n"));
        }
    }

    #[test]
    fn the_schema_rejects_what_breaks_the_contract() {
        let validator = report_validator();
        let good: serde_json::Value =
            serde_json::from_slice(&render(&sample::report()).unwrap()).unwrap();
        let broken = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v = good.clone();
            edit(&mut v);
            !validator.is_valid(&v)
        };
        assert!(broken(&|v| {
            v["findings"][0].as_object_mut().unwrap().remove("selector");
        }));
        assert!(broken(&|v| v["findings"][0]["impact"] = "blocker".into()));
        assert!(broken(&|v| v["findings"][0]["outcome"] = "passed".into()));
        assert!(broken(
            &|v| v["summary"]["accessibility"]["score"] = 101.into()
        ));
        assert!(broken(
            &|v| v["summary"]["speed"] = v["summary"]["seo"].clone()
        ));
        assert!(broken(&|v| v["schema_version"] = 2.into()));
        assert!(broken(&|v| v["started_at"] = "yesterday".into()));
        assert!(broken(&|v| v["findings"][0]["baseline"] = "absent".into()));
    }
}
