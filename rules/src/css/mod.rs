//! The CSS a page's accessibility depends on: hidden content, contrast, text size.
//!
//! - [`parse_stylesheet`] / [`parse_declarations`]: `<style>`, linked sheets and
//!   `style` attributes, tokenised by the `cssparser` crate (the tokenizer Servo and
//!   Firefox use), so comments, strings, escapes and nested blocks are handled right.
//! - [`cascade`]: selector matching (scraper's `Selector`, i.e. the `selectors`
//!   crate), specificity, source order, `!important`, inline styles and inheritance,
//!   computed for the properties rules read ([`ComputedStyle`]).
//! - [`color`]: parsed colors, alpha compositing and WCAG contrast ratios.
//!
//! Not a layout engine: nothing here knows box sizes or positions beyond what the
//! declarations say, so rules treat positioned or overlapping content as undecidable.

pub mod cascade;
pub mod color;
pub mod extent;
pub mod import;
pub mod supports;

pub use cascade::{ComputedStyle, Styles};
pub use color::Rgba;
pub use import::{imports, media_may_apply, style_key, Import, ImportWalk, Room};
pub use supports::supports_applies;

use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;

use cssparser::{
    AtRuleParser, CowRcStr, DeclarationParser, ParseError, Parser, ParserState,
    QualifiedRuleParser, RuleBodyItemParser, RuleBodyParser, StyleSheetParser,
};

/// Stylesheet texts up to this size have their derived facts cached.
const FACTS_MAX_TEXT: usize = 1024 * 1024;
/// Total text bytes the facts cache holds; it is emptied when full.
const FACTS_MAX_BYTES: usize = 16 * 1024 * 1024;

/// Per kind of fact: the facts, and the style rules and selectors reading the
/// whole sheet took (a page with less room left must not get them).
type FactsByType = Vec<(TypeId, Arc<dyn Any + Send + Sync>, Needs)>;

/// Style rules and selectors a whole sheet's reading took.
#[derive(Clone, Copy)]
struct Needs {
    rules: usize,
    selectors: usize,
}

/// What is left of a page's caps on style rules and selectors
/// ([`crate::PageBudget::max_css_rules`], [`crate::PageBudget::max_selectors`])
/// when one of its stylesheets is read; see [`crate::PageContext::author_sheets`].
///
/// Rules that read stylesheets themselves (rather than through the cascade)
/// parse within it, so a hostile sheet costs them no more than it costs the
/// cascade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SheetCaps {
    /// Style rules that may still be parsed.
    pub rules: usize,
    /// Selectors that may still be parsed.
    pub selectors: usize,
    /// Set when a cap stopped the reading before the end of the sheet.
    pub cut: bool,
}

impl SheetCaps {
    /// No caps: for tests and callers that read a known sheet.
    pub const UNLIMITED: SheetCaps = SheetCaps {
        rules: usize::MAX,
        selectors: usize::MAX,
        cut: false,
    };

    /// The style rules of `text` (`@media` evaluated for the desktop, as
    /// [`parse_stylesheet`]) up to the rules left, which it uses up.
    pub fn parse(&mut self, text: &str) -> Vec<RawRule> {
        let (rules, cut) = parse_stylesheet_upto(text, Viewport::DESKTOP, self.rules);
        self.rules -= rules.len().min(self.rules);
        self.cut |= cut;
        rules
    }

    /// [`SheetCaps::parse`] keeping every `@media` block's rules with their
    /// conditions (as [`parse_stylesheet_all_media`]).
    pub fn parse_all_media(&mut self, text: &str) -> Vec<RawRule> {
        let (rules, cut) = parse_stylesheet_all_media_upto(text, self.rules);
        self.rules -= rules.len().min(self.rules);
        self.cut |= cut;
        rules
    }

    /// Takes one selector from what is left: false (and the sheet is marked
    /// cut) when none is.
    pub fn take_selector(&mut self) -> bool {
        if self.selectors == 0 {
            self.cut = true;
            return false;
        }
        self.selectors -= 1;
        true
    }
}

/// Facts a rule derives from one stylesheet's text (the rules that remove focus
/// outlines, the rotations under orientation queries...), computed once per
/// text and kind of fact in the process and shared.
///
/// The pages of a site link the same sheets, and parsing them again for every
/// page cost several rules more than their checks. `T` names the kind of fact:
/// each caller uses a type of its own. Keyed by the full text, bounded in bytes.
///
/// `derive` reads the sheet within `caps` (what is left of the page's caps).
/// Facts derived from a sheet read whole are cached, with what the reading
/// took, and serve every page with that much room left; a page with less gets
/// the facts of the part its caps allow, derived again and not cached. So a
/// page's result never depends on which page of the scan came first.
pub fn sheet_facts<T: Send + Sync + 'static>(
    text: &str,
    caps: SheetCaps,
    derive: impl FnOnce(&str, &mut SheetCaps) -> T,
) -> Arc<T> {
    #[derive(Default)]
    struct Cache {
        map: FxHashMap<Arc<str>, FactsByType>,
        bytes: usize,
    }
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let mut caps = caps;
    if text.len() > FACTS_MAX_TEXT {
        return Arc::new(derive(text, &mut caps));
    }
    let cache = CACHE.get_or_init(Default::default);
    // A panic while holding the lock leaves a consistent map (inserts are atomic).
    let lock = || cache.lock().unwrap_or_else(|p| p.into_inner());
    let kind = TypeId::of::<T>();
    let hit = lock().map.get(text).and_then(|facts| {
        facts
            .iter()
            .find(|(k, _, _)| *k == kind)
            .map(|(_, f, needs)| (Arc::clone(f), *needs))
    });
    if let Some((facts, needs)) = hit {
        if needs.rules <= caps.rules && needs.selectors <= caps.selectors {
            if let Ok(facts) = facts.downcast::<T>() {
                return facts;
            }
        } else {
            return Arc::new(derive(text, &mut caps));
        }
    }
    let before = caps;
    let facts = Arc::new(derive(text, &mut caps));
    if caps.cut {
        return facts;
    }
    let needs = Needs {
        rules: before.rules - caps.rules,
        selectors: before.selectors - caps.selectors,
    };
    let mut guard = lock();
    if !guard.map.contains_key(text) {
        if guard.bytes + text.len() > FACTS_MAX_BYTES {
            guard.map.clear();
            guard.bytes = 0;
        }
        guard.bytes += text.len();
    }
    let list = guard.map.entry(Arc::from(text)).or_default();
    // Another thread may have derived the same facts meanwhile: keep one.
    if let Some(existing) = list
        .iter()
        .find(|(k, _, _)| *k == kind)
        .and_then(|(_, f, _)| Arc::clone(f).downcast::<T>().ok())
    {
        return existing;
    }
    let shared: Arc<dyn Any + Send + Sync> = facts.clone();
    list.push((kind, shared, needs));
    facts
}

/// One declaration: `name: value [!important]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Declaration {
    /// Property name, lowercase.
    pub name: String,
    /// Value text without `!important`, trimmed.
    pub value: String,
    /// Whether it was marked `!important`.
    pub important: bool,
}

/// A style rule: selector text and its declarations.
#[derive(Debug, Clone, PartialEq)]
pub struct RawRule {
    /// The selector list as written.
    pub selectors: String,
    /// Its declarations, in order.
    pub declarations: Vec<Declaration>,
    /// The media query lists of the `@media` blocks around it, outermost first
    /// (empty at top level). Only [`parse_stylesheet_all_media`] keeps rules whose
    /// media do not apply to the assumed screen.
    pub media: Vec<String>,
    /// The cascade layer it sits in, dotted (`base.links`), `None` when
    /// unlayered. Anonymous layers get a name no author can write (`\u{0}1`).
    pub layer: Option<String>,
}

/// The screen media queries are evaluated against, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    /// Width in CSS pixels.
    pub width: f32,
    /// Height in CSS pixels.
    pub height: f32,
}

impl Viewport {
    /// The desktop every rule assumes unless it says otherwise: 1280×1024.
    pub const DESKTOP: Viewport = Viewport {
        width: 1280.0,
        height: 1024.0,
    };
    /// The desktop zoomed to 200% (WCAG 1.4.4 resize text): 640×512 CSS pixels,
    /// where narrow-viewport `@media` rules take over.
    pub const ZOOMED: Viewport = Viewport {
        width: 640.0,
        height: 512.0,
    };
}

/// Parses a stylesheet into its style rules, flattening `@media` blocks that apply
/// to a screen (see [`media_applies`]) and `@supports` / `@layer` blocks; other
/// at-rules are skipped.
pub fn parse_stylesheet(text: &str) -> Vec<RawRule> {
    parse_stylesheet_at(text, Viewport::DESKTOP)
}

/// [`parse_stylesheet`] with `@media` blocks evaluated for `viewport`.
pub fn parse_stylesheet_at(text: &str, viewport: Viewport) -> Vec<RawRule> {
    let mut parser = Parser::new(text);
    let mut out = Vec::new();
    let mut sheet = SheetParser::new(false, viewport);
    collect_rules(&mut parser, &mut sheet, &mut out);
    out
}

/// Like [`parse_stylesheet`], but keeps the rules of every `@media` block (print,
/// portrait orientation, narrow viewports...) with their conditions in
/// [`RawRule::media`], for rules that reason about media themselves.
pub fn parse_stylesheet_all_media(text: &str) -> Vec<RawRule> {
    let mut parser = Parser::new(text);
    let mut out = Vec::new();
    let mut sheet = SheetParser::new(true, Viewport::DESKTOP);
    collect_rules(&mut parser, &mut sheet, &mut out);
    out
}

/// [`parse_stylesheet_all_media`] that stops after `max_rules` style rules;
/// the flag says whether rules were left unparsed.
///
/// The page budget caps what one page's stylesheets may make the cascade hold
/// and match (`PageBudget::max_css_rules`): parsing stops at the cap instead of
/// reading the rest of a hostile sheet.
pub fn parse_stylesheet_all_media_upto(text: &str, max_rules: usize) -> (Vec<RawRule>, bool) {
    let mut sheet = SheetParser::new(true, Viewport::DESKTOP);
    collect_upto(text, &mut sheet, max_rules)
}

/// [`parse_stylesheet_all_media_upto`], also returning the sheet's cascade
/// layers in the order they were first named (see [`RawRule::layer`]).
pub fn parse_stylesheet_layered_upto(
    text: &str,
    max_rules: usize,
) -> (Vec<RawRule>, bool, Vec<String>) {
    let mut sheet = SheetParser::new(true, Viewport::DESKTOP);
    let (rules, cut) = collect_upto(text, &mut sheet, max_rules);
    (rules, cut, sheet.layer_order)
}

/// [`parse_stylesheet_at`] that stops after `max_rules` style rules; the flag
/// says whether rules were left unparsed.
pub fn parse_stylesheet_upto(
    text: &str,
    viewport: Viewport,
    max_rules: usize,
) -> (Vec<RawRule>, bool) {
    let mut sheet = SheetParser::new(false, viewport);
    collect_upto(text, &mut sheet, max_rules)
}

fn collect_upto(text: &str, sheet: &mut SheetParser, max_rules: usize) -> (Vec<RawRule>, bool) {
    let mut parser = Parser::new(text);
    let mut out = Vec::new();
    let mut cut = false;
    for rules in StyleSheetParser::new(&mut parser, sheet).flatten() {
        // One top-level item may be an `@media` block of many rules.
        let room = max_rules - out.len();
        if rules.len() > room {
            out.extend(rules.into_iter().take(room));
            cut = true;
            break;
        }
        out.extend(rules);
    }
    (out, cut)
}

fn collect_rules(parser: &mut Parser<'_>, sheet: &mut SheetParser, out: &mut Vec<RawRule>) {
    for rules in StyleSheetParser::new(parser, sheet).flatten() {
        out.extend(rules);
    }
}

/// Parses the body of a `style` attribute (or a rule block) into declarations.
pub fn parse_declarations(text: &str) -> Vec<Declaration> {
    let mut parser = Parser::new(text);
    let mut decls = DeclParser;
    RuleBodyParser::new(&mut parser, &mut decls)
        .filter_map(Result::ok)
        .flatten()
        .collect()
}

/// Whether a media query list applies to a screen of 1280×1024 CSS pixels (the
/// viewport rules assume). `print`, `speech` and other non-screen media don't.
pub fn media_applies(media: &str) -> bool {
    media_applies_at(media, Viewport::DESKTOP)
}

/// [`media_applies`] for another viewport (e.g. [`Viewport::ZOOMED`]).
pub fn media_applies_at(media: &str, viewport: Viewport) -> bool {
    let media = media.trim();
    if media.is_empty() {
        return true;
    }
    media
        .split(',')
        .any(|query| query_applies(query.trim(), viewport))
}

fn query_applies(query: &str, viewport: Viewport) -> bool {
    let lower = query.to_ascii_lowercase();
    let mut words = lower.split_whitespace().peekable();
    let mut negated = false;
    if let Some(&w) = words.peek() {
        if w == "not" {
            negated = true;
            words.next();
        } else if w == "only" {
            words.next();
        }
    }
    let rest: Vec<&str> = words.collect();
    let (media_type, features) = match rest.first() {
        Some(t) if !t.starts_with('(') => (*t, rest[1..].join(" ")),
        _ => ("all", rest.join(" ")),
    };
    let type_ok = matches!(media_type, "all" | "screen");
    let features_ok = features_apply(&features, viewport);
    (type_ok && features_ok) != negated
}

/// Evaluates `(min-width: …)` / `(max-width: …)` / `(orientation: …)` features
/// against `viewport` (landscape when at least as wide as high), and user preference features
/// (`prefers-color-scheme`, `forced-colors`, ...) as a default light-scheme desktop;
/// other features are assumed to hold.
fn features_apply(features: &str, viewport: Viewport) -> bool {
    let (w, h) = (viewport.width, viewport.height);
    // `and` is a word between features (CSS requires the spaces); splitting on
    // the bare letters would cut `landscape` in two.
    let padded = format!(" {features} ");
    for part in padded.split(" and ") {
        let part = part.trim().trim_start_matches('(').trim_end_matches(')');
        let Some((name, value)) = part.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let px = |v: &str| -> Option<f32> {
            if let Some(n) = v.strip_suffix("px") {
                n.trim().parse().ok()
            } else if let Some(n) = v.strip_suffix("em") {
                n.trim().parse::<f32>().ok().map(|x| x * 16.0)
            } else {
                v.parse().ok()
            }
        };
        let ok = match name.trim() {
            "min-width" => px(value).is_none_or(|v| w >= v),
            "max-width" => px(value).is_none_or(|v| w <= v),
            "min-height" => px(value).is_none_or(|v| h >= v),
            "max-height" => px(value).is_none_or(|v| h <= v),
            "orientation" => value == if w >= h { "landscape" } else { "portrait" },
            // A default desktop: light scheme, no user preferences, no forced colors.
            "prefers-color-scheme" => value == "light",
            "prefers-reduced-motion" | "prefers-reduced-transparency" | "prefers-contrast" => {
                value == "no-preference"
            }
            "forced-colors" => value == "none",
            "inverted-colors" => value == "none",
            _ => true,
        };
        if !ok {
            return false;
        }
    }
    true
}

struct SheetParser {
    /// Keep rules of every media block (see [`parse_stylesheet_all_media`]).
    all_media: bool,
    /// Media query lists of the enclosing `@media` blocks.
    media: Vec<String>,
    /// The screen `@media` blocks are evaluated for.
    viewport: Viewport,
    /// The enclosing `@layer` blocks' names (see [`RawRule::layer`]).
    layer: Vec<String>,
    /// Every layer named in the sheet, dotted, in order of first appearance
    /// (`@layer a, b;` statements included): the layers' order.
    layer_order: Vec<String>,
    /// Anonymous layers so far.
    anonymous: usize,
}

impl SheetParser {
    fn new(all_media: bool, viewport: Viewport) -> SheetParser {
        SheetParser {
            all_media,
            media: Vec::new(),
            viewport,
            layer: Vec::new(),
            layer_order: Vec::new(),
            anonymous: 0,
        }
    }

    /// The dotted name of `name` inside the current layer, recorded in the
    /// layers' order.
    fn declare_layer(&mut self, name: &str) -> String {
        let full = match self.layer.last() {
            Some(outer) => format!("{outer}.{name}"),
            None => name.to_string(),
        };
        // Each prefix is a layer too (`@layer a.b` declares `a` first).
        let mut end = 0;
        for part in full.split('.') {
            end += part.len();
            let prefix = &full[..end];
            if !self.layer_order.iter().any(|l| l == prefix) {
                self.layer_order.push(prefix.to_string());
            }
            end += 1;
        }
        full
    }
}

enum AtPrelude {
    /// A block whose rules apply (or not) as a whole.
    Block(bool),
    /// An `@layer` block (named or anonymous) or statement (names).
    Layer(Vec<String>),
    /// An `@media` block: whether it applies to the assumed screen, and its query.
    Media(bool, String),
    Skip,
}

fn slice_rest<'i>(input: &mut Parser<'i>) -> &'i str {
    let start = input.position();
    while input.next_including_whitespace_and_comments().is_ok() {}
    input.slice_from(start)
}

impl<'i> QualifiedRuleParser<'i> for SheetParser {
    type Prelude = String;
    type QualifiedRule = Vec<RawRule>;
    type Error = ();

    fn parse_prelude(
        &mut self,
        input: &mut Parser<'i>,
    ) -> Result<Self::Prelude, ParseError<Self::Error>> {
        Ok(slice_rest(input).trim().to_string())
    }

    fn parse_block(
        &mut self,
        prelude: Self::Prelude,
        _start: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<Self::QualifiedRule, ParseError<Self::Error>> {
        let mut decls = DeclParser;
        let declarations = RuleBodyParser::new(input, &mut decls)
            .filter_map(Result::ok)
            .flatten()
            .collect();
        Ok(vec![RawRule {
            selectors: prelude,
            declarations,
            media: self.media.clone(),
            layer: self.layer.last().cloned(),
        }])
    }
}

impl<'i> AtRuleParser<'i> for SheetParser {
    type Prelude = AtPrelude;
    type AtRule = Vec<RawRule>;
    type Error = ();

    fn parse_prelude(
        &mut self,
        name: CowRcStr<'i>,
        input: &mut Parser<'i>,
    ) -> Result<Self::Prelude, ParseError<Self::Error>> {
        let text = slice_rest(input);
        Ok(match name.to_ascii_lowercase().as_str() {
            "media" => AtPrelude::Media(
                media_applies_at(text, self.viewport),
                text.trim().to_string(),
            ),
            "supports" => AtPrelude::Block(supports_applies(text)),
            "layer" => AtPrelude::Layer(
                text.split(',')
                    .map(|n| n.trim().to_string())
                    .filter(|n| !n.is_empty())
                    .collect(),
            ),
            "container" | "scope" | "document" => AtPrelude::Block(true),
            _ => AtPrelude::Skip,
        })
    }

    fn rule_without_block(
        &mut self,
        prelude: Self::Prelude,
        _start: &ParserState,
    ) -> Result<Self::AtRule, ()> {
        // `@layer a, b;` fixes the layers' order before any of their rules.
        if let AtPrelude::Layer(names) = prelude {
            for name in names {
                self.declare_layer(&name);
            }
        }
        Ok(Vec::new())
    }

    fn parse_block(
        &mut self,
        prelude: Self::Prelude,
        _start: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<Self::AtRule, ParseError<Self::Error>> {
        let mut out = Vec::new();
        match prelude {
            AtPrelude::Block(true) => collect_rules(input, self, &mut out),
            AtPrelude::Layer(names) => {
                // A block names one layer, or none (anonymous: a layer of
                // its own that no other rule can join).
                let name = match names.first() {
                    Some(name) => name.clone(),
                    None => {
                        self.anonymous += 1;
                        format!("\u{0}{}", self.anonymous)
                    }
                };
                let full = self.declare_layer(&name);
                self.layer.push(full);
                collect_rules(input, self, &mut out);
                self.layer.pop();
            }
            AtPrelude::Media(applies, query) if applies || self.all_media => {
                self.media.push(query);
                collect_rules(input, self, &mut out);
                self.media.pop();
            }
            _ => while input.next().is_ok() {},
        }
        Ok(out)
    }
}

struct DeclParser;

impl<'i> DeclarationParser<'i> for DeclParser {
    type Declaration = Option<Declaration>;
    type Error = ();

    fn parse_value(
        &mut self,
        name: CowRcStr<'i>,
        input: &mut Parser<'i>,
        _start: &ParserState,
    ) -> Result<Self::Declaration, ParseError<Self::Error>> {
        let raw = slice_rest(input).trim();
        let (value, important) = split_important(raw);
        Ok(Some(Declaration {
            name: name.to_ascii_lowercase(),
            value: value.to_string(),
            important,
        }))
    }
}

impl<'i> AtRuleParser<'i> for DeclParser {
    type Prelude = ();
    type AtRule = Option<Declaration>;
    type Error = ();
}

impl<'i> QualifiedRuleParser<'i> for DeclParser {
    type Prelude = ();
    type QualifiedRule = Option<Declaration>;
    type Error = ();
}

impl<'i> RuleBodyItemParser<'i, Option<Declaration>, ()> for DeclParser {
    fn parse_declarations(&self) -> bool {
        true
    }
    fn parse_qualified(&self) -> bool {
        false
    }
}

fn split_important(raw: &str) -> (&str, bool) {
    if let Some(bang) = raw.rfind('!') {
        let tail = raw[bang + 1..].trim();
        if tail.eq_ignore_ascii_case("important") {
            return (raw[..bang].trim(), true);
        }
    }
    (raw, false)
}

/// Splits a selector list on top-level commas (not inside parentheses or brackets).
pub fn split_selector_list(list: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut quote: Option<char> = None;
    for (i, c) in list.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(list[start..].trim());
    parts.retain(|p| !p.is_empty());
    parts
}

/// Specificity of one complex selector as `(ids << 20) | (classes << 10) | types`.
///
/// Hand-written because scraper keeps its parsed selector private: a single pass
/// counting `#id`, `.class` / `[attr]` / `:pseudo-class`, and type selectors, with
/// `:is()` / `:not()` / `:has()` arguments counted and `:where()` counting zero.
pub fn specificity(selector: &str) -> u32 {
    let (a, b, c) = count_specificity(selector);
    (a.min(1023) << 20) | (b.min(1023) << 10) | c.min(1023)
}

fn count_specificity(s: &str) -> (u32, u32, u32) {
    let bytes = s.as_bytes();
    let (mut a, mut b, mut c) = (0u32, 0u32, 0u32);
    let mut i = 0;
    let mut compound_start = true;
    while i < bytes.len() {
        let ch = bytes[i];
        match ch {
            b'#' => {
                a += 1;
                i = skip_ident(bytes, i + 1);
                compound_start = false;
            }
            b'.' => {
                b += 1;
                i = skip_ident(bytes, i + 1);
                compound_start = false;
            }
            b'[' => {
                b += 1;
                while i < bytes.len() && bytes[i] != b']' {
                    i += 1;
                }
                i += 1;
                compound_start = false;
            }
            b':' => {
                let pseudo_element = bytes.get(i + 1) == Some(&b':');
                let name_start = if pseudo_element { i + 2 } else { i + 1 };
                let end = skip_ident(bytes, name_start);
                let name = s[name_start..end].to_ascii_lowercase();
                i = end;
                let args_end = if bytes.get(i) == Some(&b'(') {
                    matching_paren(bytes, i)
                } else {
                    i
                };
                let args = if args_end > i {
                    &s[i + 1..args_end - 1]
                } else {
                    ""
                };
                if pseudo_element {
                    c += 1;
                } else if matches!(name.as_str(), "is" | "not" | "has" | "matches") {
                    // The most specific argument counts.
                    let best = split_selector_list(args)
                        .into_iter()
                        .map(count_specificity)
                        .max()
                        .unwrap_or((0, 0, 0));
                    a += best.0;
                    b += best.1;
                    c += best.2;
                } else if name != "where" {
                    b += 1;
                }
                i = args_end.max(i);
                compound_start = false;
            }
            b' ' | b'>' | b'+' | b'~' | b'\t' | b'\n' => {
                i += 1;
                compound_start = true;
            }
            b'*' => {
                i += 1;
                compound_start = false;
            }
            _ if compound_start && (ch.is_ascii_alphabetic() || ch == b'_' || ch >= 0x80) => {
                c += 1;
                i = skip_ident(bytes, i);
                compound_start = false;
            }
            _ => i += 1,
        }
    }
    (a, b, c)
}

fn skip_ident(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        let ch = bytes[i];
        if ch == b'\\' {
            // Skip the backslash and the whole (possibly multi-byte) escaped char.
            i += 1;
            i += match bytes.get(i) {
                Some(b) if *b >= 0xF0 => 4,
                Some(b) if *b >= 0xE0 => 3,
                Some(b) if *b >= 0xC0 => 2,
                Some(_) => 1,
                None => 0,
            };
        } else if ch.is_ascii_alphanumeric() || ch == b'-' || ch == b'_' || ch >= 0x80 {
            i += 1;
        } else {
            break;
        }
    }
    i.min(bytes.len())
}

fn matching_paren(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rules_media_and_important() {
        let rules = parse_stylesheet(
            "/* c */ p, .a { color: red !important; font-size: 12px }
             @media print { p { display: none } }
             @media screen and (min-width: 100px) { .b { color: blue } }
             @media (max-width: 600px) { .c { color: blue } }
             @font-face { font-family: x; src: url(a.woff) }
             @import url(x.css);
             div { background: url('a;b.png') }",
        );
        let sels: Vec<&str> = rules.iter().map(|r| r.selectors.as_str()).collect();
        assert_eq!(sels, vec!["p, .a", ".b", "div"]);
        assert_eq!(
            rules[0].declarations[0],
            Declaration {
                name: "color".into(),
                value: "red".into(),
                important: true
            }
        );
        assert_eq!(rules[2].declarations[0].value, "url('a;b.png')");
    }

    #[test]
    fn all_media_keeps_conditions() {
        let rules = parse_stylesheet_all_media(
            "a { color: red } @media print { p { display: none } @media (orientation: portrait) { b { x: y } } }",
        );
        let media: Vec<Vec<String>> = rules.iter().map(|r| r.media.clone()).collect();
        assert_eq!(
            media,
            vec![
                vec![],
                vec!["print".to_string()],
                vec!["print".to_string(), "(orientation: portrait)".to_string()]
            ]
        );
        assert_eq!(parse_stylesheet("@media print { p { x: y } }").len(), 0);
    }

    #[test]
    fn sheet_facts_are_derived_once_per_text_and_kind() {
        struct Count(usize);
        struct Len(usize);
        let all = SheetCaps::UNLIMITED;
        let a = sheet_facts("p { color: red }", all, |t, _| {
            Count(t.matches('{').count())
        });
        let b = sheet_facts("p { color: red }", all, |_, _| Count(99));
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(b.0, 1);
        // Another kind of fact of the same text is derived on its own.
        assert_eq!(
            sheet_facts("p { color: red }", all, |t, _| Len(t.len())).0,
            16
        );
    }

    #[test]
    fn sheet_facts_read_within_the_caps_and_cache_only_whole_sheets() {
        struct Rules(usize);
        let text = "a { color: red } b { color: red } i { color: red } /* caps */";
        let two = SheetCaps {
            rules: 2,
            selectors: usize::MAX,
            cut: false,
        };
        let cut = sheet_facts(text, two, |t, caps| Rules(caps.parse(t).len()));
        assert_eq!(cut.0, 2);
        // The cut facts were not kept: a page with room reads the whole sheet.
        let whole = sheet_facts(text, SheetCaps::UNLIMITED, |t, caps| {
            Rules(caps.parse(t).len())
        });
        assert_eq!(whole.0, 3);
        // Whole facts do not serve a page with less room: it gets its part.
        let again = sheet_facts(text, two, |t, caps| Rules(caps.parse(t).len()));
        assert_eq!(again.0, 2);
        let room = SheetCaps { rules: 3, ..two };
        assert!(Arc::ptr_eq(
            &whole,
            &sheet_facts(text, room, |_, _| Rules(0))
        ));
        let mut caps = SheetCaps {
            rules: 5,
            selectors: 1,
            cut: false,
        };
        assert_eq!(caps.parse_all_media("@media print { a {} } b {}").len(), 2);
        assert_eq!((caps.rules, caps.cut), (3, false));
        assert!(caps.take_selector());
        assert!(!caps.take_selector());
        assert!(caps.cut);
    }

    #[test]
    fn inline_declarations() {
        let d = parse_declarations("color: #fff; ; bogus; DISPLAY:none!important");
        assert_eq!(d.len(), 2);
        assert_eq!(d[1].name, "display");
        assert!(d[1].important);
    }

    #[test]
    fn specificity_counts() {
        assert_eq!(specificity("p"), 1);
        assert_eq!(specificity("div p.a"), (1 << 10) | 2);
        assert_eq!(specificity("#x .y:hover"), (1 << 20) | (2 << 10));
        assert_eq!(specificity(":not(#x) a"), (1 << 20) | 1);
        assert_eq!(specificity(":where(#x) a"), 1);
        assert_eq!(specificity("*"), 0);
        assert_eq!(specificity(".a\\é:hover"), 2 << 10);
        assert_eq!(specificity("#é\\😀 ü"), (1 << 20) | 1);
        assert_eq!(
            split_selector_list("a, :is(b, c) , d"),
            vec!["a", ":is(b, c)", "d"]
        );
    }

    #[test]
    fn media_lists() {
        assert!(media_applies(""));
        assert!(media_applies("screen"));
        assert!(media_applies("print, screen"));
        assert!(!media_applies("print"));
        assert!(media_applies("not print"));
        assert!(!media_applies("(max-width: 400px)"));
        assert!(media_applies("only screen and (min-width: 40em)"));
        assert!(!media_applies("(prefers-color-scheme: dark)"));
        assert!(media_applies("(prefers-color-scheme: light)"));
        assert!(!media_applies("(forced-colors: active)"));
        assert!(media_applies("(prefers-reduced-motion: no-preference)"));
        // At 200% zoom the narrow-viewport rules take over.
        assert!(media_applies_at("(max-width: 640px)", Viewport::ZOOMED));
        assert!(!media_applies_at("(max-width: 640px)", Viewport::DESKTOP));
        assert!(!media_applies_at("(min-width: 1024px)", Viewport::ZOOMED));
        assert!(media_applies_at(
            "(orientation: landscape)",
            Viewport::ZOOMED
        ));
        let zoomed = parse_stylesheet_at(
            "@media (max-width: 640px) { .a { height: 1em } }",
            Viewport::ZOOMED,
        );
        assert_eq!(zoomed.len(), 1);
        assert!(parse_stylesheet("@media (max-width: 640px) { .a { height: 1em } }").is_empty());
    }
}
