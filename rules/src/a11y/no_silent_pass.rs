//! No silent pass in the rules built on the cascade or on layout bounds:
//! generated pages cross every condition that hides a fact such a rule
//! depends on (a stylesheet that was not loaded, an unresolved `var()` or
//! `calc()`, images, gradients, blending, positioned content, transforms,
//! script focus handlers), and each element the rule applies to ends passed,
//! failed or cannot tell — never nothing — with a cannot tell naming its
//! reason in `data.reason`, so the report's notes count it.
//!
//! Rules covered: `color-contrast`, `link-in-text-block`, `target-size`,
//! `zoomed-text-clipped`, `scrollable-region-focusable`,
//! `css-orientation-lock`, `focus-visible`.

use super::color_contrast::ColorContrast;
use super::css_orientation_lock::CssOrientationLock;
use super::focus_visible::FocusVisible;
use super::link_in_text_block::LinkInTextBlock;
use super::scrollable_region_focusable::ScrollableRegionFocusable;
use super::target_size::TargetSize;
use super::zoomed_text_clipped::ZoomedTextClipped;
use crate::testing::{RuleTester, UNREACHABLE};
use crate::{analyze, Outcome, Rule};

/// The sheet every generated page may link and no server answers.
const GONE: &str = r#"<link rel=stylesheet href="gone.css">"#;

/// Counts of each outcome over the generated pages of one rule.
#[derive(Default)]
struct Outcomes([usize; 3]);

impl Outcomes {
    /// Runs `rule` on `html` (whose `gone.css`, if linked, does not answer):
    /// the one element it applies to ends with exactly one outcome, and a
    /// cannot tell names its reason.
    #[track_caller]
    fn judge(&mut self, rule: &'static dyn Rule, html: &str) {
        let gone = [("https://example.com/gone.css", UNREACHABLE)];
        let page = RuleTester::page_with_sheets(html, &gone, 100);
        let a = analyze(&page, &[rule]);
        let id = rule.meta().id;
        let tally = a
            .tallies
            .iter()
            .find(|t| t.rule_id == id)
            .unwrap_or_else(|| panic!("{id}: no tally: {html}"));
        let counts = [tally.passed, tally.failed, tally.cant_tell];
        assert_eq!(counts.iter().sum::<u32>(), 1, "{id}: {html}: {counts:?}");
        for (n, c) in counts.iter().enumerate() {
            self.0[n] += *c as usize;
        }
        let cant_tell = a
            .findings
            .iter()
            .filter(|f| f.rule_id == id && f.outcome == Outcome::CantTell);
        for f in cant_tell {
            let reason = f.data.as_ref().and_then(|d| d.get("reason"));
            assert!(
                reason.is_some_and(|r| r.is_string()),
                "{id}: cannot tell without a reason: {html}: {f:?}"
            );
        }
    }

    /// Every kind of outcome occurred: the generator reaches each branch.
    #[track_caller]
    fn all_occur(&self, id: &str) {
        assert!(self.0.iter().all(|n| *n > 0), "{id}: {:?}", self.0);
    }
}

/// Each combination of `n` on/off conditions, as a test of bit `i`.
fn masks(n: usize) -> impl Iterator<Item = impl Fn(usize) -> bool> {
    (0..(1usize << n)).map(|mask| move |i: usize| mask & (1 << i) != 0)
}

#[test]
fn color_contrast_text_ends_with_an_outcome() {
    let mut outcomes = Outcomes::default();
    for on in masks(10) {
        for fg in ["#777", "#000"] {
            let mut outer = String::from("position: relative;");
            let mut own = format!("color: {fg};");
            let mut head = "";
            let mut sibling = "";
            if on(0) {
                outer.push_str("background-image: url(a.png);");
            }
            if on(1) {
                own.push_str("background: linear-gradient(#fff, #000);");
            }
            if on(2) {
                own.push_str("color: var(--missing);");
            }
            if on(3) {
                outer.push_str("background-color: var(--nope);");
            }
            if on(4) {
                outer.push_str("opacity: .5;");
            }
            if on(5) {
                own.push_str("mix-blend-mode: multiply;");
            }
            if on(6) {
                own.push_str("position: absolute; top: 0;");
            }
            if on(7) {
                sibling = r#"<img src=a.png alt="" style="position: absolute; inset: 0">"#;
            }
            if on(8) {
                head = GONE;
            }
            if on(9) {
                own.push_str("text-shadow: 1px 1px 2px #888;");
            }
            outcomes.judge(
                &ColorContrast,
                &format!(
                    r#"{head}<div style="{outer}">{sibling}<p style="{own}">Some text</p></div>"#
                ),
            );
        }
    }
    outcomes.all_occur("color-contrast");
}

#[test]
fn link_in_text_block_links_end_with_an_outcome() {
    let mut outcomes = Outcomes::default();
    for on in masks(6) {
        for color in ["#1a73e8", "#444"] {
            let mut link = format!("color: {color}; text-decoration: none;");
            let mut text = String::from("color: #333;");
            let mut head = String::new();
            if on(0) {
                head.push_str(GONE);
            }
            if on(1) {
                link.push_str("color: var(--link);");
            }
            if on(2) {
                text.push_str("color: calc(var(--nope));");
            }
            if on(3) {
                link.push_str("text-decoration: underline;");
            }
            if on(4) {
                head.push_str("<style>a:hover, a:focus { text-decoration: underline }</style>");
            }
            if on(5) {
                link.push_str("font-weight: bold;");
            }
            outcomes.judge(
                &LinkInTextBlock,
                &format!(r#"{head}<p style="{text}">Read our <a href=/t style="{link}">terms</a> first.</p>"#),
            );
        }
    }
    outcomes.all_occur("link-in-text-block");
}

#[test]
fn target_size_controls_end_with_an_outcome() {
    let mut outcomes = Outcomes::default();
    let sizes = ["16px", "32px", "var(--nope)", "calc(1em + 4px)"];
    for w in sizes {
        for h in sizes {
            for on in masks(4) {
                let mut own = format!("width: {w}; height: {h};");
                let mut head = "";
                let mut outer = "";
                if on(0) {
                    own.push_str("padding: var(--pad);");
                } else {
                    own.push_str("padding: 0;");
                }
                if on(1) {
                    outer = "transform: scale(1.5)";
                }
                if on(2) {
                    head = GONE;
                }
                if on(3) {
                    own.push_str("min-width: 30px; min-height: var(--m);");
                }
                outcomes.judge(
                    &TargetSize,
                    &format!(
                        r#"{head}<div style="{outer}"><button style="{own}">x</button></div>"#
                    ),
                );
            }
        }
    }
    outcomes.all_occur("target-size");
}

const LONG: &str = "Once upon a midnight dreary, while I pondered, weak and weary, over many a quaint and curious volume of forgotten lore, while I nodded, nearly napping, suddenly there came a tapping.";

#[test]
fn zoomed_text_clipped_boxes_end_with_an_outcome() {
    let mut outcomes = Outcomes::default();
    let heights = [
        "",
        "height: 1.5em;",
        "height: 60px;",
        "height: var(--h);",
        "max-height: calc(100vh - 4em);",
    ];
    let widths = ["", "width: 600px;", "width: var(--w);"];
    for height in heights {
        for width in widths {
            for on in masks(3) {
                let mut own = format!("overflow: hidden; {height} {width}");
                let mut head = "";
                if on(0) {
                    own.push_str("white-space: nowrap;");
                }
                if on(1) {
                    own.push_str("text-overflow: ellipsis;");
                }
                if on(2) {
                    head = GONE;
                }
                outcomes.judge(
                    &ZoomedTextClipped,
                    &format!(r#"{head}<div style="{own}">{LONG}</div>"#),
                );
            }
        }
    }
    outcomes.all_occur("zoomed-text-clipped");
}

#[test]
fn scrollable_regions_end_with_an_outcome() {
    let mut outcomes = Outcomes::default();
    // Content that overflows each known height: the region scrolls.
    let content = format!("<p>{LONG} {LONG} {LONG} {LONG}</p>");
    let heights = [
        "height: 60px;",
        "height: 210px; padding: 30px 0;",
        "height: var(--h);",
        "max-height: calc(100vh - 10em);",
    ];
    for height in heights {
        for on in masks(3) {
            let own = format!("overflow: auto; width: 530px; {height}");
            let head = if on(0) { GONE } else { "" };
            let focus = if on(1) {
                "tabindex=0 aria-label=Story"
            } else {
                ""
            };
            let inner = if on(2) { "<a href=/top>Top</a>" } else { "" };
            outcomes.judge(
                &ScrollableRegionFocusable,
                &format!(r#"{head}<section style="{own}" {focus}>{inner}{content}</section>"#),
            );
        }
    }
    outcomes.all_occur("scrollable-region-focusable");
}

#[test]
fn css_orientation_lock_targets_end_with_an_outcome() {
    let mut outcomes = Outcomes::default();
    let turns = [
        "transform: rotate(90deg)",
        "transform: rotate(0turn)",
        "transform: rotate(var(--turn))",
        "rotate: calc(1turn / 4)",
        "transform: var(--lock)",
        "transform: matrix(0, 1, -1, 0, 0, 0)",
    ];
    for turn in turns {
        for on in masks(2) {
            let head = if on(0) { GONE } else { "" };
            let query = if on(1) { "portrait" } else { "landscape" };
            outcomes.judge(
                &CssOrientationLock,
                &format!("<html lang=en><head>{head}<style>@media (orientation: {query}) {{ html {{ {turn} }} }}</style></head><body>Content</body></html>"),
            );
        }
    }
    outcomes.all_occur("css-orientation-lock");
}

#[test]
fn focus_visible_elements_end_with_an_outcome() {
    let mut outcomes = Outcomes::default();
    let sheets = [
        "",
        "a:focus { outline: none }",
        "a { outline: 0 } a:focus-visible { outline: 2px solid }",
        "a:focus { outline: var(--ring) }",
        ":root { --ring: none } a:focus { outline: var(--ring) }",
        ":root { --ring: 2px solid blue } a { outline: none } a:focus { outline: var(--ring) }",
        "a:focus { outline: none; box-shadow: 0 0 0 3px blue }",
    ];
    for sheet in sheets {
        for on in masks(3) {
            let head = if on(0) { GONE } else { "" };
            let handler = if on(1) { "onfocus=mark(this)" } else { "" };
            let inline = if on(2) { "style='outline: none'" } else { "" };
            outcomes.judge(
                &FocusVisible,
                &format!("{head}<style>{sheet}</style><a href=/ {handler} {inline}>Home</a>"),
            );
        }
    }
    outcomes.all_occur("focus-visible");
}
