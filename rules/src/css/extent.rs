//! Rough bounds on how much room content takes, for rules that ask whether it
//! overflows a box of fixed size (scrollable regions, text clipped at 200% zoom).
//!
//! Not a layout engine (there is none to reuse without a browser): text width
//! is bounded per character, between the narrowest and the widest proportional
//! text fonts in common use (condensed sans to Verdana-like widths), line
//! height between 1.0 and 1.4 times the font size when `normal`, and block
//! margins between none and the user-agent defaults. A rule decides only when
//! the whole range is on one side of the box's size, and says *cannot tell*
//! otherwise.

use scraper::{ElementRef, Node};

use crate::css::{ComputedStyle, Styles, Viewport};

/// A lower and an upper bound, in CSS pixels (`hi` may be infinite).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// No less than this.
    pub lo: f32,
    /// No more than this.
    pub hi: f32,
}

impl Bounds {
    /// Exactly `v`.
    pub fn exact(v: f32) -> Bounds {
        Bounds { lo: v, hi: v }
    }
}

/// Width of one character in em: (narrowest, widest) over common text fonts.
fn char_em(c: char) -> (f32, f32) {
    if c.is_whitespace() {
        (0.2, 0.35)
    } else if matches!(
        c,
        'i' | 'l'
            | 'j'
            | 't'
            | 'f'
            | 'r'
            | 'I'
            | '|'
            | '!'
            | '.'
            | ','
            | ':'
            | ';'
            | '\''
            | '’'
            | '‘'
    ) {
        (0.15, 0.42)
    } else if matches!(c, 'm' | 'w' | 'M' | 'W' | '@' | '%') {
        (0.6, 1.0)
    } else if c.is_ascii_punctuation() || matches!(c, '“' | '”' | '«' | '»' | '–' | '—' | '…')
    {
        (0.2, 0.6)
    } else if c.is_ascii_digit() {
        (0.45, 0.65)
    } else if c.is_uppercase() {
        (0.5, 0.8)
    } else if c.is_alphabetic() && (c as u32) < 0x2E80 {
        (0.35, 0.62)
    } else {
        // CJK and other full-width characters.
        (0.8, 1.05)
    }
}

/// Bounds on the width of `text` (white space collapsed) at `font_px`.
pub fn text_width(text: &str, font_px: f32) -> Bounds {
    let mut lo = 0.0;
    let mut hi = 0.0;
    let mut space = false;
    for c in text.trim().chars() {
        if c.is_whitespace() {
            if space {
                continue;
            }
            space = true;
        } else {
            space = false;
        }
        let (l, h) = char_em(c);
        lo += l;
        hi += h;
    }
    Bounds {
        lo: lo * font_px,
        hi: hi * font_px,
    }
}

/// A length resolved against the element's font size and a viewport; `None` for
/// percentages, `auto`, `calc()` and other values that need layout.
pub fn length(value: &str, font_px: f32, viewport: Viewport) -> Option<f32> {
    let v = value.trim();
    if v == "0" {
        return Some(0.0);
    }
    let units: [(&str, f32); 8] = [
        ("px", 1.0),
        ("rem", 16.0),
        ("em", font_px),
        ("vw", viewport.width / 100.0),
        ("vh", viewport.height / 100.0),
        ("pt", 4.0 / 3.0),
        ("cm", 37.8),
        ("mm", 3.78),
    ];
    for (unit, factor) in units {
        if let Some(n) = v.strip_suffix(unit) {
            return n.trim().parse::<f32>().ok().map(|x| x * factor);
        }
    }
    None
}

/// Bounds on the line height of text in `style`.
pub fn line_height(style: &ComputedStyle, viewport: Viewport) -> Bounds {
    let fs = style.font_size;
    match style.get("line-height").map(str::trim) {
        None | Some("normal" | "inherit" | "initial" | "unset") => Bounds {
            lo: fs,
            hi: fs * 1.4,
        },
        Some(v) => match v.parse::<f32>() {
            Ok(n) => Bounds::exact(n * fs),
            Err(_) => match v
                .strip_suffix('%')
                .and_then(|n| n.trim().parse::<f32>().ok())
            {
                Some(p) => Bounds::exact(p / 100.0 * fs),
                None => length(v, fs, viewport).map_or(
                    Bounds {
                        lo: fs,
                        hi: fs * 1.4,
                    },
                    Bounds::exact,
                ),
            },
        },
    }
}

/// The padding of each side (top, right, bottom, left) in pixels, unknown sides 0.
pub fn padding(style: &ComputedStyle, viewport: Viewport) -> [f32; 4] {
    let fs = style.font_size;
    let px = |v: &str| length(v, fs, viewport).unwrap_or(0.0);
    let mut out = [0.0; 4];
    if let Some(short) = style.get("padding") {
        let parts: Vec<f32> = short.split_whitespace().map(px).collect();
        out = match parts.as_slice() {
            [a] => [*a, *a, *a, *a],
            [a, b] => [*a, *b, *a, *b],
            [a, b, c] => [*a, *b, *c, *b],
            [a, b, c, d, ..] => [*a, *b, *c, *d],
            [] => out,
        };
    }
    for (i, side) in [
        "padding-top",
        "padding-right",
        "padding-bottom",
        "padding-left",
    ]
    .iter()
    .enumerate()
    {
        if let Some(v) = style.get(side) {
            out[i] = px(v);
        }
    }
    out
}

/// The computed `overflow` of one axis (`x` or `y`): `visible`, `hidden`, `clip`,
/// `auto` or `scroll`. As CSS computes it, `visible` becomes `auto` (and `clip`
/// becomes `hidden`) when the other axis is neither `visible` nor `clip`.
pub fn overflow(style: &ComputedStyle, axis: char) -> &'static str {
    let word = |name: &str, last: bool| -> &'static str {
        // Most elements declare no overflow: answer them without parsing.
        let Some(v) = style.get(name) else {
            return "visible";
        };
        let w = if last {
            v.split_whitespace().last()
        } else {
            v.split_whitespace().next()
        };
        match w.unwrap_or("visible") {
            "hidden" => "hidden",
            "clip" => "clip",
            "auto" | "overlay" => "auto",
            "scroll" => "scroll",
            _ => "visible",
        }
    };
    let (own, other) = if axis == 'x' {
        (word("overflow-x", false), word("overflow-y", true))
    } else {
        (word("overflow-y", true), word("overflow-x", false))
    };
    let other_scrolls = !matches!(other, "visible" | "clip");
    match own {
        "visible" if other_scrolls => "auto",
        "clip" if other_scrolls => "hidden",
        o => o,
    }
}

/// Whether `white-space` (inherited) keeps text on one line: `nowrap` or `pre`.
pub fn no_wrap(styles: &Styles, el: ElementRef<'_>) -> bool {
    std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .find_map(|e| styles.get(e.id()).and_then(|s| s.get("white-space")))
        .is_some_and(|v| matches!(v.trim(), "nowrap" | "pre"))
}

/// What one box's content needs, as bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContentExtent {
    /// Height of the content.
    pub height: Bounds,
    /// Width of the widest line or box that cannot wrap.
    pub width: Bounds,
    /// Whether anything visible is inside (text, an image, a control...).
    pub has_content: bool,
}

/// Block-level `display` values that start a new line.
fn is_block(display: &str) -> bool {
    matches!(
        display,
        "block"
            | "list-item"
            | "flex"
            | "grid"
            | "table"
            | "table-row"
            | "table-caption"
            | "flow-root"
    )
}

/// Upper bound of the default vertical margins (top plus bottom) of a block.
fn ua_margin_hi(tag: &str, font_px: f32) -> f32 {
    match tag {
        "p" | "ul" | "ol" | "dl" | "blockquote" | "figure" | "pre" | "fieldset" | "menu" => {
            2.0 * font_px
        }
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => 2.0 * font_px,
        _ => 0.0,
    }
}

/// One run of text between line breaks or block boundaries.
struct Run {
    width: Bounds,
    longest_word: Bounds,
    line: Bounds,
    nowrap: bool,
    /// The narrowest and widest the run's containing block can be.
    avail: Bounds,
}

/// Bounds on the content of `container` laid out in a box `avail` wide (a range
/// when the box's width is not fixed), with styles from `styles`, `viewport` for
/// relative units. Only visible content counts.
pub fn content_extent(
    styles: &Styles,
    container: ElementRef<'_>,
    avail: Bounds,
    viewport: Viewport,
    visible: &dyn Fn(ElementRef<'_>) -> bool,
) -> ContentExtent {
    let mut runs: Vec<Run> = Vec::new();
    let mut extra_height = Bounds::exact(0.0);
    let mut width = Bounds::exact(0.0);
    let mut has_content = false;
    let mut current: Option<Run> = None;
    let flush = |current: &mut Option<Run>, runs: &mut Vec<Run>| {
        if let Some(r) = current.take() {
            runs.push(r);
        }
    };
    walk(
        styles,
        container,
        avail,
        viewport,
        visible,
        &mut |event| match event {
            Event::Text {
                text,
                style,
                nowrap,
                avail,
            } => {
                has_content = true;
                let w = text_width(text, style.font_size);
                let longest = text
                    .split_whitespace()
                    .map(|word| text_width(word, style.font_size))
                    .fold(Bounds::exact(0.0), |a, b| Bounds {
                        lo: a.lo.max(b.lo),
                        hi: a.hi.max(b.hi),
                    });
                let lh = line_height(style, viewport);
                let r = current.get_or_insert(Run {
                    width: Bounds::exact(0.0),
                    longest_word: Bounds::exact(0.0),
                    line: lh,
                    nowrap,
                    avail,
                });
                r.width.lo += w.lo;
                r.width.hi += w.hi;
                r.longest_word.lo = r.longest_word.lo.max(longest.lo);
                r.longest_word.hi = r.longest_word.hi.max(longest.hi);
                r.line.lo = r.line.lo.max(lh.lo);
                r.line.hi = r.line.hi.max(lh.hi);
            }
            Event::Inline {
                w,
                h,
                avail,
                nowrap,
            } => {
                has_content = true;
                let r = current.get_or_insert(Run {
                    width: Bounds::exact(0.0),
                    longest_word: Bounds::exact(0.0),
                    line: Bounds::exact(0.0),
                    nowrap,
                    avail,
                });
                r.width.lo += w.lo;
                r.width.hi += w.hi;
                r.longest_word.lo = r.longest_word.lo.max(w.lo);
                r.longest_word.hi = r.longest_word.hi.max(w.hi);
                r.line.lo = r.line.lo.max(h.lo);
                r.line.hi = r.line.hi.max(h.hi);
            }
            Event::Break => flush(&mut current, &mut runs),
            Event::Block {
                margin_hi,
                width: w,
            } => {
                flush(&mut current, &mut runs);
                extra_height.hi += margin_hi;
                if let Some(w) = w {
                    width.lo = width.lo.max(w);
                    width.hi = width.hi.max(w);
                }
            }
        },
    );
    flush(&mut current, &mut runs);

    let mut height = extra_height;
    for r in &runs {
        if r.nowrap {
            height.lo += r.line.lo;
            height.hi += r.line.hi;
            width.lo = width.lo.max(r.width.lo);
            width.hi = width.hi.max(r.width.hi);
            continue;
        }
        // Fewest lines: the narrowest text in the widest box; most lines: the
        // widest text in the narrowest box (each line holds at least one word).
        let lines_lo = (r.width.lo / r.avail.hi.max(1.0)).ceil().max(1.0);
        let lines_hi = if r.avail.lo <= 0.0 {
            f32::INFINITY
        } else {
            let words_per_line_min = 1.0;
            let by_width = (r.width.hi / r.avail.lo).ceil().max(1.0);
            by_width.max(words_per_line_min)
        };
        height.lo += lines_lo * r.line.lo;
        height.hi += lines_hi * r.line.hi;
        width.lo = width.lo.max(r.longest_word.lo);
        width.hi = width.hi.max(r.longest_word.hi);
    }
    ContentExtent {
        height,
        width,
        has_content,
    }
}

enum Event<'a> {
    Text {
        text: &'a str,
        style: &'a ComputedStyle,
        nowrap: bool,
        avail: Bounds,
    },
    Inline {
        w: Bounds,
        h: Bounds,
        avail: Bounds,
        nowrap: bool,
    },
    Break,
    Block {
        margin_hi: f32,
        width: Option<f32>,
    },
}

/// One element being walked: its remaining children, the width they may use,
/// and whether a block ends when they are done.
struct Frame<'a> {
    el: ElementRef<'a>,
    children: ego_tree::iter::Children<'a, Node>,
    avail: Bounds,
    break_after: bool,
}

fn walk<'a>(
    styles: &'a Styles,
    root: ElementRef<'a>,
    avail: Bounds,
    viewport: Viewport,
    visible: &dyn Fn(ElementRef<'_>) -> bool,
    emit: &mut dyn FnMut(Event<'a>),
) {
    // An explicit stack, not recursion: the walk follows the page's nesting,
    // which a hostile page makes as deep as it likes.
    let mut stack = vec![Frame {
        el: root,
        children: root.children(),
        avail,
        break_after: false,
    }];
    while let Some(frame) = stack.last_mut() {
        let (el, avail) = (frame.el, frame.avail);
        let Some(child) = frame.children.next() else {
            if stack.pop().is_some_and(|done| done.break_after) {
                emit(Event::Break);
            }
            continue;
        };
        match child.value() {
            Node::Text(t) if !t.trim().is_empty() => {
                if let Some(style) = styles.get(el.id()) {
                    if visible(el) {
                        emit(Event::Text {
                            text: t,
                            style,
                            nowrap: no_wrap(styles, el),
                            avail,
                        });
                    }
                }
            }
            Node::Element(_) => {
                let Some(kid) = ElementRef::wrap(child) else {
                    continue;
                };
                let Some(style) = styles.get(kid.id()) else {
                    continue;
                };
                if style.display == "none" || !visible(kid) {
                    continue;
                }
                let tag = kid.value().name();
                let fs = style.font_size;
                let css_w = style.get("width").and_then(|v| length(v, fs, viewport));
                let css_h = style.get("height").and_then(|v| length(v, fs, viewport));
                let attr_px = |name: &str| {
                    kid.value()
                        .attr(name)
                        .and_then(|v| v.trim().trim_end_matches("px").parse::<f32>().ok())
                };
                if tag == "br" {
                    emit(Event::Break);
                    continue;
                }
                let replaced = matches!(
                    tag,
                    "img"
                        | "svg"
                        | "video"
                        | "canvas"
                        | "iframe"
                        | "object"
                        | "embed"
                        | "input"
                        | "select"
                        | "textarea"
                        | "button"
                        | "audio"
                );
                if replaced {
                    let w = css_w.or_else(|| attr_px("width"));
                    let h = css_h.or_else(|| attr_px("height"));
                    let wb = w.map_or(
                        Bounds {
                            lo: 0.0,
                            hi: f32::INFINITY,
                        },
                        Bounds::exact,
                    );
                    let hb = h.map_or(
                        Bounds {
                            lo: 0.0,
                            hi: f32::INFINITY,
                        },
                        Bounds::exact,
                    );
                    if is_block(&style.display) {
                        emit(Event::Block {
                            margin_hi: 0.0,
                            width: w,
                        });
                        emit(Event::Inline {
                            w: wb,
                            h: hb,
                            avail,
                            nowrap: false,
                        });
                        emit(Event::Break);
                    } else {
                        emit(Event::Inline {
                            w: wb,
                            h: hb,
                            avail,
                            nowrap: no_wrap(styles, el),
                        });
                    }
                    continue;
                }
                // A box of fixed height that scrolls or clips its own content
                // takes exactly that height; what is inside is its own matter.
                let own_overflow = overflow(style, 'y') != "visible";
                if let (Some(h), true) = (css_h, own_overflow) {
                    let pad = padding(style, viewport);
                    let h = Bounds::exact(h + pad[0] + pad[2]);
                    let w =
                        css_w.map_or(Bounds::exact(0.0), |w| Bounds::exact(w + pad[1] + pad[3]));
                    if is_block(&style.display) {
                        emit(Event::Block {
                            margin_hi: ua_margin_hi(tag, fs),
                            width: css_w,
                        });
                    }
                    emit(Event::Inline {
                        w,
                        h,
                        avail,
                        nowrap: false,
                    });
                    if is_block(&style.display) {
                        emit(Event::Break);
                    }
                    continue;
                }
                if is_block(&style.display) {
                    let inner = css_w.map_or(avail, Bounds::exact);
                    emit(Event::Block {
                        margin_hi: ua_margin_hi(tag, fs),
                        width: css_w,
                    });
                    stack.push(Frame {
                        el: kid,
                        children: kid.children(),
                        avail: inner,
                        break_after: true,
                    });
                } else {
                    stack.push(Frame {
                        el: kid,
                        children: kid.children(),
                        avail,
                        break_after: false,
                    });
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_width_brackets_real_fonts() {
        // "Once upon a midnight dreary," is about 200px in 16px Times and 215px in
        // 16px Arial.
        let w = text_width("Once upon a midnight dreary,", 16.0);
        assert!(w.lo < 190.0 && w.hi > 230.0, "{w:?}");
        assert!(w.hi < 300.0);
    }

    #[test]
    fn lengths_and_overflow() {
        let vp = Viewport::ZOOMED;
        assert_eq!(length("1.5em", 16.0, vp), Some(24.0));
        assert_eq!(length("16vh", 16.0, vp), Some(81.92));
        assert_eq!(length("50%", 16.0, vp), None);
        let doc = scraper::Html::parse_document(
            r#"<div id=a style="overflow-y:hidden"></div><div id=b style="overflow:hidden auto"></div>"#,
        );
        let styles = Styles::compute(&doc, &[]);
        let get = |id: &str| {
            let sel = scraper::Selector::parse(id).unwrap_or_else(|_| unreachable!());
            let el = doc.select(&sel).next().unwrap_or_else(|| unreachable!());
            styles
                .get(el.id())
                .cloned()
                .unwrap_or_else(ComputedStyle::initial)
        };
        assert_eq!(overflow(&get("#a"), 'x'), "auto");
        assert_eq!(overflow(&get("#a"), 'y'), "hidden");
        assert_eq!(overflow(&get("#b"), 'x'), "hidden");
        assert_eq!(overflow(&get("#b"), 'y'), "auto");
    }
}
