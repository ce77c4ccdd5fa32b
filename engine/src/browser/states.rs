//! Links shown hovered and focused, for the rules that need
//! [`sitescan_rules::Need::LinkStates`] (`link-in-text-block`): whether a link
//! told apart from its text by colour alone shows another cue when a user
//! points at it or tabs to it.
//!
//! The stylesheets' `:hover` and `:focus` rules cannot answer that on their
//! own (which rule wins, what a shorthand leaves, what a script's styles
//! add), and moving a real pointer over each link would cost a scroll, an
//! input event and a frame per link. So the states are forced instead, with
//! `CSS.forcePseudoState`, as the DevTools' element panel does:
//!
//! 1. One script in an isolated world picks the links to look at (rendered
//!    `a[href]` elements without an underline at rest, in document order, at
//!    most [`MAX_STATE_LINKS`]), reads each one's look at rest and lists
//!    their ancestors, by their stamps ([`super::facts`]).
//! 2. `DOM.pushNodesByBackendIdsToFrontend` gives the protocol's node ids
//!    of the same elements from the backend node ids the snapshot reported
//!    for their stamps (a selector list of a thousand stamps costs the
//!    browser half a second a query on a large page).
//! 3. `:hover` is forced on all the links and all their ancestors at once (a
//!    real pointer over a link hovers its ancestors too, and a rule such as
//!    `p:hover a` counts), and one script reads every link's look.
//! 4. `:focus` and `:focus-visible` are forced on the links, `:focus-within`
//!    on their ancestors, and the looks are read again.
//! 5. The CSS and DOM domains are disabled, which takes every forced state
//!    off.
//!
//! Forcing all the links at once costs one style pass per state instead of
//! one per link; what it gives up is a style that depends on *another* link
//! being hovered or focused (a sibling combinator, `:has()`), which reads as
//! if it were. The rule's documentation says so.
//!
//! Bounded: at most [`MAX_STATE_LINKS`] links and their ancestors (each
//! ancestor walk at most 256 steps), picked within [`PICK_MS`], each look
//! reading at most 32 elements inside the link and 32 ancestors, every string cut at 256 bytes, every
//! call under the call timeout. Whatever fails leaves the links without
//! states (the rule then reads the stylesheets), never the render.

use std::time::Duration;

use futures::future::try_join_all;
use serde_json::{json, Value};
use sitescan_rules::css::color::Rgba;
use sitescan_rules::rendered::{
    LinkStates, RenderedFacts, StateStyle, MAX_STATE_LINKS, STAMP_ATTR,
};

use super::cdp::{Connection, Wait, World};
use super::BrowserError;

/// The script's function computing one element's look, as an array in the
/// order [`parse_look`] reads. An underline counts on the link, on one of
/// the first 32 elements inside it, or on an ancestor whose decoration
/// reaches the link's text (inline ancestors, then the first box that is
/// not inline). The link's `::before` and `::after` boxes, when they have
/// content, are described by what a hover effect drawn with them changes
/// (an underline that grows, a bar that appears).
const LOOK: &str = "const look = (el) => { \
  const cs = getComputedStyle(el); \
  const line = (c) => String(c.textDecorationLine || '').includes('underline'); \
  let underline = line(cs); \
  if (!underline) { const w = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT); \
    for (let d = w.nextNode(), n = 0; d && n < 32; d = w.nextNode(), n++) { if (line(getComputedStyle(d))) { underline = true; break; } } } \
  if (!underline) { let p = el.parentElement; for (let k = 0; p && k < 32; k++, p = p.parentElement) { const pc = getComputedStyle(p); \
    if (line(pc)) { underline = true; break; } if (pc.display !== 'inline' && pc.display !== 'contents') break; } } \
  const px = (v) => parseFloat(v) || 0; \
  const cut = (v) => { v = String(v); return v.length > 256 ? v.slice(0, 256) : v; }; \
  const drawn = (w) => { const p = getComputedStyle(el, w); if (p.content === 'none' || p.content === 'normal' || p.display === 'none') return ''; \
    return [w, p.content, p.width, p.height, p.backgroundColor, p.backgroundImage, p.borderBottomStyle, p.borderBottomWidth, p.opacity, p.transform, p.visibility].join('|'); }; \
  return [underline, \
    cs.borderBottomStyle !== 'none' && cs.borderBottomStyle !== 'hidden' && px(cs.borderBottomWidth) > 0, \
    cs.outlineStyle !== 'none' && px(cs.outlineWidth) > 0, \
    cut(cs.boxShadow), cut(cs.backgroundColor), cut(cs.backgroundImage), px(cs.fontWeight), cut(cs.fontStyle), cut(cs.fontFamily), \
    cut(drawn('::before') + ' ' + drawn('::after'))]; };";

/// Stops transitions while the states are forced, so that each look is the
/// state's own and not the first frame of a transition towards it (`a {
/// transition: background-color .3s }` would read as unchanged): a
/// constructed sheet adopted by the document, no element added, kept in the
/// isolated world for [`THAW`].
const FREEZE: &str = "const frozen = new CSSStyleSheet(); \
  frozen.replaceSync('*, *::before, *::after { transition: none !important }'); \
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, frozen]; window.__sitescanStates = frozen;";

/// Takes [`FREEZE`]'s sheet off, once the states are back to rest (nothing
/// is left to transition).
const THAW: &str = "(() => { const f = window.__sitescanStates; if (f) { \
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== f); delete window.__sitescanStates; } })()";

/// Longest the pick script looks for links, in milliseconds: a page built
/// to make each link's checks slow (deep nesting, many blocks of many text
/// nodes) gets its first links' states and no more.
const PICK_MS: u32 = 2000;

/// Picks the links and reads their looks at rest: answers `[links, rest
/// looks, ancestors]`, stamps as numbers. A link's walk up its ancestors
/// stops at one already listed (its own are listed too), so the walks cost
/// the ancestors' number, not the links' times the depth.
///
/// A link is picked when the rule would ask for its states, by the rule's
/// own tests taken from the browser's styles: it is rendered; it sits in
/// running text (its nearest box that is not inline holds a letter or digit
/// outside every link in its own lines; the first 500 text nodes looked at,
/// each box's answer kept); it has no underline or bottom border at rest and
/// the weight and style of that box's text; and its colour and the box's,
/// each over white, differ by 3:1 or more (a colour the script cannot read
/// counts as differing). A link left out keeps no states and the rule reads
/// the stylesheets for it, so the cap goes to the links whose answer turns
/// on their states, not to menus, lists of links, or links decided at
/// rest.
fn pick_script() -> String {
    format!(
        "(() => {{ {LOOK} \
         const blockOf = (el) => {{ for (let p = el, k = 0; p && k < 256; k++, p = p.parentElement) {{ \
           const d = getComputedStyle(p).display; if (!d.startsWith('inline') && d !== 'contents') return p; }} return null; }}; \
         const texty = new Map(); \
         const lum = (c) => {{ const m = /^rgba?\\(([0-9.]+),\\s*([0-9.]+),\\s*([0-9.]+)(?:,\\s*([0-9.]+))?\\)$/.exec(c); if (!m) return null; \
           const a = m[4] === undefined ? 1 : Number(m[4]); \
           const ch = (v) => {{ v = (Number(v) * a + 255 * (1 - a)) / 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }}; \
           return 0.2126 * ch(m[1]) + 0.7152 * ch(m[2]) + 0.0722 * ch(m[3]); }}; \
         const apart = (x, y) => {{ const p = lum(x), q = lum(y); if (p === null || q === null) return true; \
           return (Math.max(p, q) + 0.05) / (Math.min(p, q) + 0.05) >= 3; }}; \
         const hasText = (b) => {{ if (texty.has(b)) return texty.get(b); let found = false; \
           const w = document.createTreeWalker(b, NodeFilter.SHOW_TEXT); let n, k = 0; \
           while (!found && (n = w.nextNode()) && k++ < 500) {{ \
             if (!/[\\p{{L}}\\p{{N}}]/u.test(n.data)) continue; const p = n.parentElement; \
             if (!p || p.closest('a[href]')) continue; if (blockOf(p) === b) found = true; }} \
           texty.set(b, found); return found; }}; \
         const links = [], rest = [], anc = new Set(); \
         const t0 = performance.now(); \
         for (const a of document.querySelectorAll('a[href]')) {{ \
           if (links.length >= {MAX_STATE_LINKS} || performance.now() - t0 > {PICK_MS}) break; \
           const s = a.getAttribute('{STAMP_ATTR}'); if (s === null || !/^[0-9]+$/.test(s)) continue; \
           if (!a.getClientRects().length) continue; \
           const b = a.parentElement ? blockOf(a.parentElement) : null; if (!b || !hasText(b)) continue; \
           const l = look(a); if (l[0] || l[1]) continue; \
           const cs = getComputedStyle(a), bs = getComputedStyle(b); \
           if ((parseFloat(cs.fontWeight) >= 700) !== (parseFloat(bs.fontWeight) >= 700) || cs.fontStyle !== bs.fontStyle) continue; \
           if (!apart(cs.color, bs.color)) continue; \
           links.push(Number(s)); rest.push(l); \
           let p = a.parentElement; \
           for (let k = 0; p && k < 256; k++, p = p.parentElement) {{ \
             const ps = p.getAttribute('{STAMP_ATTR}'); if (ps === null || !/^[0-9]+$/.test(ps)) continue; \
             if (anc.has(Number(ps))) break; anc.add(Number(ps)); }} }} \
         for (const s of links) anc.delete(s); \
         if (links.length) {{ {FREEZE} }} \
         return [links, rest, [...anc]]; }})()"
    )
}

/// Reads the looks of the links stamped `stamps`, in that order (`null` for
/// one no longer there).
fn read_script(stamps: &[u32]) -> String {
    format!(
        "((stamps) => {{ {LOOK} {} \
         return stamps.map((s) => {{ const el = find(s); return el ? look(el) : null; }}); }})({})",
        super::facts::find_by_stamp_js(),
        Value::from(stamps.to_vec())
    )
}

/// Reads one look the script answered.
fn parse_look(v: &Value) -> Option<StateStyle> {
    let a = v.as_array().filter(|a| a.len() == 10)?;
    let flag = |i: usize| a.get(i).and_then(Value::as_bool);
    let text = |i: usize| {
        a.get(i)
            .and_then(Value::as_str)
            .map(|s| sitescan_rules::dom::truncate_chars(s, 256))
    };
    Some(StateStyle {
        underline: flag(0)?,
        border_bottom: flag(1)?,
        outline: flag(2)?,
        box_shadow: text(3)?,
        background_color: text(4).and_then(|c| Rgba::parse(&c)),
        background_image: text(5)?,
        font_weight: a.get(6).and_then(Value::as_f64).filter(|f| f.is_finite())? as f32,
        font_style: text(7)?,
        font_family: text(8)?,
        drawn: text(9)?.trim().to_string(),
    })
}

/// The protocol's node ids of the elements stamped `stamps`, by the
/// backend node ids the snapshot gave (`backend`, per stamp); those without
/// one, or gone, are left out.
async fn node_ids(
    conn: &Connection,
    session: &str,
    backend: &[Option<i64>],
    stamps: &[u32],
    timeout: Duration,
) -> Result<Vec<i64>, BrowserError> {
    let ids: Vec<i64> = stamps
        .iter()
        .filter_map(|s| backend.get(*s as usize).copied().flatten())
        .collect();
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let found = conn
        .call(
            Some(session),
            "DOM.pushNodesByBackendIdsToFrontend",
            json!({"backendNodeIds": ids}),
            timeout,
        )
        .await?;
    Ok(found
        .get("nodeIds")
        .and_then(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(Value::as_i64)
                .filter(|id| *id > 0)
                .collect()
        })
        .unwrap_or_default())
}

/// Forces `classes` on each node of `nodes`, the calls sent together.
async fn force(
    conn: &Connection,
    session: &str,
    nodes: &[i64],
    classes: &[&str],
    timeout: Duration,
) -> Result<(), BrowserError> {
    try_join_all(nodes.iter().map(|id| {
        conn.call(
            Some(session),
            "CSS.forcePseudoState",
            json!({"nodeId": id, "forcedPseudoClasses": classes}),
            timeout,
        )
    }))
    .await
    .map(drop)
}

/// Reads the looks of `stamps` in `world`: one per stamp, `None` where the
/// element or its look is missing.
async fn read(
    conn: &Connection,
    session: &str,
    world: i64,
    stamps: &[u32],
    timeout: Duration,
) -> Result<Vec<Option<StateStyle>>, BrowserError> {
    let looks = conn
        .evaluate(
            session,
            World::Isolated(world),
            &read_script(stamps),
            Wait::Value,
            timeout,
        )
        .await?;
    let looks = looks.as_array().map(Vec::as_slice).unwrap_or_default();
    Ok((0..stamps.len())
        .map(|i| looks.get(i).and_then(parse_look))
        .collect())
}

/// The most [`measure`] takes when every call takes its whole timeout: its
/// 15 sequential calls (the force batches run their calls together).
pub(crate) fn budget(call_timeout: Duration) -> Duration {
    call_timeout * 15
}

/// Shows the page's links hovered and focused and puts their looks on
/// `facts` ([`sitescan_rules::rendered::ElementFacts::states`]). The tab
/// `session` (main frame `frame`) is left as it was: every forced state
/// taken off. An error leaves the links without states; a hung tab or a
/// crash is the caller's to fail the page on.
pub(crate) async fn measure(
    conn: &Connection,
    session: &str,
    frame: &str,
    backend: &[Option<i64>],
    facts: &mut RenderedFacts,
    timeout: Duration,
) -> Result<(), BrowserError> {
    let world = conn
        .isolated_world(session, frame, "sitescan-states", timeout)
        .await?;
    let picked = conn
        .evaluate(
            session,
            World::Isolated(world),
            &pick_script(),
            Wait::Value,
            timeout,
        )
        .await?;
    let stamps = |i: usize| -> Vec<u32> {
        picked
            .get(i)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_u64)
                    .filter_map(|s| u32::try_from(s).ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    let links = stamps(0);
    let ancestors = stamps(2);
    let rest: Vec<Option<StateStyle>> = picked
        .get(1)
        .and_then(Value::as_array)
        .map(|a| a.iter().map(parse_look).collect())
        .unwrap_or_default();
    if links.is_empty() || rest.len() != links.len() {
        return Ok(());
    }
    let s = Some(session);
    let looked = async {
        conn.call(s, "DOM.enable", json!({}), timeout).await?;
        conn.call(s, "CSS.enable", json!({}), timeout).await?;
        // Nodes are pushed only to a client that has the document.
        conn.call(s, "DOM.getDocument", json!({"depth": 0}), timeout)
            .await?;
        let link_nodes = node_ids(conn, session, backend, &links, timeout).await?;
        let ancestor_nodes = node_ids(conn, session, backend, &ancestors, timeout).await?;
        let mut all = link_nodes.clone();
        all.extend_from_slice(&ancestor_nodes);
        force(conn, session, &all, &["hover"], timeout).await?;
        let hover = read(conn, session, world, &links, timeout).await;
        force(
            conn,
            session,
            &link_nodes,
            &["focus", "focus-visible"],
            timeout,
        )
        .await?;
        // The ancestors' `:hover` off (else `p:hover a` would count as a
        // focus cue), and `:focus-within` on: Chromium 156 matches it on
        // the ancestors of an element forced to `:focus` by itself, older
        // ones do not.
        force(conn, session, &ancestor_nodes, &["focus-within"], timeout).await?;
        let focus = read(conn, session, world, &links, timeout).await;
        Ok::<_, BrowserError>((hover?, focus?))
    }
    .await;
    // Off whatever happened above: disabling the CSS domain drops every
    // forced state at once (a call per node would cost a quarter of a second
    // on a page of a thousand links), so the pictures and the keyboard walk
    // after this see the page as it was; then transitions run again.
    let css_off = conn.call(s, "CSS.disable", json!({}), timeout).await;
    let thawed = conn
        .evaluate(session, World::Isolated(world), THAW, Wait::Value, timeout)
        .await;
    let dom_off = conn.call(s, "DOM.disable", json!({}), timeout).await;
    let (hover, focus) = looked?;
    css_off?;
    thawed?;
    dom_off?;
    for (i, stamp) in links.iter().enumerate() {
        let (Some(Some(rest)), Some(Some(hover)), Some(Some(focus))) =
            (rest.get(i), hover.get(i), focus.get(i))
        else {
            continue;
        };
        if let Some(f) = facts
            .elements
            .get_mut(*stamp as usize)
            .and_then(Option::as_mut)
        {
            f.states = Some(Box::new(LinkStates {
                rest: rest.clone(),
                hover: hover.clone(),
                focus: focus.clone(),
            }));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_look_is_read_only_whole() {
        let v = json!([
            false,
            true,
            false,
            "none",
            "rgba(0, 0, 0, 0)",
            "none",
            700,
            "normal",
            "serif",
            " ::after|\"\"|0px|2px"
        ]);
        let look = parse_look(&v).unwrap();
        assert!(look.border_bottom && !look.underline && !look.outline);
        assert_eq!(look.font_weight, 700.0);
        assert_eq!(look.background_color, Rgba::parse("transparent"));
        assert_eq!(look.drawn, "::after|\"\"|0px|2px");
        // Short, mistyped or not an array: no look.
        assert_eq!(parse_look(&json!([false, true])), None);
        assert_eq!(
            parse_look(&json!(["x", true, false, "", "", "", 1, "", "", ""])),
            None
        );
        assert_eq!(parse_look(&json!("look")), None);
    }
}
