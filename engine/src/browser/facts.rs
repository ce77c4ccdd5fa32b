//! The browser's facts about a rendered page: computed styles and boxes from
//! one `DOMSnapshot.captureSnapshot`, mapped onto the serialized DOM's
//! elements (see [`sitescan_rules::rendered`] for what the rules get).
//!
//! The mapping: [`STAMP`] stamps every element, in document order, with
//! [`STAMP_ATTR`] = its index, in the same script that counts them; the
//! snapshot then reports each node's attributes, so each snapshot node with a
//! stamp gives the facts of that index, and the DOM serialized after it carries
//! the same stamps to the rules' parser, which takes them off. Nothing depends
//! on the two trees having the same shape, so scripts running between the
//! calls cannot shift the mapping: an element they add has no stamp (no
//! facts), one they remove has facts no element claims.
//!
//! The stamps are attribute changes the page's own `MutationObserver`s can
//! see; they are made after the page is ready, and a page reacting to them
//! changes only what it shows after its own ready state.
//!
//! Bounded: a page with more than [`MAX_FACT_ELEMENTS`] elements is not
//! stamped; the snapshot is one protocol answer under the connection's
//! message cap ([`super::cdp::MAX_MESSAGE_BYTES`]) and the call's timeout;
//! each array is read with checked indexes. Whatever fails leaves
//! [`RenderedFacts::absent`] with a note, never the render.

use std::time::Duration;

use serde_json::{json, Value};
use sitescan_rules::css::color::Rgba;
use sitescan_rules::rendered::{
    ink_overflow, ElementFacts, Rect, RenderedFacts, MAX_BACKGROUND_IMAGE, MAX_FACT_ELEMENTS,
    STAMP_ATTR,
};

use super::cdp::{Connection, Wait, World};
use super::BrowserError;

/// The computed style properties asked for, in this order.
const STYLES: &[&str] = &[
    "display",
    "visibility",
    "opacity",
    "color",
    "font-size",
    "font-weight",
    "overflow-x",
    "overflow-y",
    "background-color",
    "background-image",
    "content-visibility",
    "outline-style",
    "outline-width",
    "outline-offset",
    "box-shadow",
    "filter",
];

/// The place of the property `name` in [`STYLES`], for use at compile
/// time (a property not asked for does not compile).
const fn style_at(name: &str) -> usize {
    let mut i = 0;
    while i < STYLES.len() {
        let (a, b) = (STYLES[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("a computed style the snapshot does not ask for")
}

/// Longest the script revealing `content-visibility: auto` content spends
/// looking for nested such boxes, milliseconds.
const REVEAL_MS: u32 = 1000;

/// The scripts' one way to find an element by its stamp: `find(s)` looks at
/// the stamp's index first (the stamps are the elements' document order)
/// and searches by selector only when a script moved the element, so that
/// finding many elements does not walk the document once per element.
pub(crate) fn find_by_stamp_js() -> String {
    format!(
        "const all = document.getElementsByTagName('*'); \
         const find = (s) => {{ const e = all[s]; \
           if (e && e.getAttribute('{STAMP_ATTR}') === String(s)) return e; \
           try {{ return document.querySelector('[{STAMP_ATTR}=\"' + s + '\"]'); }} catch (x) {{ return null; }} }};"
    )
}

/// Counts the page's elements and, when there are at most the cap, stamps
/// each with its index in document order. Answers `[count, innerWidth,
/// innerHeight, stamp of the open modal dialog or -1]`.
fn stamp_script() -> String {
    format!(
        "(() => {{ const all = document.getElementsByTagName('*'); const n = all.length; let modal = -1; \
         if (n <= {MAX_FACT_ELEMENTS}) {{ let m = null; try {{ m = document.querySelector(':modal'); }} catch (e) {{}} \
         for (let i = 0; i < n; i++) {{ all[i].setAttribute('{STAMP_ATTR}', String(i)); if (all[i] === m) modal = i; }} }} \
         return [n, window.innerWidth, window.innerHeight, modal]; }})()"
    )
}

async fn eval(
    conn: &Connection,
    session: &str,
    expr: &str,
    timeout: Duration,
) -> Result<Value, BrowserError> {
    conn.evaluate(session, World::Page, expr, Wait::Value, timeout)
        .await
}

/// What one snapshot gave: the rules' facts, and per stamp the element's
/// `backendNodeId`, by which later protocol calls name it without searching
/// the document ([`super::states`]).
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    /// The facts the rules get.
    pub facts: RenderedFacts,
    /// Per stamp, the element's backend node id; as long as
    /// [`RenderedFacts::elements`] (empty when no facts were taken).
    pub backend: Vec<Option<i64>>,
    /// The stamps of the boxes whose computed `content-visibility` is
    /// `auto`: the browser skips laying out their content while it is off
    /// screen ([`reveal_script`]).
    pub deferred: Vec<u32>,
}

/// Stamps the page and takes its snapshot. Call before serializing the DOM.
pub(crate) async fn capture(conn: &Connection, session: &str, timeout: Duration) -> Snapshot {
    match capture_inner(conn, session, timeout).await {
        Ok(f) => f,
        Err(e) => {
            tracing::debug!(error = %e, "no browser facts for the page");
            Snapshot {
                facts: RenderedFacts::absent(format!(
                    "the browser's styles and boxes were not taken ({e}); static estimates used"
                )),
                ..Snapshot::default()
            }
        }
    }
}

async fn capture_inner(
    conn: &Connection,
    session: &str,
    timeout: Duration,
) -> Result<Snapshot, BrowserError> {
    let counted = eval(conn, session, &stamp_script(), timeout).await?;
    let num = |i: usize| counted.get(i).and_then(Value::as_f64).unwrap_or(0.0);
    let count = num(0) as usize;
    let viewport = Rect {
        x: 0.0,
        y: 0.0,
        width: num(1) as f32,
        height: num(2) as f32,
    };
    if count > MAX_FACT_ELEMENTS {
        return Ok(Snapshot {
            facts: RenderedFacts {
                viewport,
                ..RenderedFacts::absent(format!(
                    "the page has {count} elements, over the {MAX_FACT_ELEMENTS} the browser's styles and boxes are taken for; static estimates used"
                ))
            },
            ..Snapshot::default()
        });
    }
    let mut snapshot = take_snapshot(conn, session, count, timeout).await?;
    if !snapshot.deferred.is_empty() {
        // A box with `content-visibility: auto` keeps its content unlaid
        // while it is off screen: no boxes, no blended colours. A reader
        // scrolling there gets it laid out, so the page is judged with every
        // such box shown (the content of `content-visibility: hidden` stays
        // hidden), and the snapshot is taken again.
        let revealed = eval(conn, session, &reveal_script(&snapshot.deferred), timeout).await?;
        tracing::debug!(
            boxes = revealed.as_u64().unwrap_or(0),
            "content-visibility: auto content laid out for the snapshot"
        );
        snapshot = take_snapshot(conn, session, count, timeout).await?;
    }
    let Snapshot {
        mut facts,
        backend,
        deferred,
    } = snapshot;
    if let Err(e) = drop_skipped(conn, session, &mut facts, timeout).await {
        tracing::debug!(error = %e, "skipped content was not looked for");
    }
    if let Err(e) = scroll_sizes(conn, session, &mut facts, timeout).await {
        // Those boxes keep no sizes: the rules estimate them.
        tracing::debug!(error = %e, "the scroll sizes were not read");
    }
    facts.viewport = viewport;
    facts.modal = counted
        .get(3)
        .and_then(Value::as_i64)
        .and_then(|m| u32::try_from(m).ok())
        .filter(|m| (*m as usize) < count);
    Ok(Snapshot {
        facts,
        backend,
        deferred,
    })
}

/// Most elements [`drop_skipped`] asks the browser about.
const MAX_SKIP_CHECKS: usize = 20_000;

/// Takes the facts off the elements whose content the browser skips
/// rendering: the content of a closed `<details>`, of `hidden="until-found"`
/// and of `content-visibility: hidden` keeps boxes in the snapshot, of no
/// size, though nothing of it is shown or exposed. Only elements with an
/// empty box are asked about (`checkVisibility()`, in one call); those
/// skipped get the facts of an element without a box (not rendered).
async fn drop_skipped(
    conn: &Connection,
    session: &str,
    facts: &mut RenderedFacts,
    timeout: Duration,
) -> Result<(), BrowserError> {
    let empty: Vec<usize> = facts
        .elements
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.as_ref()
                .and_then(|f| f.bounds)
                .is_some_and(|b| b.width == 0.0 && b.height == 0.0)
        })
        .map(|(i, _)| i)
        .take(MAX_SKIP_CHECKS)
        .collect();
    if empty.is_empty() {
        return Ok(());
    }
    let expr = format!(
        "((stamps) => {{ {} \
         return stamps.filter((s) => {{ const e = find(s); \
           return e && typeof e.checkVisibility === 'function' && !e.checkVisibility(); }}); }})({})",
        find_by_stamp_js(),
        Value::from(empty.as_slice())
    );
    let skipped = eval(conn, session, &expr, timeout).await?;
    for stamp in skipped.as_array().map(Vec::as_slice).unwrap_or_default() {
        let Some(slot) = stamp
            .as_u64()
            .and_then(|s| usize::try_from(s).ok())
            .filter(|s| empty.binary_search(s).is_ok())
            .and_then(|s| facts.elements.get_mut(s))
        else {
            continue;
        };
        *slot = Some(ElementFacts {
            display: "none".into(),
            ..ElementFacts::default()
        });
    }
    Ok(())
}

/// One `DOMSnapshot.captureSnapshot` of the stamped page, parsed.
async fn take_snapshot(
    conn: &Connection,
    session: &str,
    count: usize,
    timeout: Duration,
) -> Result<Snapshot, BrowserError> {
    // Without `includeDOMRects`: the offset, client and scroll rects of
    // every node cost the browser about a third of the snapshot on a large
    // page, and the rules read the scroll and client sizes only of boxes
    // that scroll ([`scroll_sizes`]).
    let snap = conn
        .call(
            Some(session),
            "DOMSnapshot.captureSnapshot",
            json!({
                "computedStyles": STYLES,
                "includeBlendedBackgroundColors": true,
                "includeTextColorOpacities": true,
            }),
            timeout,
        )
        .await?;
    parse_snapshot(&snap, count)
}

/// Shows the content of the `content-visibility: auto` boxes stamped
/// `stamps`, and of such boxes inside them (found by walking their content,
/// for at most [`REVEAL_MS`]): a style sheet the document adopts sets them
/// `visible`, which lays their content out as when a reader scrolls to
/// them. Answers how many boxes it shows. The sheet stays for the rest of
/// the render (the pictures and the keyboard walk see the same page); it
/// is not part of the serialized DOM.
fn reveal_script(stamps: &[u32]) -> String {
    format!(
        "((stamps) => {{ {find} \
         const shown = new Set(); let last = null; const t0 = performance.now(); \
         for (const s of stamps) {{ const e = find(s); if (!e) continue; shown.add(s); \
           if (last && last.contains(e)) continue; last = e; \
           const w = document.createTreeWalker(e, NodeFilter.SHOW_ELEMENT); \
           while (w.nextNode() && performance.now() - t0 < {REVEAL_MS}) {{ const d = w.currentNode; \
             const ds = d.getAttribute('{STAMP_ATTR}'); if (ds === null || !/^[0-9]+$/.test(ds)) continue; \
             if (getComputedStyle(d).contentVisibility === 'auto') shown.add(Number(ds)); }} }} \
         if (!shown.size) return 0; \
         const sheet = new CSSStyleSheet(); \
         sheet.replaceSync(':is(' + [...shown].map((s) => '[{STAMP_ATTR}=\"' + s + '\"]').join(',') + ') {{ content-visibility: visible !important; }}'); \
         document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]; \
         return shown.size; }})({list})",
        find = find_by_stamp_js(),
        list = Value::from(stamps.to_vec()),
    )
}

/// Whether a computed `overflow-x` or `overflow-y` lets the box scroll.
fn scrolls(overflow: &str) -> bool {
    matches!(overflow, "auto" | "scroll")
}

/// Reads the scroll and client sizes (`scrollLeft`, `scrollTop`,
/// `scrollWidth`, `scrollHeight`; `clientLeft`, `clientTop`, `clientWidth`,
/// `clientHeight`: what the snapshot's DOM rects hold) of the rendered
/// elements whose computed overflow scrolls in an axis, found by their
/// stamps, in one call. Every value is checked; an element not found (a
/// script removed it) keeps none.
async fn scroll_sizes(
    conn: &Connection,
    session: &str,
    facts: &mut RenderedFacts,
    timeout: Duration,
) -> Result<(), BrowserError> {
    let stamps: Vec<usize> = facts
        .elements
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.as_ref().is_some_and(|f| {
                f.bounds.is_some() && (scrolls(&f.overflow_x) || scrolls(&f.overflow_y))
            })
        })
        .map(|(i, _)| i)
        .collect();
    if stamps.is_empty() {
        return Ok(());
    }
    let expr = format!(
        "((stamps) => {{ {} \
         return stamps.map((s) => {{ const el = find(s); \
         return el ? [el.scrollLeft, el.scrollTop, el.scrollWidth, el.scrollHeight, el.clientLeft, el.clientTop, el.clientWidth, el.clientHeight] : null; }}); }})({})",
        find_by_stamp_js(),
        Value::from(stamps.clone())
    );
    let sizes = eval(conn, session, &expr, timeout).await?;
    let sizes = sizes.as_array().map(Vec::as_slice).unwrap_or_default();
    for (stamp, v) in stamps.iter().zip(sizes) {
        let Some(a) = v.as_array().filter(|a| a.len() == 8) else {
            continue;
        };
        let n: Vec<f32> = a
            .iter()
            .filter_map(Value::as_f64)
            .filter(|f| f.is_finite())
            .map(|f| f as f32)
            .collect();
        let (Some(f), &[sx, sy, sw, sh, cx, cy, cw, ch]) = (
            facts.elements.get_mut(*stamp).and_then(Option::as_mut),
            n.as_slice(),
        ) else {
            continue;
        };
        f.scroll = Some(Rect {
            x: sx,
            y: sy,
            width: sw,
            height: sh,
        });
        f.client = Some(Rect {
            x: cx,
            y: cy,
            width: cw,
            height: ch,
        });
    }
    Ok(())
}

fn bad(what: &str) -> BrowserError {
    BrowserError::Protocol(format!("snapshot without {what}"))
}

/// Reads the main document of a `DOMSnapshot.captureSnapshot` answer into
/// facts for `count` stamped elements.
pub(crate) fn parse_snapshot(snap: &Value, count: usize) -> Result<Snapshot, BrowserError> {
    let strings: Vec<&str> = snap
        .get("strings")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("strings"))?
        .iter()
        .map(|s| s.as_str().unwrap_or(""))
        .collect();
    let string = |v: Option<&Value>| -> Option<&str> {
        let i = usize::try_from(v?.as_i64()?).ok()?;
        strings.get(i).copied()
    };
    let doc = snap
        .get("documents")
        .and_then(Value::as_array)
        .and_then(|d| d.first())
        .ok_or_else(|| bad("documents"))?;
    let nodes = doc.get("nodes").ok_or_else(|| bad("nodes"))?;
    let attributes = nodes
        .get("attributes")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("attributes"))?;
    // Node index -> stamp.
    let stamp_name = strings.iter().position(|s| *s == STAMP_ATTR);
    let mut stamp_of: Vec<Option<u32>> = vec![None; attributes.len()];
    if let Some(name) = stamp_name {
        for (node, attrs) in attributes.iter().enumerate() {
            let Some(attrs) = attrs.as_array() else {
                continue;
            };
            for pair in attrs.chunks(2) {
                if pair.first().and_then(Value::as_i64) == Some(name as i64) {
                    stamp_of[node] = string(pair.get(1))
                        .and_then(|v| v.parse::<u32>().ok())
                        .filter(|s| (*s as usize) < count);
                }
            }
        }
    }

    let mut backend: Vec<Option<i64>> = vec![None; count];
    if let Some(ids) = nodes.get("backendNodeId").and_then(Value::as_array) {
        for (node, stamp) in stamp_of.iter().enumerate() {
            if let (Some(stamp), Some(id)) = (stamp, ids.get(node).and_then(Value::as_i64)) {
                backend[*stamp as usize] = Some(id);
            }
        }
    }
    let mut elements: Vec<Option<ElementFacts>> = vec![None; count];
    let mut deferred = Vec::new();
    // Every stamped element the snapshot holds gets facts; those without a
    // layout box keep the defaults below (no bounds: not rendered).
    for stamp in stamp_of.iter().flatten() {
        elements[*stamp as usize] = Some(ElementFacts {
            display: "none".into(),
            ..ElementFacts::default()
        });
    }
    let layout = doc.get("layout").ok_or_else(|| bad("layout"))?;
    let arr = |name: &str| layout.get(name).and_then(Value::as_array);
    let node_index = arr("nodeIndex").ok_or_else(|| bad("layout nodes"))?;
    let styles = arr("styles");
    let bounds = arr("bounds");
    let scroll = arr("scrollRects");
    let client = arr("clientRects");
    let blended = arr("blendedBackgroundColors");
    let opacities = arr("textColorOpacities");
    let rect = |v: Option<&Value>| -> Option<Rect> {
        let a = v?.as_array()?;
        let n = |i: usize| a.get(i).and_then(Value::as_f64).map(|f| f as f32);
        Some(Rect {
            x: n(0)?,
            y: n(1)?,
            width: n(2)?,
            height: n(3)?,
        })
    };
    for (li, node) in node_index.iter().enumerate() {
        let Some(node) = node.as_u64().and_then(|n| usize::try_from(n).ok()) else {
            continue;
        };
        let Some(Some(stamp)) = stamp_of.get(node) else {
            continue;
        };
        let Some(slot) = elements.get_mut(*stamp as usize) else {
            continue;
        };
        // An element has one layout entry (its text has entries of its own).
        if slot.as_ref().is_some_and(|f| f.bounds.is_some()) {
            continue;
        }
        let style: Vec<&str> = styles
            .and_then(|s| s.get(li))
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|v| string(Some(v)).unwrap_or("")).collect())
            .unwrap_or_default();
        // By place, found at compile time ([`style_at`]): this runs for every
        // element of the page.
        let prop = |i: usize| -> &str { style.get(i).copied().unwrap_or("") };
        let px = |v: &str| {
            v.trim_end_matches("px")
                .trim()
                .parse::<f32>()
                .unwrap_or(0.0)
        };
        if prop(const { style_at("content-visibility") }) == "auto" {
            deferred.push(*stamp);
        }
        *slot = Some(ElementFacts {
            display: prop(const { style_at("display") }).to_string(),
            visibility: prop(const { style_at("visibility") }).to_string(),
            opacity: prop(const { style_at("opacity") })
                .trim()
                .parse()
                .unwrap_or(1.0),
            color: Rgba::parse(prop(const { style_at("color") })),
            font_size: px(prop(const { style_at("font-size") })),
            font_weight: prop(const { style_at("font-weight") })
                .trim()
                .parse()
                .unwrap_or(400.0),
            overflow_x: prop(const { style_at("overflow-x") }).to_string(),
            overflow_y: prop(const { style_at("overflow-y") }).to_string(),
            bounds: rect(bounds.and_then(|b| b.get(li))).or(Some(Rect::default())),
            scroll: rect(scroll.and_then(|b| b.get(li))),
            client: rect(client.and_then(|b| b.get(li))),
            background: string(blended.and_then(|b| b.get(li))).and_then(Rgba::parse),
            text_opacity: opacities
                .and_then(|o| o.get(li))
                .and_then(Value::as_f64)
                .map(|f| f as f32),
            // Measured later, for the few elements that need it
            // (super::backdrop).
            backdrop: None,
            background_color: Rgba::parse(prop(const { style_at("background-color") })),
            background_image: match prop(const { style_at("background-image") }) {
                "" => None,
                v if v.len() > MAX_BACKGROUND_IMAGE => Some("url()".into()),
                v => Some(v.to_string()),
            },
            // Taken later, for links only (super::states).
            states: None,
            ink: Some(ink_overflow(
                prop(const { style_at("outline-style") }),
                prop(const { style_at("outline-width") }),
                prop(const { style_at("outline-offset") }),
                prop(const { style_at("box-shadow") }),
                prop(const { style_at("filter") }),
            )),
        });
    }
    Ok(Snapshot {
        facts: RenderedFacts {
            elements,
            ..RenderedFacts::default()
        },
        backend,
        deferred,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_maps_onto_stamps_whatever_the_node_order() {
        // Nodes: 0 document, 1 html (stamp 1), 2 a script-added div (no
        // stamp), 3 p (stamp 0), 4 text; the p's layout entry comes first.
        let snap = json!({
            "strings": ["data-sitescan-node", "1", "0", "block", "visible", "1", "rgb(255, 0, 0)",
                        "16px", "700", "visible", "visible", "rgb(0, 0, 255)", "inline", "0.5",
                        "rgb(0, 128, 0)", "linear-gradient(red, blue)"],
            "documents": [{
                "nodes": {"attributes": [[], [0, 1], [], [0, 2], []], "backendNodeId": [10, 11, 12, 13, 14]},
                "layout": {
                    "nodeIndex": [3, 1, 4, 2],
                    "styles": [[3, 4, 13, 6, 7, 8, 9, 10, 14, 15], [3, 4, 5, 6, 7, 8, 9, 10], [], [12]],
                    "bounds": [[8, 8, 100, 20], [0, 0, 1280, 800], [8, 8, 50, 20], [0, 0, 1, 1]],
                    "scrollRects": [[0, 0, 100, 20], [0, 0, 1280, 800], [], []],
                    "clientRects": [[0, 0, 100, 20], [0, 0, 1280, 800], [], []],
                    "blendedBackgroundColors": [11, 11, -1, -1],
                    "textColorOpacities": [0.5, 1, 1, 1]
                }
            }]
        });
        let Snapshot {
            facts: f,
            backend,
            deferred,
        } = parse_snapshot(&snap, 3).unwrap();
        assert!(deferred.is_empty());
        // Each stamp names its element's backend node; stamp 2 is no node's.
        assert_eq!(backend, [Some(13), Some(11), None]);
        let p = f.element(0).unwrap();
        assert_eq!(p.display, "block");
        assert_eq!(p.opacity, 0.5);
        assert_eq!(p.color, Rgba::parse("red"));
        assert_eq!(p.background, Rgba::parse("blue"));
        assert_eq!(p.text_opacity, Some(0.5));
        assert_eq!(p.background_color, Rgba::parse("rgb(0, 128, 0)"));
        assert_eq!(
            p.background_image.as_deref(),
            Some("linear-gradient(red, blue)")
        );
        // The html element's answer holds no background: not read.
        let html = f.element(1).unwrap();
        assert_eq!(
            (html.background_color, html.background_image.as_deref()),
            (None, None)
        );
        assert_eq!((p.font_size, p.font_weight), (16.0, 700.0));
        assert_eq!(p.bounds.unwrap().width, 100.0);
        assert!(f.element(1).unwrap().is_visible());
        // Stamp 2 was never in the snapshot (removed by a script).
        assert!(f.element(2).is_none());
        // An unusable answer is an error, never a panic.
        assert!(parse_snapshot(&json!({"strings": 3}), 1).is_err());
        assert!(parse_snapshot(&json!({"strings": [], "documents": []}), 1).is_err());
    }
}
