//! `scripts/compare-axe.d/rules.json`, the comparison harness's data, agrees with
//! the registry: every sitescan rule it compares exists, and every documented
//! difference from axe-core is one the rule's own docs describe under
//! "Differences from axe-core" (the harness leaves those out of recall and
//! precision, so an undocumented one would hide a disagreement).

use std::path::Path;

use serde_json::Value;
use sitescan_rules::registry;

fn data() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/compare-axe.d/rules.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn sitescan_id(v: &Value) -> &str {
    match v {
        Value::String(s) => s,
        other => other["sitescan"]
            .as_str()
            .unwrap_or_else(|| panic!("rules.json: a mapping without `sitescan`: {other}")),
    }
}

#[test]
fn every_compared_rule_exists() {
    let data = data();
    let rules = data["rules"]
        .as_object()
        .expect("rules.json: `rules` is an object");
    assert!(
        rules.len() > 50,
        "rules.json compares {} rules",
        rules.len()
    );
    for (axe, v) in rules {
        let id = sitescan_id(v);
        assert!(
            registry::meta(id).is_some(),
            "rules.json maps axe's {axe} to {id}, which is no sitescan rule"
        );
        if let Some(m) = v.get("match") {
            assert_eq!(
                m, "nested",
                "rules.json: {axe} has an unknown match mode {m}"
            );
        }
    }
}

#[test]
fn documented_differences_are_in_the_rule_docs() {
    let data = data();
    let rules = data["rules"]
        .as_object()
        .expect("rules.json: `rules` is an object");
    let differences = data["differences"]
        .as_array()
        .expect("rules.json: `differences` is a list");
    for d in differences {
        let axe = d["axe_rule"]
            .as_str()
            .expect("a difference names its `axe_rule`");
        let id = sitescan_id(
            rules
                .get(axe)
                .unwrap_or_else(|| panic!("difference on unmapped {axe}")),
        );
        let side = d["side"].as_str().expect("a difference has a `side`");
        assert!(
            matches!(side, "only-axe" | "only-sitescan"),
            "{axe}: side {side}"
        );
        if let Some(re) = d["matches"].as_str() {
            assert!(
                !re.is_empty(),
                "{axe}: an empty `matches` would match everything"
            );
        }
        let meta = registry::meta(id).expect("mapped rule exists");
        assert!(
            meta.docs.contains("## Differences from axe-core"),
            "rules.json documents a difference of {id} from axe-core, but its docs have no \"Differences from axe-core\" section"
        );
        assert_eq!(
            d["doc"].as_str(),
            Some(format!("rules/{id}.md").as_str()),
            "{axe}: `doc` names the rule's page"
        );
    }
}
