//! `hreflang`: alternate-language links are valid, absolute and complete.

use crate::support::{has_rel, link_header, select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks `<link rel="alternate" hreflang>` and `Link` header alternates.
pub struct Hreflang;

/// ISO 639-1 language codes.
const LANGUAGES: &str = "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu";

/// ISO 3166-1 alpha-2 region codes.
const REGIONS: &str = "ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bl bm bn bo bq br bs bt bv bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg eh er es et fi fj fk fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mf mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sj sk sl sm sn so sr ss st sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug um us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw eu 419";

static META: RuleMeta = RuleMeta {
    id: "hreflang",
    category: Category::Seo,
    title: "Hreflang annotations are valid and complete",
    help: "Use valid language(-region) codes (ISO 639-1, ISO 3166-1), absolute URLs, include the page itself and an x-default.",
    help_url: "https://developers.google.com/search/docs/specialty/international/localized-versions",
    impact: Impact::Moderate,
    docs: r#"## What it checks
When an HTML page declares alternates (`<link rel="alternate" hreflang="…" href>`
or `Link: <…>; rel="alternate"; hreflang="…"`):

- each code is `x-default` or an ISO 639-1 language, optionally with a four-letter
  script and an ISO 3166-1 region (`en`, `en-GB`, `zh-Hant-TW`; `en-UK` fails);
- each `href` is an absolute URL (seonaut's `ERROR_HREFLANG_RELATIVE_URL`);
- the set includes the page itself (self-reference) and an `x-default`
  (seonaut's `ERROR_HREFLANG_SELF_REFERENCE`, `ERROR_HREFLANG_XDEFAULT`);
- the self-reference's language matches `<html lang>` when both are given
  (`ERROR_HREFLANG_MISMATCHING_LANG`);
- no language is mapped to two different URLs.

Return links between the pages are checked across the site by
`hreflang-return-links`.

## Why it matters
Search engines ignore hreflang sets with invalid codes or missing parts, and then
show searchers the wrong language or country version.

## Failing
```html
<head><link rel="alternate" hreflang="en-UK" href="/uk/"></head>
```

## Passing
```html
<html lang="en-GB"><head>
<link rel="alternate" hreflang="en-GB" href="https://example.com/uk/">
<link rel="alternate" hreflang="de-DE" href="https://example.com/de/">
<link rel="alternate" hreflang="x-default" href="https://example.com/">
</head></html>
```
"#,
    ..RuleMeta::BASE
};

/// Whether a hreflang value is valid.
pub fn valid_code(code: &str) -> bool {
    let code = code.trim().to_ascii_lowercase();
    if code == "x-default" {
        return true;
    }
    let mut parts = code.split('-');
    let Some(lang) = parts.next() else {
        return false;
    };
    if !LANGUAGES.split(' ').any(|l| l == lang) {
        return false;
    }
    let rest: Vec<&str> = parts.collect();
    match rest.as_slice() {
        [] => true,
        [x] if x.len() == 4 && x.chars().all(|c| c.is_ascii_alphabetic()) => true,
        [r] => REGIONS.split(' ').any(|c| c == *r),
        [s, r] => {
            s.len() == 4
                && s.chars().all(|c| c.is_ascii_alphabetic())
                && REGIONS.split(' ').any(|c| c == *r)
        }
        _ => false,
    }
}

/// The page's alternates: `(code, href as written)`, HTML first then headers.
pub fn alternates(cx: &crate::PageContext<'_>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = select(cx, selector!("link[hreflang][href]"))
        .filter(|l| has_rel(*l, "alternate"))
        .map(|l| {
            (
                l.value().attr("hreflang").unwrap_or("").trim().to_string(),
                l.value().attr("href").unwrap_or("").trim().to_string(),
            )
        })
        .collect();
    out.extend(
        link_header(cx.page())
            .into_iter()
            .filter(|l| l.rel.iter().any(|r| r == "alternate"))
            .filter_map(|l| {
                l.param("hreflang")
                    .map(|h| (h.to_string(), l.target.clone()))
            }),
    );
    out
}

impl Rule for Hreflang {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let page = pcx.page();
        if !page.is_html() || !(200..300).contains(&page.status) {
            return;
        }
        let alts = alternates(pcx);
        if alts.is_empty() {
            return;
        }
        let mut problems: Vec<String> = Vec::new();
        for (code, href) in &alts {
            if !valid_code(code) {
                problems.push(format!("`{code}` is not a valid language(-region) code"));
            }
            if url::Url::parse(href).is_err() {
                problems.push(format!("`{href}` ({code}) is not an absolute URL"));
            }
        }
        let mut own = page.final_url.clone();
        own.set_fragment(None);
        let resolved: Vec<(String, Option<url::Url>)> = alts
            .iter()
            .map(|(c, h)| (c.to_ascii_lowercase(), page.final_url.join(h).ok()))
            .collect();
        let self_ref = resolved.iter().find(|(_, u)| u.as_ref() == Some(&own));
        match self_ref {
            None => problems.push("the page does not list itself (missing self-reference)".into()),
            Some((code, _)) => {
                let lang = pcx
                    .root()
                    .value()
                    .attr("lang")
                    .map(|l| l.trim().to_ascii_lowercase());
                if let Some(lang) = lang.filter(|l| !l.is_empty()) {
                    let primary = |s: &str| s.split('-').next().unwrap_or("").to_string();
                    if code != "x-default" && primary(code) != primary(&lang) {
                        problems.push(format!(
                            "the self-reference says `{code}` but <html lang> is `{lang}`"
                        ));
                    }
                }
            }
        }
        if !resolved.iter().any(|(c, _)| c == "x-default") {
            problems.push("there is no x-default alternate".into());
        }
        for (i, (c, u)) in resolved.iter().enumerate() {
            if resolved[..i].iter().any(|(c2, u2)| c2 == c && u2 != u) {
                problems.push(format!("`{c}` points to more than one URL"));
            }
        }
        if problems.is_empty() {
            cx.pass();
        } else {
            for p in problems {
                cx.fail_page(format!("Hreflang: {p}."));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    fn doc(lang: &str, links: &str) -> String {
        format!("<html lang=\"{lang}\"><head><title>T</title>{links}</head><body></body></html>")
    }

    const GOOD: &str = r#"<link rel="alternate" hreflang="en-GB" href="https://example.com/">
<link rel="alternate" hreflang="de-DE" href="https://example.com/de/">
<link rel="alternate" hreflang="x-default" href="https://example.com/">"#;

    #[test]
    fn examples() {
        RuleTester::new(&Hreflang)
            .pass(&[("(page)", &doc("en-GB", GOOD))])
            .inapplicable(&[&doc("en", "")])
            .fail(&[
                ("(page)", &doc("en", &GOOD.replace("en-GB", "en-UK"))),
                ("(page)", &doc("en", &GOOD.replace("https://example.com/de/", "/de/"))),
                ("(page)", &doc("en", &GOOD.replace("hreflang=\"x-default\"", "hreflang=\"fr\""))),
                ("(page)", &doc("de", GOOD)),
                ("(page)", &doc("en", r#"<link rel="alternate" hreflang="de" href="https://example.com/de/"><link rel="alternate" hreflang="x-default" href="https://example.com/de/">"#)),
            ])
            .run();
    }

    #[test]
    fn codes() {
        for ok in [
            "en",
            "en-GB",
            "zh-Hant",
            "zh-Hant-TW",
            "es-419",
            "x-default",
            "EN-us",
        ] {
            assert!(valid_code(ok), "{ok}");
        }
        for bad in ["en-UK", "english", "xx", "en_GB", "", "en-GB-extra"] {
            assert!(!valid_code(bad), "{bad}");
        }
    }
}
