//! The REST API reference (`docs/src/service/api.md`) is partly generated: its
//! Endpoints, Error codes and Schemas sections, between the `openapi` marker
//! lines, are rendered here from the OpenAPI document `sitescan serve` publishes
//! at `/api/v1/openapi.json` and from the error code table. The test fails when
//! the page is stale; `SITESCAN_BLESS=1 cargo test --test it api_reference`
//! rewrites the section. The hand-written rest of the page (the contract, the
//! decisions) is left as it is.

use serde_json::Value;
use sitescan_daemon::api::error::ErrorCode;
use sitescan_daemon::api::openapi::ApiDoc;

use crate::docs::{heading_id, read, repo_root};

const PAGE: &str = "docs/src/service/api.md";
const START: &str = "<!-- openapi:start (generated from the OpenAPI document: SITESCAN_BLESS=1 cargo test --test it api_reference) -->";
const END: &str = "<!-- openapi:end -->";
/// The prefix every path of the document has; the page shows paths below it.
const BASE: &str = "/api/v1";

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// Text for one table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn schema_name(reference: &str) -> &str {
    reference.rsplit('/').next().unwrap_or(reference)
}

/// The names of the document's schemas: a `$ref` to any other is dangling.
type Known = std::collections::BTreeSet<String>;

fn known_schemas(doc: &Value) -> Known {
    doc["components"]["schemas"]
        .as_object()
        .map(|s| s.keys().cloned().collect())
        .unwrap_or_default()
}

fn schema_link(name: &str, known: &Known) -> String {
    if known.contains(name) {
        format!("[`{name}`](#{})", heading_id(name))
    } else {
        format!("`{name}` (not described in the document)")
    }
}

/// A schema's type in a few words, with links to named schemas.
fn type_of(schema: &Value, known: &Known) -> String {
    let nullable = schema["nullable"].as_bool().unwrap_or(false);
    let base = if let Some(r) = schema["$ref"].as_str() {
        schema_link(schema_name(r), known)
    } else if let Some(parts) = schema["allOf"]
        .as_array()
        .or_else(|| schema["oneOf"].as_array())
        .or_else(|| schema["anyOf"].as_array())
    {
        let joiner = if schema["allOf"].is_array() {
            " and "
        } else {
            " or "
        };
        parts
            .iter()
            .map(|p| type_of(p, known))
            .collect::<Vec<_>>()
            .join(joiner)
    } else if let Some(values) = schema["enum"].as_array() {
        values
            .iter()
            .map(|v| {
                format!(
                    "`{}`",
                    v.as_str().map_or_else(|| v.to_string(), str::to_string)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        match schema["type"].as_str() {
            Some("array") => format!("array of {}", type_of(&schema["items"], known)),
            Some("object") => match &schema["additionalProperties"] {
                Value::Object(_) => {
                    format!(
                        "map of string to {}",
                        type_of(&schema["additionalProperties"], known)
                    )
                }
                _ => "object".to_string(),
            },
            Some(t) => match schema["format"].as_str() {
                Some("date-time") => "string (date-time)".to_string(),
                Some("uri") => "string (URL)".to_string(),
                _ => t.to_string(),
            },
            None => "any".to_string(),
        }
    };
    let range = match (schema["minimum"].as_f64(), schema["maximum"].as_f64()) {
        (Some(lo), Some(hi)) => format!(", {lo}–{hi}"),
        (Some(lo), None) if lo != 0.0 => format!(", ≥ {lo}"),
        (None, Some(hi)) => format!(", ≤ {hi}"),
        _ => String::new(),
    };
    let null = if nullable { " or null" } else { "" };
    format!("{base}{range}{null}")
}

/// Text from the document made to stand on its own in the book: a few doc
/// comments of the daemon still name the project's internal design notes,
/// which a reader does not have.
fn clean(text: &str) -> String {
    text.replace(
        "DESIGN.md's JSON report",
        "the [JSON report](../json-report.md)",
    )
    .replace(
        "(DESIGN.md, \"The JSON report\")",
        "(see [The JSON report](../json-report.md))",
    )
}

/// Summary and description of an operation, as one text (utoipa cuts a doc
/// comment's first line off as the summary, mid-sentence when it wraps).
fn operation_text(path: &str, op: &Value) -> String {
    let summary = op["summary"].as_str().unwrap_or("");
    let description = op["description"].as_str().unwrap_or("");
    let text = format!("{summary} {description}").trim().to_string();
    if !text.is_empty() {
        return clean(&text);
    }
    // utoipa 4 drops a doc comment built with `concat!`, as the macro of the
    // typed scan endpoints (`/sites/{siteId}/<type>/scans`) writes theirs: say
    // here what it says.
    match path
        .strip_prefix("/sites/{siteId}/")
        .and_then(|p| p.strip_suffix("/scans"))
    {
        Some(kind) if !kind.contains('/') => format!(
            "Starts a scan of type `{kind}`; `config` is optional, its rules default to the \
             type (`wcag-aa` for accessibility) and must stay within it."
        ),
        _ => String::new(),
    }
}

/// The first sentence of a text, for a table cell.
fn first_sentence(text: &str) -> String {
    let one_line = cell(text);
    match one_line.find(". ") {
        Some(end) => one_line[..=end].to_string(),
        None => one_line,
    }
}

/// Every operation as (tag index, path below BASE, method, operation).
fn operations(doc: &Value) -> Vec<(usize, String, &'static str, &Value)> {
    let tags: Vec<&str> = doc["tags"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let short = path.strip_prefix(BASE).unwrap_or(path).to_string();
        for method in METHODS {
            let op = &item[method];
            if op.is_null() {
                continue;
            }
            let tag = op["tags"][0].as_str().unwrap_or("");
            let rank = tags.iter().position(|t| *t == tag).unwrap_or(tags.len());
            out.push((rank, short.clone(), method, op));
        }
    }
    out.sort_by(|a, b| {
        (a.0, &a.1, METHODS.iter().position(|m| *m == a.2)).cmp(&(
            b.0,
            &b.1,
            METHODS.iter().position(|m| *m == b.2),
        ))
    });
    out
}

fn response_schema(response: &Value, known: &Known) -> String {
    let content = &response["content"];
    match content.as_object().and_then(|c| c.iter().next()) {
        Some((media, body)) if media == "application/json" => type_of(&body["schema"], known),
        Some((media, _)) => format!("`{media}`"),
        None => "—".to_string(),
    }
}

/// The generated section, markers included.
fn render(doc: &Value) -> String {
    let known = known_schemas(doc);
    let known = &known;
    let mut out = String::new();
    out.push_str(START);
    out.push_str("\n\n## Endpoints\n\n");
    out.push_str(&format!(
        "Paths are below `{BASE}`. Every endpoint but those marked otherwise needs \
         `X-API-Key`.\n\n| Method and path | What | Success |\n|---|---|---|\n"
    ));
    let ops = operations(doc);
    for (_, path, method, op) in &ops {
        let title = format!("{} {path}", method.to_uppercase());
        let success: Vec<&str> = op["responses"]
            .as_object()
            .map(|r| {
                r.keys()
                    .filter(|k| k.starts_with('2'))
                    .map(String::as_str)
                    .collect()
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "| [`{title}`](#{}) | {} | {} |\n",
            heading_id(&title),
            first_sentence(&operation_text(path, op)),
            success.join(", ")
        ));
    }
    for (_, path, method, op) in &ops {
        let title = format!("{} {path}", method.to_uppercase());
        out.push_str(&format!(
            "\n### `{title}`\n\n{}\n",
            operation_text(path, op)
        ));
        if op["security"].as_array().is_some_and(|s| s.is_empty()) || op.get("security").is_none() {
            out.push_str("\nNo API key needed.\n");
        }
        if let Some(params) = op["parameters"].as_array().filter(|p| !p.is_empty()) {
            out.push_str(
                "\n| Parameter | In | Type | Required | Meaning |\n|---|---|---|---|---|\n",
            );
            for p in params {
                out.push_str(&format!(
                    "| `{}` | {} | {} | {} | {} |\n",
                    p["name"].as_str().unwrap_or(""),
                    p["in"].as_str().unwrap_or(""),
                    type_of(&p["schema"], known),
                    if p["required"].as_bool().unwrap_or(false) {
                        "yes"
                    } else {
                        "no"
                    },
                    cell(p["description"].as_str().unwrap_or(""))
                ));
            }
        }
        let body = &op["requestBody"];
        if !body.is_null() {
            let required = if body["required"].as_bool().unwrap_or(false) {
                "required"
            } else {
                "optional"
            };
            out.push_str(&format!(
                "\nBody ({required}, `Content-Type: application/json`): {}\n",
                response_schema(body, known)
            ));
        }
        out.push_str("\n| Status | When | Body |\n|---|---|---|\n");
        if let Some(responses) = op["responses"].as_object() {
            for (status, response) in responses {
                let mut when = cell(&clean(response["description"].as_str().unwrap_or("")));
                if let Some(headers) = response["headers"].as_object() {
                    let names: Vec<String> = headers.keys().map(|h| format!("`{h}`")).collect();
                    when.push_str(&format!(" (header {})", names.join(", ")));
                }
                out.push_str(&format!(
                    "| {status} | {when} | {} |\n",
                    response_schema(response, known)
                ));
            }
        }
    }

    out.push_str(
        "\n## Error codes\n\nEvery error answer is an [`ErrorBody`](#errorbody) whose \
         `error.code` is one of these, always with the same HTTP status.\n\n\
         | code | HTTP | when |\n|---|---|---|\n",
    );
    for code in ErrorCode::ALL {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            code.as_str(),
            code.status().as_u16(),
            cell(code.summary())
        ));
    }

    out.push_str("\n## Schemas\n\nThe bodies above, field by field.\n");
    for (name, schema) in doc["components"]["schemas"].as_object().expect("schemas") {
        out.push_str(&format!("\n### `{name}`\n\n"));
        if let Some(d) = schema["description"].as_str() {
            out.push_str(&format!("{}\n\n", clean(d.trim())));
        }
        if let Some(values) = schema["enum"].as_array() {
            let values: Vec<String> = values
                .iter()
                .map(|v| {
                    format!(
                        "`{}`",
                        v.as_str().map_or_else(|| v.to_string(), str::to_string)
                    )
                })
                .collect();
            out.push_str(&format!("One of {}.\n", values.join(", ")));
            continue;
        }
        let Some(props) = schema["properties"].as_object() else {
            out.push_str(&format!("Type: {}.\n", type_of(schema, known)));
            continue;
        };
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        out.push_str("| Field | Type | Required | Meaning |\n|---|---|---|---|\n");
        for (field, prop) in props {
            let mut meaning = cell(&clean(prop["description"].as_str().unwrap_or("")));
            if let Some(example) = prop.get("example") {
                meaning.push_str(&format!(" Example: `{example}`."));
            }
            out.push_str(&format!(
                "| `{field}` | {} | {} | {} |\n",
                type_of(prop, known),
                if required.contains(&field.as_str()) {
                    "yes"
                } else {
                    "no"
                },
                meaning.trim()
            ));
        }
        if schema["additionalProperties"] == Value::Bool(false) {
            out.push_str("\nOther fields are refused (422 `validation_failed`).\n");
        }
    }
    out.push('\n');
    out.push_str(END);
    out
}

fn document() -> Value {
    serde_json::to_value(ApiDoc::openapi_doc()).unwrap()
}

#[test]
fn api_reference_is_current() {
    let page = read(PAGE);
    let a = page
        .find(START)
        .expect("the API page's openapi:start marker");
    let b = page[a..]
        .find(END)
        .expect("the API page's openapi:end marker")
        + a;
    let want = format!(
        "{}{}{}",
        &page[..a],
        render(&document()),
        &page[b + END.len()..]
    );
    if std::env::var_os("SITESCAN_BLESS").is_some() {
        std::fs::write(repo_root().join(PAGE), want).unwrap();
        return;
    }
    assert!(
        page == want,
        "{PAGE} is stale against the OpenAPI document: run `SITESCAN_BLESS=1 cargo test --test it api_reference`"
    );
}

#[test]
fn api_reference_covers_every_operation_and_schema() {
    let doc = document();
    let text = render(&doc);
    let mut count = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in METHODS {
            if !item[method].is_null() {
                count += 1;
                let short = path.strip_prefix(BASE).unwrap();
                let heading = format!("### `{} {short}`", method.to_uppercase());
                assert!(text.contains(&heading), "no section {heading}");
            }
        }
    }
    assert!(count >= 20, "only {count} operations in the document");
    for name in doc["components"]["schemas"].as_object().unwrap().keys() {
        assert!(text.contains(&format!("### `{name}`")), "no schema {name}");
    }
    assert!(text.contains("| [`POST /sites/{siteId}/scans`](#post-sitessiteidscans) |"));
}
