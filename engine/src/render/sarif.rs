//! SARIF 2.1.0 (OASIS), the format code-scanning dashboards read (GitHub code
//! scanning, Azure DevOps).
//!
//! One run; the driver lists one `reportingDescriptor` per rule the report knows of
//! (help text and URL, WCAG tags); one `result` per finding with the page URL as
//! the artifact location, the CSS selector as a logical location, the snippet as
//! the region's snippet and the finding's [`crate::baseline::fingerprint`] as a
//! partial fingerprint. Level comes from impact: critical and serious are
//! `error`, moderate `warning`, minor `note`; cant-tell findings are
//! `kind: "review"` (which SARIF requires to have level `none`). Security rules
//! carry GitHub's `security-severity` property.
//!
//! The output is validated against the official schema in
//! `schema/sarif-2.1.0.schema.json` by the tests.

use serde_json::{json, Map, Value};
use sitescan_rules::{BaselineState, Category, Impact, Outcome};

use super::{known_rules, wcag, RuleInfo};
use crate::baseline::fingerprint;
use crate::error::{Error, Result};
use crate::report::Report;

/// The `$schema` URI written into the log.
pub(crate) const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

pub(super) fn render(report: &Report) -> Result<Vec<u8>> {
    let rules = known_rules(report);
    let descriptors: Vec<Value> = rules.iter().map(descriptor).collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let index = rules.iter().position(|r| r.id == f.rule_id);
            let (kind, level) = match f.outcome {
                Outcome::CantTell => ("review", "none"),
                _ => ("fail", level(f.impact)),
            };
            let mut text = f.message.clone();
            if f.message.trim().is_empty() {
                text = format!("{} failed", f.rule_id);
            }
            let first_place = location(&f.page_url, &f.selector, &f.snippet);
            let mut properties = json!({
                "category": f.category.as_str(),
                "impact": f.impact.as_str(),
                "outcome": super::outcome_name(f.outcome),
            });
            if !f.wcag.is_empty() {
                properties["wcag"] = json!(f.wcag);
            }
            if let Some(data) = &f.data {
                properties["data"] = data.clone();
            }
            if !f.scope.is_page() {
                properties["scope"] = json!(f.scope);
            }
            if let Some(resource) = &f.resource {
                properties["resource"] = json!(resource);
            }
            if !f.occurrences.is_empty() {
                properties["occurrences"] = json!(f.occurrence_count());
            }
            let mut result = json!({
                "ruleId": f.rule_id,
                "kind": kind,
                "level": level,
                "message": { "text": text },
                "locations": [first_place],
                "partialFingerprints": { "sitescanFingerprint/v1": fingerprint(f) },
                "properties": properties,
            });
            if let Some(i) = index {
                result["ruleIndex"] = json!(i);
            }
            // One problem in many places (a host's missing header, a
            // resource many pages load): the first place is the result's
            // location, the others are related locations.
            let related: Vec<Value> = f
                .occurrences
                .iter()
                .skip(1)
                .enumerate()
                .map(|(n, o)| {
                    let mut l = location(&o.page_url, &o.selector, &o.snippet);
                    l["id"] = json!(n + 1);
                    l
                })
                .collect();
            if !related.is_empty() {
                result["relatedLocations"] = json!(related);
            }
            if let Some(state) = f.baseline {
                result["baselineState"] = json!(match state {
                    BaselineState::New => "new",
                    BaselineState::Unchanged => "unchanged",
                });
            }
            result
        })
        .collect();

    let notifications: Vec<Value> = report
        .notes
        .iter()
        .map(|n| json!({ "level": "note", "message": { "text": n } }))
        .collect();
    let mut invocation = json!({
        "executionSuccessful": true,
        "startTimeUtc": report.started_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "endTimeUtc": report.finished_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    });
    if !notifications.is_empty() {
        invocation["toolExecutionNotifications"] = json!(notifications);
    }
    let mut run = json!({
        "tool": { "driver": {
            "name": "sitescan",
            "semanticVersion": env!("CARGO_PKG_VERSION"),
            "version": env!("CARGO_PKG_VERSION"),
            "rules": descriptors,
        }},
        "invocations": [invocation],
        "results": results,
        "columnKind": "unicodeCodePoints",
        "properties": { "site": report.site },
    });
    if let Some(id) = &report.scan_id {
        run["automationDetails"] = json!({ "id": format!("sitescan/{id}") });
    }
    let log = json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [run],
    });
    let mut out = serde_json::to_vec_pretty(&log).map_err(|e| Error::Render {
        format: "sarif",
        reason: e.to_string(),
    })?;
    out.push(b'\n');
    Ok(out)
}

/// A SARIF location: the page, the snippet as its region, the selector as a
/// logical location.
fn location(uri: &str, selector: &str, snippet: &str) -> Value {
    let mut physical = Map::new();
    physical.insert("artifactLocation".into(), json!({ "uri": uri }));
    if !snippet.is_empty() {
        physical.insert("region".into(), json!({ "snippet": { "text": snippet } }));
    }
    let mut location = Map::new();
    location.insert("physicalLocation".into(), Value::Object(physical));
    if !selector.is_empty() {
        location.insert(
            "logicalLocations".into(),
            json!([{ "fullyQualifiedName": selector, "kind": "element" }]),
        );
    }
    Value::Object(location)
}

fn level(impact: Impact) -> &'static str {
    match impact {
        Impact::Critical | Impact::Serious => "error",
        Impact::Moderate => "warning",
        Impact::Minor => "note",
    }
}

fn descriptor(rule: &RuleInfo<'_>) -> Value {
    let mut tags = vec![rule.category.as_str().to_string()];
    if !rule.wcag.is_empty() {
        tags.push("wcag21".into());
        tags.extend(
            rule.wcag
                .iter()
                .map(|sc| format!("wcag{}", sc.replace('.', ""))),
        );
    }
    if rule.meta.is_some_and(|m| m.best_practice) {
        tags.push("best-practice".into());
    }
    let mut help_md = rule.help().to_string();
    for sc in &rule.wcag {
        if let Some(url) = wcag::url(sc) {
            help_md.push_str(&format!("\n\n- WCAG [{}]({url})", wcag::label(sc)));
        }
    }
    if !rule.help_url().is_empty() {
        help_md.push_str(&format!("\n\n[Learn more]({})", rule.help_url()));
    }
    let mut properties = json!({
        "tags": tags,
        "impact": rule.impact.as_str(),
        "precision": "high",
    });
    if rule.category == Category::Security {
        properties["security-severity"] = json!(match rule.impact {
            Impact::Critical => "9.0",
            Impact::Serious => "7.0",
            Impact::Moderate => "5.0",
            Impact::Minor => "3.0",
        });
    }
    let help_text = if rule.help().is_empty() {
        rule.title().to_string()
    } else {
        rule.help().to_string()
    };
    let mut d = json!({
        "id": rule.id,
        "name": pascal_case(rule.id),
        "shortDescription": { "text": rule.title() },
        "fullDescription": { "text": help_text },
        "help": { "text": help_text, "markdown": help_md },
        "defaultConfiguration": { "level": level(rule.impact) },
        "properties": properties,
    });
    if !rule.help_url().is_empty() {
        d["helpUri"] = json!(rule.help_url());
    }
    d
}

fn pascal_case(id: &str) -> String {
    id.split(['-', '_'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;

    fn sarif_validator() -> jsonschema::Validator {
        // The official schema's `language` patterns have a stray `]`
        // (`...-[a-zA-Z]{2}]?$`), which the JSON Schema meta-schema's `regex`
        // format check rejects before anything is validated. Only those patterns
        // are corrected here; the shipped file stays as published.
        const ERRATUM: &str = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
        let text = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../schema/sarif-2.1.0.schema.json"
        ));
        assert_eq!(text.matches(ERRATUM).count(), 2);
        let schema: Value = serde_json::from_str(
            &text.replace(ERRATUM, r#""^[a-zA-Z]{2}$|^[a-zA-Z]{2}-[a-zA-Z]{2}$""#),
        )
        .unwrap();
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap()
    }

    fn assert_valid(v: &Value) {
        let errors: Vec<String> = sarif_validator()
            .iter_errors(v)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "invalid SARIF:\n{}", errors.join("\n"));
    }

    #[test]
    fn sample_is_valid_sarif_with_one_rule_per_rule_and_one_result_per_finding() {
        let report = sample::report();
        let v: Value = serde_json::from_slice(&render(&report).unwrap()).unwrap();
        assert_valid(&v);
        let run = &v["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), 7);
        assert_eq!(rules[0]["id"], "document-title");
        assert_eq!(rules[0]["name"], "DocumentTitle");
        assert_eq!(
            rules[0]["helpUri"],
            "https://www.w3.org/WAI/WCAG21/Understanding/page-titled.html"
        );
        assert_eq!(
            rules[0]["properties"]["tags"],
            json!(["accessibility", "wcag21", "wcag242"])
        );
        let hsts = rules.iter().find(|r| r["id"] == "hsts").unwrap();
        let hsts_impact =
            sitescan_rules::registry::meta("hsts").map_or(Impact::Serious, |m| m.impact);
        let severity = match hsts_impact {
            Impact::Critical => "9.0",
            Impact::Serious => "7.0",
            Impact::Moderate => "5.0",
            Impact::Minor => "3.0",
        };
        assert_eq!(hsts["properties"]["security-severity"], severity);

        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), report.findings.len());
        let first = &results[0];
        assert_eq!(first["ruleId"], "image-alt");
        assert_eq!(first["ruleIndex"], 1);
        assert_eq!(first["level"], "error");
        assert_eq!(first["kind"], "fail");
        let loc = &first["locations"][0];
        assert_eq!(
            loc["physicalLocation"]["artifactLocation"]["uri"],
            "https://shop.example/"
        );
        assert_eq!(loc["logicalLocations"][0]["fullyQualifiedName"], "img.logo");
        assert_eq!(
            loc["physicalLocation"]["region"]["snippet"]["text"],
            r#"<img src="logo.png" class="logo">"#
        );
        assert_eq!(
            first["partialFingerprints"]["sitescanFingerprint/v1"],
            fingerprint(&report.findings[0])
        );
        // Header-level finding: no logical location.
        assert!(results[2]["locations"][0].get("logicalLocations").is_none());
        // cant-tell is a review result.
        assert_eq!(
            (results[6]["kind"].as_str(), results[6]["level"].as_str()),
            (Some("review"), Some("none"))
        );
        assert_eq!(results[4]["level"], "note");
        assert_eq!(results[7]["level"], "warning");
        assert_eq!(
            run["invocations"][0]["startTimeUtc"],
            "2026-11-21T09:00:00Z"
        );
    }

    #[test]
    fn baseline_states_and_empty_reports_are_valid_too() {
        let mut report = sample::report();
        crate::baseline::apply_baseline(&mut report, &sample::empty_report());
        let v: Value = serde_json::from_slice(&render(&report).unwrap()).unwrap();
        assert_valid(&v);
        assert_eq!(v["runs"][0]["results"][0]["baselineState"], "new");
        let v: Value = serde_json::from_slice(&render(&sample::empty_report()).unwrap()).unwrap();
        assert_valid(&v);
        assert_eq!(v["runs"][0]["results"], json!([]));
    }

    #[test]
    fn the_validator_rejects_broken_sarif() {
        let mut v: Value = serde_json::from_slice(&render(&sample::report()).unwrap()).unwrap();
        v["runs"][0]["results"][0]["level"] = json!("fatal");
        v["runs"][0]["results"][1]
            .as_object_mut()
            .unwrap()
            .remove("message");
        let errors = sarif_validator().iter_errors(&v).count();
        assert!(errors >= 2, "the schema caught only {errors} errors");
    }
}
