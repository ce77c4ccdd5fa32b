//! One problem, one finding, on the page level: where several rules would say
//! the same thing about one element, the rule that owns it reports it
//! (`RuleMeta::defers_to`), and filler shown as code is not filler.

use sitescan_rules::{analyze, registry, Page, PageAnalysis, Rule};

fn rules(ids: &[&str]) -> Vec<&'static dyn Rule> {
    let selection = registry::select(ids).expect("known rule ids");
    selection.page.to_vec()
}

fn run(html: &str, ids: &[&str]) -> PageAnalysis {
    let page = Page::from_html("https://example.com/", html);
    analyze(&page, &rules(ids))
}

/// `rule selector` of every finding, in report order.
fn found(a: &PageAnalysis) -> Vec<String> {
    a.findings
        .iter()
        .map(|f| format!("{} {}", f.rule_id, f.selector))
        .collect()
}

fn tally(a: &PageAnalysis, id: &str) -> (u32, u32, u32) {
    let t = a
        .tallies
        .iter()
        .find(|t| t.rule_id == id)
        .expect("the rule ran");
    (t.passed, t.failed, t.cant_tell)
}

const PAGE: &str = r#"<!doctype html><html lang="en"><head><title>Shop</title></head><body><main>
<h2>Mugs</h2>
<p><a href="/cart"></a> <a href="/about">About us</a></p>
<button></button><button>Buy</button>
<svg role="img"></svg>
</main></body></html>"#;

#[test]
fn an_empty_link_button_and_unnamed_svg_are_reported_by_their_owner_only() {
    let a = run(
        PAGE,
        &[
            "link-name",
            "empty-link",
            "button-name",
            "empty-button",
            "svg-img-alt",
            "image-decorative",
        ],
    );
    // In rule order (the registry's), then document order.
    assert_eq!(
        found(&a),
        [
            "svg-img-alt html > body > main > svg",
            "button-name html > body > main > button:nth-child(3)",
            "link-name html > body > main > p > a:nth-child(1)",
        ]
    );
    // The deferring rules' failures are taken out of their tallies too (their
    // passes stay): the scores count the problem once.
    assert_eq!(tally(&a, "empty-link"), (1, 0, 0));
    assert_eq!(tally(&a, "empty-button"), (1, 0, 0));
    assert_eq!(tally(&a, "image-decorative"), (0, 0, 0));
    assert_eq!(tally(&a, "link-name"), (1, 1, 0));
}

#[test]
fn without_the_owner_the_deferring_rules_report_on_their_own() {
    let a = run(PAGE, &["quality"]);
    let quality: Vec<String> = found(&a)
        .into_iter()
        .filter(|l| l.starts_with("empty-"))
        .collect();
    assert_eq!(
        quality,
        [
            "empty-link html > body > main > p > a:nth-child(1)",
            "empty-button html > body > main > button:nth-child(3)",
        ]
    );
    assert_eq!(tally(&a, "empty-link"), (1, 1, 0));
}

#[test]
fn a_missing_h1_is_one_finding_of_page_has_heading_one() {
    let ids = ["page-has-heading-one", "heading-h1", "empty-heading"];
    let a = run(PAGE, &ids);
    assert_eq!(found(&a), ["page-has-heading-one "]);
    assert_eq!(tally(&a, "heading-h1"), (0, 0, 0));
    // An empty <h1>: there is a level-one heading, and empty-heading owns
    // its emptiness (heading-h1's "The <h1> is empty." is dropped).
    let empty = PAGE.replace("<h2>Mugs</h2>", "<h1></h1>");
    let a = run(&empty, &ids);
    assert_eq!(found(&a), ["empty-heading html > body > main > h1"]);
    assert_eq!(tally(&a, "heading-h1"), (0, 0, 0));
    let a = run(&empty, &["heading-h1"]);
    assert_eq!(found(&a), ["heading-h1 html > body > main > h1"]);
    // SEO alone still says so.
    let a = run(PAGE, &["heading-h1"]);
    assert_eq!(found(&a), ["heading-h1 "]);
}

#[test]
fn placeholder_markers_inside_code_samples_are_not_filler() {
    let html = r#"<!doctype html><html lang="en"><head><title>Docs</title></head><body>
<pre>$ mv photo.XXX photo.jpg  # TODO: pick the extension</pre>
<pre><code>def f(): pass  # FIXME</code></pre>
<p>Call <code>frobnicate(XXX)</code>, press <kbd>XXX</kbd>, read <samp>TODO</samp>,
name it <var>XXX</var>, type <tt>TBD</tt>.</p>
<p>Price: TBD</p>
<ul><li>Lorem ipsum dolor sit amet</li></ul>
</body></html>"#;
    let a = run(html, &["placeholder-text"]);
    let got: Vec<(String, String)> = a
        .findings
        .iter()
        .map(|f| (f.selector.clone(), f.message.clone()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "html > body > p:nth-child(4)".to_string(),
                "Placeholder text: \"TBD\".".to_string()
            ),
            (
                "html > body > ul > li".to_string(),
                "Placeholder text: \"Lorem ipsum\".".to_string()
            ),
        ]
    );
    // Code alone: the rule applied and passed.
    let a = run(
        r#"<html lang="en"><title>T</title><pre>XXX TODO</pre><p>See <code>XXX</code>.</p></html>"#,
        &["placeholder-text"],
    );
    assert!(a.findings.is_empty(), "{:?}", found(&a));
    assert_eq!(tally(&a, "placeholder-text"), (1, 0, 0));
}

#[test]
fn a_native_list_with_stray_children_is_lists_finding_and_aria_lists_stay_aria_required_childrens()
{
    let html = r#"<!doctype html><html lang="en"><head><title>Lists</title></head><body><main>
<ul><p>Loose</p></ul>
<div role="list"><p>Loose</p></div>
</main></body></html>"#;
    let a = run(html, &["list", "aria-required-children"]);
    assert_eq!(
        found(&a),
        [
            "list html > body > main > ul",
            "aria-required-children html > body > main > div",
        ]
    );
    // Without `list`, the native list is aria-required-children's to report.
    let alone = run(html, &["aria-required-children"]);
    assert_eq!(
        found(&alone),
        [
            "aria-required-children html > body > main > ul",
            "aria-required-children html > body > main > div",
        ]
    );
}
