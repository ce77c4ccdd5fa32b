//! The canonical JSON report, pretty-printed (DESIGN.md, "The JSON report"; its
//! JSON Schema is `schema/report.schema.json` at the repository root).
//!
//! Written field by field as `Report`'s derived `Serialize` writes it (same
//! fields, same order, same skipped empties: a test holds the two byte for byte),
//! except that the findings come from [`ReportSource::for_each_finding`], one at
//! a time, so a spooled report is written without loading its findings.

use std::cell::RefCell;

use serde::ser::{Error as _, SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use crate::error::{Error, Result};
use crate::report::{Report, ReportSource};

pub(super) fn write(source: &dyn ReportSource, out: &mut dyn std::io::Write) -> Result<()> {
    write_with(source, out, true)
}

/// [`write`] without the indentation (what the service stores).
pub(super) fn write_compact(source: &dyn ReportSource, out: &mut dyn std::io::Write) -> Result<()> {
    write_with(source, out, false)
}

fn write_with(source: &dyn ReportSource, out: &mut dyn std::io::Write, pretty: bool) -> Result<()> {
    let streamed = Streamed {
        source,
        failed: RefCell::new(None),
    };
    let serialized = if pretty {
        streamed.serialize(&mut serde_json::Serializer::pretty(&mut *out))
    } else {
        streamed.serialize(&mut serde_json::Serializer::new(&mut *out))
    };
    if let Err(e) = serialized {
        // A finding that could not be read back is that error, not a JSON one.
        return Err(streamed.failed.into_inner().unwrap_or(Error::Render {
            format: "json",
            reason: e.to_string(),
        }));
    }
    out.write_all(b"\n").map_err(|e| Error::Render {
        format: "json",
        reason: e.to_string(),
    })
}

/// The report with its findings streamed from the source.
struct Streamed<'s> {
    source: &'s dyn ReportSource,
    /// The source's error, when reading the findings failed.
    failed: RefCell<Option<Error>>,
}

/// The findings array.
struct Findings<'a, 's>(&'a Streamed<'s>);

impl Serialize for Findings<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let source = self.0.source;
        let len = usize::try_from(source.finding_count()).ok();
        let mut seq = serializer.serialize_seq(len)?;
        let mut ser_error = None;
        let read = source.for_each_finding(&mut |f| {
            seq.serialize_element(f).map_err(|e| {
                let reason = e.to_string();
                ser_error = Some(e);
                Error::Render {
                    format: "json",
                    reason,
                }
            })
        });
        if let Some(e) = ser_error {
            return Err(e);
        }
        if let Err(e) = read {
            let reason = e.to_string();
            *self.0.failed.borrow_mut() = Some(e);
            return Err(S::Error::custom(reason));
        }
        seq.end()
    }
}

impl Serialize for Streamed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Destructured without `..`: a new field of `Report` does not compile
        // until it is written here too.
        let Report {
            schema_version,
            scan_id,
            site,
            started_at,
            finished_at,
            config,
            stats,
            summary,
            pages,
            findings: _,
            rules,
            notes,
            fixed,
            baseline,
            // Beside the JSON, never in it.
            screenshots: _,
        } = self.source.head();
        let mut st = serializer.serialize_struct("Report", 14)?;
        st.serialize_field("schema_version", schema_version)?;
        match scan_id {
            Some(id) => st.serialize_field("scan_id", id)?,
            None => st.skip_field("scan_id")?,
        }
        st.serialize_field("site", site)?;
        st.serialize_field("started_at", started_at)?;
        st.serialize_field("finished_at", finished_at)?;
        st.serialize_field("config", config)?;
        st.serialize_field("stats", stats)?;
        st.serialize_field("summary", summary)?;
        st.serialize_field("pages", pages)?;
        st.serialize_field("findings", &Findings(self))?;
        st.serialize_field("rules", rules)?;
        st.serialize_field("notes", notes)?;
        match fixed {
            Some(fixed) => st.serialize_field("fixed", fixed)?,
            None => st.skip_field("fixed")?,
        }
        match baseline {
            Some(b) => st.serialize_field("baseline", b)?,
            None => st.skip_field("baseline")?,
        }
        st.end()
    }
}

#[cfg(test)]
fn render(report: &Report) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write(report, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;

    #[test]
    fn streamed_json_is_byte_for_byte_the_derived_serialization() {
        let mut compared = sample::report();
        crate::baseline::apply_baseline(&mut compared, &sample::empty_report());
        compared.scan_id = Some("scan_1".into());
        for report in [sample::report(), sample::empty_report(), compared] {
            let mut derived = serde_json::to_vec_pretty(&report).unwrap();
            derived.push(b'\n');
            assert_eq!(
                String::from_utf8(render(&report).unwrap()).unwrap(),
                String::from_utf8(derived).unwrap()
            );
        }
    }

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
