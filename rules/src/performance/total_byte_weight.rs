//! `total-byte-weight`: a page and everything it loads stay under Lighthouse's
//! network-payload threshold.

use std::collections::BTreeMap;

use crate::resources::bytes;
use crate::{Category, Check, Impact, Rule, Need, RuleMeta};

/// Fails pages whose document plus subresources transfer more than [`MAX_BYTES`].
pub struct TotalByteWeight;

/// Largest total transfer that passes: 2,667 KiB, the point where Lighthouse's
/// `total-byte-weight` score drops below 0.9 (its log-normal curve has p10 at
/// 2,667 KiB and median at 4,000 KiB, from HTTP Archive percentiles).
pub const MAX_BYTES: u64 = 2667 * 1024;

static META: RuleMeta = RuleMeta {
    id: "total-byte-weight",
    category: Category::Performance,
    title: "Pages avoid enormous network payloads",
    help: "Shrink what the page loads: compress and resize images, split or trim scripts, drop unused styles and fonts.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/total-byte-weight",
    impact: Impact::Moderate,
    needs: &[Need::Subresources],
    docs: r#"## What it checks
The bytes transferred for an HTML page — the document plus every subresource it
loads that the engine fetched (scripts, stylesheets, images, fonts from
`@font-face`, media, icons, preloads; each fetched once per scan and counted on
every page that loads it) — stay at or under 2,667 KiB (2,731,008 bytes):
Lighthouse's `total-byte-weight` scores a page below 0.9 from there (log-normal
curve, p10 2,667 KiB, median 4,000 KiB). Sizes are transfer sizes: the
`Content-Length` (compressed size when compressed), else the bytes read. The
finding's data carries a resource summary like Lighthouse's `resource-summary`:
request count and bytes per kind. Resources loaded by scripts, CSS backgrounds
and `srcset` candidates are not known without a browser and are not counted.

## Why it matters
Every byte costs load time and, on metered connections, money; large payloads are
strongly correlated with slow pages.

## Failing
```html
<!-- the page loads a 3 MB hero image and 400 KB of scripts -->
<img src="/hero.jpg" alt="Workshop" width="1200" height="600">
```

## Passing
```html
<!-- the same page with a 180 KB hero image -->
<img src="/hero.webp" alt="Workshop" width="1200" height="600">
```
"#,
    ..RuleMeta::BASE
};

impl Rule for TotalByteWeight {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !page.is_html() {
            return;
        }
        let mut by_kind: BTreeMap<&'static str, (u64, u64)> = BTreeMap::new();
        let mut total = page.transfer_bytes;
        let mut capped = false;
        for sub in &page.subresources {
            let size = sub.facts.transfer_bytes.unwrap_or(0);
            capped |= sub.facts.transfer_capped;
            total += size;
            let entry = by_kind.entry(sub.kind.as_str()).or_default();
            entry.0 += 1;
            entry.1 += size;
        }
        if total <= MAX_BYTES {
            cx.pass();
            return;
        }
        let summary: serde_json::Map<String, serde_json::Value> = by_kind
            .iter()
            .map(|(k, (count, size))| {
                (
                    (*k).to_string(),
                    serde_json::json!({"count": count, "bytes": size}),
                )
            })
            .collect();
        cx.fail_page(format!(
            "The page and its {} subresource(s) transfer {}{} bytes, more than {} (2,667 KiB).",
            page.subresources.len(),
            if capped { "at least " } else { "" },
            bytes(total),
            bytes(MAX_BYTES)
        ))
        .with_data(serde_json::json!({
            "bytes": total,
            "document_bytes": page.transfer_bytes,
            "requests": page.subresources.len() + 1,
            "resources": summary,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{ResourceFacts, ResourceKind};
    use crate::testing::RuleTester;

    fn image(size: u64) -> ResourceFacts {
        ResourceFacts {
            status: 200,
            content_type: Some("image/jpeg".into()),
            transfer_bytes: Some(size),
            ..ResourceFacts::default()
        }
    }

    fn page(sizes: &[u64]) -> crate::Page {
        sizes
            .iter()
            .enumerate()
            .fold(RuleTester::page("<p>Hello</p>"), |p, (i, s)| {
                p.with_subresource(
                    &format!("https://example.com/{i}.jpg"),
                    ResourceKind::Image,
                    image(*s),
                )
            })
    }

    #[test]
    fn examples() {
        RuleTester::new(&TotalByteWeight)
            .pass_page("(page)", page(&[]))
            .pass_page("(page)", page(&[1_000_000, 1_000_000]))
            .fail_page("(page)", page(&[3_000_000]))
            .fail_page("(page)", page(&[1_500_000, 1_500_000]))
            .run();
    }

    #[test]
    fn message_and_summary() {
        let p = page(&[1_500_000, 1_500_000]);
        let doc = p.transfer_bytes;
        let analysis = crate::analyze(&p, &[&TotalByteWeight]);
        let f = &analysis.findings[0];
        assert_eq!(
            f.message,
            format!(
                "The page and its 2 subresource(s) transfer {} bytes, more than 2,731,008 (2,667 KiB).",
                bytes(3_000_000 + doc)
            )
        );
        let data = f.data.as_ref().unwrap();
        assert_eq!(data["requests"], 3);
        assert_eq!(data["resources"]["image"]["count"], 2);
        assert_eq!(data["resources"]["image"]["bytes"], 3_000_000);
    }
}
