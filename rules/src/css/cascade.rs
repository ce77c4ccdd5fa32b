//! The cascade: which declaration wins for each element, and the computed values
//! rules read.
//!
//! Order of precedence, lowest first: a small user-agent sheet (default `display`,
//! heading sizes, link colors, `[hidden]`), author rules by specificity then source
//! order, the `style` attribute; `!important` author declarations beat all normal
//! ones. Inherited properties (`color`, `font-*`, `visibility`) flow from the parent.
//! Rules are bucketed by the id / class / tag of their rightmost compound so an
//! element is matched only against rules that can apply to it.

use std::collections::HashMap;

use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ego_tree::iter::Edge;
use ego_tree::NodeId;
use scraper::{ElementRef, Html, Selector};

use super::color::Rgba;
use super::{
    media_applies_at, parse_declarations, parse_stylesheet_layered_upto, split_selector_list,
    SheetCaps, Viewport,
};
use crate::budget::{Limit, PageBudget};
use crate::page::Stylesheet;

/// Elements styled between two checks of the stop flag in a cascade pass: a
/// check is a clock read, an element's matching far more.
const STOP_EVERY: u32 = 64;

/// The browser defaults rules depend on (from the HTML Standard §15 "Rendering").
const UA_SHEET: &str = r#"
html, body, div, p, h1, h2, h3, h4, h5, h6, ul, ol, dl, dt, dd, section, article, nav,
aside, header, footer, main, form, fieldset, figure, figcaption, blockquote, pre, address,
hr, details, summary, legend, center, hgroup, menu, search, dialog, optgroup, listing,
plaintext, xmp { display: block }
li { display: list-item }
table { display: table }
tr { display: table-row }
td, th { display: table-cell }
thead { display: table-header-group }
tbody { display: table-row-group }
tfoot { display: table-footer-group }
caption { display: table-caption }
col { display: table-column }
colgroup { display: table-column-group }
head, script, style, template, title, meta, link, base, noscript, area, datalist, param,
map, [hidden], input[type="hidden"], dialog:not([open]) { display: none }
details:not([open]) > :not(summary:first-of-type) { display: none }
h1 { font-size: 2em; font-weight: bold }
h2 { font-size: 1.5em; font-weight: bold }
h3 { font-size: 1.17em; font-weight: bold }
h4 { font-size: 1em; font-weight: bold }
h5 { font-size: 0.83em; font-weight: bold }
h6 { font-size: 0.67em; font-weight: bold }
b, strong, th { font-weight: bold }
small { font-size: smaller }
big { font-size: larger }
sub, sup { font-size: smaller }
a[href] { color: #0000ee; text-decoration: underline }
u, ins { text-decoration: underline }
s, del, strike { text-decoration: line-through }
mark { background-color: yellow; color: black }
button, input, select, textarea { font-size: 13.333px; display: inline-block }
"#;

/// The properties a rule may read from [`ComputedStyle::get`] beyond the modelled
/// ones; only these are kept per element, to keep memory flat.
const KEPT: &[&str] = &[
    "background-image",
    "font-style",
    "box-sizing",
    "border-bottom-color",
    "position",
    "clip",
    "clip-path",
    "overflow",
    "overflow-x",
    "overflow-y",
    "width",
    "height",
    "min-width",
    "min-height",
    "left",
    "top",
    "right",
    "bottom",
    "margin-left",
    "margin-top",
    "text-indent",
    "text-shadow",
    "transform",
    "border-bottom",
    "border-bottom-style",
    "border-bottom-width",
    "outline",
    "outline-style",
    "box-shadow",
    "filter",
    "mix-blend-mode",
    "line-height",
    "letter-spacing",
    "word-spacing",
    "z-index",
    "font-family",
    "white-space",
    "padding",
    "padding-top",
    "padding-right",
    "padding-bottom",
    "padding-left",
    "max-width",
    "max-height",
    "text-overflow",
];

/// An offset (`top`, `left`, `text-indent`) at or beyond which positioned content
/// is taken to be moved off screen: the visually-hidden patterns in use put it at
/// -999px, -9999px or -10000px; no layout is done, so smaller offsets are not
/// judged.
const OFF_SCREEN_PX: f32 = -500.0;

/// The computed values of one element for the properties rules need.
#[derive(Debug, Clone, PartialEq)]
pub struct ComputedStyle {
    /// `color`; `None` when it cannot be known (custom properties, `calc`).
    pub color: Option<Rgba>,
    /// `background-color` of this element itself; `None` when unknown.
    pub background_color: Option<Rgba>,
    /// Whether this element paints a background image or gradient.
    pub background_image: bool,
    /// `font-size` in CSS pixels.
    pub font_size: f32,
    /// `font-weight` as a number (400 normal, 700 bold).
    pub font_weight: u16,
    /// `display` keyword (`none`, `block`, `inline`, `contents`, ...).
    pub display: String,
    /// `visibility` is `hidden` or `collapse`.
    pub visibility_hidden: bool,
    /// This element's own `opacity`.
    pub opacity: f32,
    /// `content-visibility: hidden`.
    pub content_visibility_hidden: bool,
    /// Text decoration lines drawn for this element's text (own or propagated from
    /// an inline ancestor): underline.
    pub underline: bool,
    /// `text-decoration` line-through or overline drawn on the text.
    pub other_decoration: bool,
    /// The kept properties ([`KEPT`]) the element declares, in that order.
    extra: Vec<(&'static str, Arc<str>)>,
    /// Custom properties (`--name`), inherited.
    vars: Arc<HashMap<String, String>>,
}

impl ComputedStyle {
    /// Initial values (what the root element inherits from).
    pub fn initial() -> ComputedStyle {
        ComputedStyle {
            color: Some(Rgba::BLACK),
            background_color: Some(Rgba::TRANSPARENT),
            background_image: false,
            font_size: 16.0,
            font_weight: 400,
            display: "inline".into(),
            visibility_hidden: false,
            opacity: 1.0,
            content_visibility_hidden: false,
            underline: false,
            other_decoration: false,
            extra: Vec::new(),
            vars: Arc::new(HashMap::new()),
        }
    }

    /// The declared value of a kept property (see the module docs), lowercase.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.extra
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| &**v)
    }

    /// `value` with each `var()` replaced by this element's custom properties
    /// (or the reference's fallback), as the cascade substitutes them; `None`
    /// when one does not resolve. For rules that read declarations outside the
    /// computed cascade (`:focus` rules, for one).
    pub fn resolve_vars(&self, value: &str) -> Option<String> {
        substitute_vars(value, &self.vars)
    }

    /// `font-weight` at least 700.
    pub fn is_bold(&self) -> bool {
        self.font_weight >= 700
    }

    /// Whether the element is out of flow (`position: absolute` or `fixed`).
    pub fn is_positioned(&self) -> bool {
        matches!(self.get("position"), Some("absolute" | "fixed"))
    }

    /// Whether the element uses a visually-hidden pattern: clipped to nothing,
    /// positioned far off screen, or sized to 0/1px with hidden overflow.
    pub fn is_visually_clipped(&self) -> bool {
        let zeroish = |v: Option<&str>| {
            v.is_some_and(|v| {
                let n = v.trim_end_matches("px").trim();
                n.parse::<f32>().is_ok_and(|x| x <= 1.0)
            })
        };
        let clip = self.get("clip").unwrap_or("");
        let clip_path = self.get("clip-path").unwrap_or("");
        let positioned = self.is_positioned();
        if positioned && clip.starts_with("rect(") {
            let nums: Vec<f32> = clip
                .trim_start_matches("rect(")
                .trim_end_matches(')')
                .split([',', ' '])
                .filter(|s| !s.is_empty())
                .filter_map(|s| s.trim_end_matches("px").parse().ok())
                .collect();
            if nums.len() == 4 && (nums[2] - nums[0]).abs() <= 1.0 {
                return true;
            }
            if nums.len() == 4 && (nums[1] - nums[3]).abs() <= 1.0 {
                return true;
            }
        }
        if clip_path.contains("inset(50%") || clip_path.contains("circle(0") {
            return true;
        }
        let far = |v: Option<&str>| v.and_then(length_px).is_some_and(|x| x <= OFF_SCREEN_PX);
        if positioned && (far(self.get("left")) || far(self.get("top"))) {
            return true;
        }
        if far(self.get("text-indent")) {
            return true;
        }
        let overflow_hidden = matches!(self.get("overflow"), Some("hidden" | "clip"));
        overflow_hidden && (zeroish(self.get("width")) || zeroish(self.get("height")))
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Precedence {
    important: bool,
    origin: u8,
    /// The cascade layer's rank ([`layer_ranks`]): for normal declarations
    /// later layers win and unlayered rules win over all layers; `offer`
    /// reverses it for `!important` ones, as CSS does.
    layer: u16,
    specificity: u32,
    order: u32,
}

/// The modelled properties [`compute_one`] reads that are not in [`KEPT`].
///
/// The cascade resolves only these and the kept ones, each by a small id
/// ([`prop`]): the kept ones first, in [`KEPT`] order, so an element's kept values
/// come out in that order by walking the ids. Declarations of other properties are
/// dropped when a sheet is compiled: nothing reads them.
const MODELLED: &[&str] = &[
    "font-size",
    "font-weight",
    "color",
    "background-color",
    "display",
    "visibility",
    "opacity",
    "content-visibility",
    "text-decoration-line",
];

/// Number of property ids.
const PROPS: usize = KEPT.len() + MODELLED.len();

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The id of a resolved property, at compile time (an unknown name does not build).
const fn prop(name: &str) -> usize {
    let mut i = 0;
    while i < KEPT.len() {
        if str_eq(KEPT[i], name) {
            return i;
        }
        i += 1;
    }
    let mut j = 0;
    while j < MODELLED.len() {
        if str_eq(MODELLED[j], name) {
            return KEPT.len() + j;
        }
        j += 1;
    }
    panic!("not a resolved property")
}

const FONT_SIZE: usize = prop("font-size");
const FONT_WEIGHT: usize = prop("font-weight");
const COLOR: usize = prop("color");
const BACKGROUND_COLOR: usize = prop("background-color");
const BACKGROUND_IMAGE: usize = prop("background-image");
const DISPLAY: usize = prop("display");
const VISIBILITY: usize = prop("visibility");
const OPACITY: usize = prop("opacity");
const CONTENT_VISIBILITY: usize = prop("content-visibility");
const TEXT_DECORATION_LINE: usize = prop("text-decoration-line");

/// The name of a property id.
fn prop_name(id: usize) -> &'static str {
    if id < KEPT.len() {
        KEPT[id]
    } else {
        MODELLED[id - KEPT.len()]
    }
}

/// The id of a resolved property, or `None` for one nothing reads.
fn prop_id(name: &str) -> Option<usize> {
    static INDEX: OnceLock<FxHashMap<&'static str, usize>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut map = FxHashMap::default();
        for id in 0..PROPS {
            map.entry(prop_name(id)).or_insert(id);
        }
        map
    });
    index.get(name).copied()
}

/// Shorthands whose `var()` declarations expand to resolved properties only after
/// substitution; other unresolved names expand to themselves.
const VAR_SHORTHANDS: &[&str] = &["background", "font", "text-decoration"];

/// One compiled declaration, shorthands expanded to longhands.
#[derive(Debug)]
enum Decl {
    /// A resolved property, by id. `deferred` when its value uses `var()`: it is
    /// substituted and expanded once the element's custom properties are known.
    Prop {
        id: usize,
        value: Arc<str>,
        important: bool,
        deferred: bool,
    },
    /// A custom property (`--name`), or a `var()` declaration of a shorthand in
    /// [`VAR_SHORTHANDS`]; these compete by name.
    Named {
        name: Box<str>,
        value: Arc<str>,
        important: bool,
        custom: bool,
    },
}

/// Compiles declarations: expands shorthands and keeps what the cascade resolves.
fn compile_declarations(decls: &[super::Declaration]) -> Vec<Decl> {
    let mut out = Vec::new();
    for d in decls {
        for (name, value) in expand(&d.name, &d.value) {
            let important = d.important;
            if name.starts_with("--") {
                out.push(Decl::Named {
                    name: name.into(),
                    value: value.into(),
                    important,
                    custom: true,
                });
                continue;
            }
            let deferred = value.contains("var(");
            if let Some(id) = prop_id(&name) {
                out.push(Decl::Prop {
                    id,
                    value: value.into(),
                    important,
                    deferred,
                });
            } else if deferred && VAR_SHORTHANDS.contains(&name.as_str()) {
                out.push(Decl::Named {
                    name: name.into(),
                    value: value.into(),
                    important,
                    custom: false,
                });
            }
        }
    }
    out
}

/// Ancestor ids and classes a selector requires (see [`SheetRule::hints`]).
fn ancestor_hints(selector: &str) -> Vec<u64> {
    // Split into compounds and combinators at top level.
    let bytes = selector.as_bytes();
    let mut parts: Vec<(&str, u8)> = Vec::new(); // (compound, combinator to its right)
    let mut depth = 0i32;
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b' ' | b'>' | b'+' | b'~' if depth == 0 => {
                let compound = selector[start..i].trim();
                // Collapse the run of combinator characters and spaces.
                let mut comb = b' ';
                while i < bytes.len() && matches!(bytes[i], b' ' | b'>' | b'+' | b'~') {
                    if bytes[i] != b' ' {
                        comb = bytes[i];
                    }
                    i += 1;
                }
                if !compound.is_empty() {
                    parts.push((compound, comb));
                }
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let mut hints = Vec::new();
    // Walk leftwards from the rightmost compound; stop at a sibling combinator.
    for (compound, comb) in parts.iter().rev() {
        if matches!(comb, b'+' | b'~') {
            break;
        }
        if compound.contains('\\') {
            continue;
        }
        // Pseudo-classes and attribute tests say nothing certain about ancestors:
        // only the part before them is used.
        let prefix = &compound[..compound.find([':', '[']).unwrap_or(compound.len())];
        let tag_len = prefix.find(['#', '.']).unwrap_or(prefix.len());
        let tag = &prefix[..tag_len];
        if !tag.is_empty()
            && tag != "*"
            && tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            hints.push(hint_hash(b'<', &tag.to_ascii_lowercase()));
        }
        let mut rest = &prefix[tag_len..];
        while let Some(pos) = rest.find(['#', '.']) {
            let marker = rest.as_bytes()[pos];
            let tail = &rest[pos + 1..];
            let end = tail.find(['#', '.']).unwrap_or(tail.len());
            if end > 0 {
                hints.push(hint_hash(marker, &tail[..end]));
            }
            rest = &tail[end..];
        }
    }
    hints
}

/// The key of one ancestor fact (`<` tag, `#` id, `.` class) in the ancestor set.
fn hint_hash(marker: u8, name: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write_u8(marker);
    h.write(name.as_bytes());
    h.finish()
}

/// One selector of a compiled stylesheet, ready to join a page's [`RuleIndex`]:
/// everything but its source order, which depends on the sheets before it.
struct SheetRule {
    selector: Selector,
    /// `#id` / `.class` / `<tag` an ancestor must carry for the selector to match
    /// (from its descendant and child compounds): a cheap pre-check before full
    /// matching, like the ancestor Bloom filter browsers use. Each a [`hint_hash`],
    /// so that entering and leaving elements during the cascade allocates nothing.
    /// A collision can only let a rule through to full matching, never skip a rule
    /// that matches.
    hints: Box<[u64]>,
    specificity: u32,
    key: Key,
    declarations: Arc<[Decl]>,
    /// Index into [`CompiledSheet::media`]: the `@media` conditions around the rule.
    media: usize,
    /// Index into [`CompiledSheet::layers`]; [`UNLAYERED`] outside any layer.
    layer: u16,
    /// See [`positional`].
    positional: bool,
    /// Which style rule of its sheet it comes from (0-based), for the page's
    /// cap on style rules.
    rule_no: u32,
    /// Which selector of its sheet it is (0-based, counting those that failed
    /// to parse), for the page's cap on selectors.
    selector_no: u32,
}

/// A parsed and compiled stylesheet, for every viewport: each rule keeps the
/// `@media` conditions around it, evaluated when a page's index is built.
struct CompiledSheet {
    rules: Vec<SheetRule>,
    /// Distinct lists of enclosing `@media` query lists, outermost first; entry 0
    /// is the empty list (rules outside any `@media`).
    media: Vec<Vec<String>>,
    /// The sheet's cascade layers, dotted, in order of first appearance.
    layers: Vec<String>,
    /// Style rules parsed.
    style_rules: usize,
    /// Selectors parsed, compiled or not.
    selectors: usize,
    /// The cap that stopped parsing before the end of the text, if one did.
    cut: Option<Limit>,
}

impl CompiledSheet {
    /// Which media lists hold at `viewport` (a rule applies when all of its do).
    fn media_at(&self, viewport: Viewport) -> Vec<bool> {
        self.media
            .iter()
            .map(|list| list.iter().all(|m| media_applies_at(m, viewport)))
            .collect()
    }
}

/// Parses and compiles a stylesheet: the selector parsing and shorthand
/// expansion that are the same for every page (and viewport) using the sheet.
/// Parsing stops after `max_rules` style rules or `max_selectors` selectors
/// (see [`CompiledSheet::cut`]).
fn compile_sheet(text: &str, max_rules: usize, max_selectors: usize) -> CompiledSheet {
    let mut rules = Vec::new();
    let mut media: Vec<Vec<String>> = vec![Vec::new()];
    let (parsed, rules_cut, mut layers) = parse_stylesheet_layered_upto(text, max_rules);
    // Past this many layers (a hostile sheet), later ones share the last rank.
    layers.truncate(MAX_LAYERS);
    let style_rules = parsed.len();
    let mut cut = rules_cut.then_some(Limit::CssRules);
    let mut selectors = 0usize;
    'rules: for (rule_no, rule) in parsed.into_iter().enumerate() {
        let media_index = match media.iter().position(|m| *m == rule.media) {
            Some(i) => i,
            None => {
                media.push(rule.media.clone());
                media.len() - 1
            }
        };
        let declarations: Arc<[Decl]> = compile_declarations(&rule.declarations).into();
        let layer = match &rule.layer {
            None => UNLAYERED,
            Some(name) => layers
                .iter()
                .position(|l| l == name)
                .map_or(UNLAYERED - 1, |i| u16::try_from(i).unwrap_or(UNLAYERED - 1)),
        };
        for original in split_selector_list(&rule.selectors) {
            // Every selector costs its parse, matched or not.
            if selectors == max_selectors {
                cut = Some(Limit::Selectors);
                break 'rules;
            }
            selectors += 1;
            // The selectors engine knows no link state: every link is an
            // unvisited link here (`:link`, `:any-link`); `:visited`, `:hover`,
            // `:focus` and the like never match a page at rest, and their
            // selectors fail to parse and are skipped.
            let rewritten = original
                .replace(":any-link", "[href]")
                .replace(":link", "[href]");
            let part = rewritten.as_str();
            let Ok(selector) = Selector::parse(part) else {
                continue;
            };
            rules.push(SheetRule {
                selector,
                hints: ancestor_hints(part).into(),
                specificity: super::specificity(part),
                key: key_of(part),
                declarations: declarations.clone(),
                media: media_index,
                layer,
                positional: positional(part),
                rule_no: u32::try_from(rule_no).unwrap_or(u32::MAX),
                selector_no: u32::try_from(selectors - 1).unwrap_or(u32::MAX),
            });
        }
    }
    CompiledSheet {
        rules,
        media,
        layers,
        style_rules,
        selectors,
        cut,
    }
}

/// Stylesheet texts up to this size are kept compiled across pages.
const SHEET_CACHE_MAX_TEXT: usize = 1024 * 1024;
/// Total text bytes of the compiled-sheet cache; it is emptied when full.
const SHEET_CACHE_MAX_BYTES: usize = 16 * 1024 * 1024;

/// Compiled stylesheets by text, shared by all pages of the process.
///
/// The pages of a site link the same few sheets (and often repeat the same inline
/// `<style>`): parsing them and compiling their selectors for every page cost more
/// than parsing the page's HTML. Keyed by the full text, so a changed sheet is a
/// different entry, and bounded in bytes.
#[derive(Default)]
struct SheetCache {
    map: FxHashMap<Arc<str>, Arc<CompiledSheet>>,
    bytes: usize,
}

///
/// A sheet is compiled within what is left of the page's caps; only a sheet
/// compiled whole is cached (a cut one would be wrong for a page with more
/// room), and a cached one longer than what is left is cut by the caller.
fn compiled_sheet(text: &str, max_rules: usize, max_selectors: usize) -> Arc<CompiledSheet> {
    static CACHE: OnceLock<Mutex<SheetCache>> = OnceLock::new();
    if text.len() > SHEET_CACHE_MAX_TEXT {
        return Arc::new(compile_sheet(text, max_rules, max_selectors));
    }
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = lock_cache(cache).map.get(text) {
        return Arc::clone(hit);
    }
    let compiled = Arc::new(compile_sheet(text, max_rules, max_selectors));
    if compiled.cut.is_some() {
        return compiled;
    }
    let mut guard = lock_cache(cache);
    if guard.bytes + text.len() > SHEET_CACHE_MAX_BYTES {
        guard.map.clear();
        guard.bytes = 0;
    }
    guard.bytes += text.len();
    guard.map.insert(Arc::from(text), Arc::clone(&compiled));
    compiled
}

fn lock_cache(cache: &Mutex<SheetCache>) -> std::sync::MutexGuard<'_, SheetCache> {
    // A panic while holding the lock leaves a consistent map (inserts are atomic).
    cache.lock().unwrap_or_else(|p| p.into_inner())
}

/// One sheet of a page, in cascade order: the user-agent sheet, then `<style>`
/// elements in document order, then the engine-fetched linked sheets.
struct Source {
    sheet: Arc<CompiledSheet>,
    /// How many of the sheet's rules the page uses: all, unless the page's caps
    /// on style rules or selectors ran out inside this sheet.
    take: usize,
    origin: u8,
    /// The media query lists the sheet applies under, all of which must hold:
    /// the `media` attribute of the `<style>` or `<link>`, then those of the
    /// `@import` rules that brought it in.
    media: Vec<String>,
    /// The cascade layer an `@import … layer(…)` put the whole sheet in.
    layer: Option<String>,
    /// [`Stylesheet::layers_before`].
    layers_before: Vec<String>,
}

impl Source {
    fn rules(&self) -> &[SheetRule] {
        &self.sheet.rules[..self.take.min(self.sheet.rules.len())]
    }
}

/// What is left of a page's CSS caps while its sheets are gathered.
struct SheetBudget {
    sheets: usize,
    rules: usize,
    selectors: usize,
    /// The caps hit, in the order hit.
    hit: Vec<Limit>,
    /// What was left when each admitted sheet was read, in cascade order.
    admitted: Vec<SheetCaps>,
}

impl SheetBudget {
    fn hit(&mut self, limit: Limit) {
        if !self.hit.contains(&limit) {
            self.hit.push(limit);
        }
    }

    /// Compiles (or takes from the cache) one more sheet of the page, within
    /// what is left; `None` once the page has its most sheets.
    fn source(
        &mut self,
        text: &str,
        media: Vec<String>,
        layer: Option<String>,
        layers_before: Vec<String>,
    ) -> Option<Source> {
        if self.sheets == 0 {
            self.hit(Limit::Stylesheets);
            return None;
        }
        self.sheets -= 1;
        self.admitted.push(SheetCaps {
            rules: self.rules,
            selectors: self.selectors,
            cut: false,
        });
        let sheet = compiled_sheet(text, self.rules, self.selectors);
        if let Some(limit) = sheet.cut {
            self.hit(limit);
        }
        // A sheet from the cache was compiled whole: the page takes the part
        // its caps leave room for (selectors count whether they compiled or not).
        let take = sheet.rules.partition_point(|r| {
            (r.rule_no as usize) < self.rules && (r.selector_no as usize) < self.selectors
        });
        if sheet.style_rules > self.rules {
            self.hit(Limit::CssRules);
        }
        if sheet.selectors > self.selectors {
            self.hit(Limit::Selectors);
        }
        self.rules -= sheet.style_rules.min(self.rules);
        self.selectors -= sheet.selectors.min(self.selectors);
        Some(Source {
            sheet,
            take,
            origin: 1,
            media,
            layer,
            layers_before,
        })
    }
}

/// The sheets of a page ([`Source`]), compiled (or taken from the cache),
/// within the page's caps on stylesheets, style rules and selectors (the
/// user-agent sheet is not counted); also the caps that were hit and what was
/// left of them at each author sheet.
fn sources(
    doc: &Html,
    linked: &[Stylesheet],
    budget: &PageBudget,
) -> (Vec<Source>, Vec<Limit>, Vec<SheetCaps>) {
    static UA: OnceLock<Arc<CompiledSheet>> = OnceLock::new();
    let ua =
        Arc::clone(UA.get_or_init(|| Arc::new(compile_sheet(UA_SHEET, usize::MAX, usize::MAX))));
    let mut out = vec![Source {
        take: ua.rules.len(),
        sheet: ua,
        origin: 0,
        media: Vec::new(),
        layer: None,
        layers_before: Vec::new(),
    }];
    let mut left = SheetBudget {
        sheets: budget.max_stylesheets,
        rules: budget.max_css_rules,
        selectors: budget.max_selectors,
        hit: Vec::new(),
        admitted: Vec::new(),
    };
    let styles = doc
        .root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
        .filter(|el| el.value().name() == "style")
        .map(|el| (el.text().collect::<String>(), crate::dom::attr(el, "media")));
    for sheet in author_order(styles, linked) {
        let source = match sheet {
            AuthorSheet::Style(text, media) => left.source(
                &text,
                media.map(str::to_string).into_iter().collect(),
                None,
                Vec::new(),
            ),
            AuthorSheet::Fetched(sheet) => {
                let media = sheet
                    .media
                    .iter()
                    .chain(&sheet.import_media)
                    .cloned()
                    .collect();
                left.source(
                    &sheet.text,
                    media,
                    sheet.layer.clone(),
                    sheet.layers_before.clone(),
                )
            }
        };
        match source {
            Some(source) => out.push(source),
            None => break,
        }
    }
    (out, left.hit, left.admitted)
}

/// One author sheet of a page ([`author_order`]).
pub(crate) enum AuthorSheet<'a, S> {
    /// A `<style>` element: its text and `media` attribute.
    Style(S, Option<&'a str>),
    /// A sheet the engine fetched: linked, or imported by a linked sheet or
    /// a `<style>` element.
    Fetched(&'a Stylesheet),
}

/// The page's author sheets in cascade order, which is document order: the
/// `<style>` elements and the linked sheets (each after the sheets it
/// imports) as their elements come in the document
/// ([`Stylesheet::styles_before`]); a `<style>` element just after the sheets
/// it imports (as if written in place of its `@import`s). Imported sheets
/// whose `<style>` is not found (the engine's pre-pass saw an element the
/// parse did not keep) come after the last `<style>`.
pub(crate) fn author_order<'a, S: AsRef<str>>(
    styles: impl Iterator<Item = (S, Option<&'a str>)>,
    linked: &'a [Stylesheet],
) -> Vec<AuthorSheet<'a, S>> {
    let mut out = Vec::with_capacity(linked.len());
    // Most pages import nothing from a `<style>`: no hashing for them.
    let style_imports = linked.iter().any(|s| s.style_element.is_some());
    let mut placed = rustc_hash::FxHashSet::default();
    // Linked chains in document order: each before the first `<style>` that
    // comes after its `<link>`.
    let mut chains = linked
        .iter()
        .filter(|s| s.style_element.is_none())
        .peekable();
    for (i, (text, media)) in styles.enumerate() {
        while let Some(sheet) = chains.next_if(|s| s.styles_before <= i) {
            out.push(AuthorSheet::Fetched(sheet));
        }
        if style_imports {
            let key = super::style_key(text.as_ref());
            if placed.insert(key) {
                out.extend(
                    linked
                        .iter()
                        .filter(|s| s.style_element == Some(key))
                        .map(AuthorSheet::Fetched),
                );
            }
        }
        out.push(AuthorSheet::Style(text, media));
    }
    out.extend(
        linked
            .iter()
            .filter(|s| s.style_element.is_some_and(|k| !placed.contains(&k)))
            .map(AuthorSheet::Fetched),
    );
    out.extend(chains.map(AuthorSheet::Fetched));
    out
}

/// Which rules of each source apply at `viewport`: one flag per rule.
fn applicable(sources: &[Source], viewport: Viewport) -> Vec<Vec<bool>> {
    sources
        .iter()
        .map(|s| {
            let sheet_applies = s.media.iter().all(|m| media_applies_at(m, viewport));
            if !sheet_applies {
                return vec![false; s.rules().len()];
            }
            let media = s.sheet.media_at(viewport);
            s.rules().iter().map(|r| media[r.media]).collect()
        })
        .collect()
}

/// [`SheetRule::layer`] of a rule outside any cascade layer; also the rank
/// of the page's unlayered rules, above every layer's.
const UNLAYERED: u16 = u16::MAX;

/// Layers one sheet may name, and a page hold, at most: a bound on what a
/// hostile sheet can make the cascade rank (further layers rank with the
/// page's last one, or unlayered).
const MAX_LAYERS: usize = 4096;

/// The rank of every cascade layer of a page, per source: the rank of each
/// of the sheet's own layers ([`CompiledSheet::layers`]), and that of its
/// rules outside them ([`UNLAYERED`], unless an `@import … layer()` put the
/// whole sheet in a layer).
///
/// Layers form a tree by their dotted names, each in order of first
/// appearance across the page's sheets in cascade order. A layer's
/// sublayers rank below its own rules, and the page's unlayered rules above
/// everything: so ranks are a post-order walk of the tree, its root last.
/// Anonymous layers are made unique per source.
fn layer_ranks(sources: &[Source]) -> Vec<(Vec<u16>, u16)> {
    struct Node {
        children: Vec<usize>,
    }
    let mut nodes = vec![Node {
        children: Vec::new(),
    }];
    let mut by_name: FxHashMap<String, usize> = FxHashMap::default();
    // Each source's layers as tree nodes, and its base node.
    let mut placed: Vec<(Vec<usize>, usize)> = Vec::with_capacity(sources.len());
    let mut insert = |full: &str, nodes: &mut Vec<Node>| -> usize {
        let mut node = 0;
        let mut end = 0;
        for part in full.split('.') {
            end += part.len();
            let prefix = &full[..end.min(full.len())];
            end += 1;
            node = match by_name.get(prefix) {
                Some(&n) => n,
                None if nodes.len() > MAX_LAYERS => return node,
                None => {
                    nodes.push(Node {
                        children: Vec::new(),
                    });
                    let n = nodes.len() - 1;
                    nodes[node].children.push(n);
                    by_name.insert(prefix.to_string(), n);
                    n
                }
            };
        }
        node
    };
    for (s, source) in sources.iter().enumerate() {
        // The sheet's own anonymous layers are its alone; the names an
        // import walk gave (its `layer` and `layers_before`) are unique on
        // the page already and shared by the sheets of one chain.
        let unique = |name: &str| name.replace('\u{0}', &format!("\u{0}{s}:"));
        for declared in &source.layers_before {
            insert(declared, &mut nodes);
        }
        let prefix = source.layer.clone();
        let full = |name: &str| match &prefix {
            Some(p) => format!("{p}.{}", unique(name)),
            None => unique(name),
        };
        let base = match &prefix {
            Some(p) => insert(p, &mut nodes),
            None => 0,
        };
        let own = source
            .sheet
            .layers
            .iter()
            .map(|l| insert(&full(l), &mut nodes))
            .collect();
        placed.push((own, base));
    }
    // Post-order ranks without recursion: (node, next child to visit).
    let mut rank = vec![0u16; nodes.len()];
    let mut next = 0u16;
    let mut stack = vec![(0usize, 0usize)];
    while let Some((node, child)) = stack.pop() {
        if let Some(&c) = nodes[node].children.get(child) {
            stack.push((node, child + 1));
            stack.push((c, 0));
        } else {
            rank[node] = next;
            next = next.saturating_add(1);
        }
    }
    // The root (unlayered rules) ranks above every layer.
    rank[0] = UNLAYERED;
    placed
        .into_iter()
        .map(|(own, base)| (own.into_iter().map(|n| rank[n]).collect(), rank[base]))
        .collect()
}

/// A rule of a page's index: where it comes from and how it ranks.
#[derive(Clone, Copy)]
struct IndexedRule {
    source: u32,
    rule: u32,
    precedence: Precedence,
}

/// A page's rules, for every viewport, bucketed by the id, class or tag of their
/// rightmost compound so an element is matched only against rules that can apply
/// to it. Which of them apply at a viewport is a separate filter
/// ([`RuleIndex::applies_at`]), so one matching serves every viewport.
#[derive(Default)]
struct RuleIndex {
    sources: Vec<Source>,
    rules: Vec<IndexedRule>,
    by_id: FxHashMap<Arc<str>, Vec<u32>>,
    by_class: FxHashMap<Arc<str>, Vec<u32>>,
    by_tag: FxHashMap<Arc<str>, Vec<u32>>,
    universal: Vec<u32>,
}

enum Key {
    Id(Arc<str>),
    Class(Arc<str>),
    Tag(Arc<str>),
    Any,
}

/// The bucket key of a selector: the first id, class or tag of its rightmost
/// compound (outside any parentheses).
fn key_of(selector: &str) -> Key {
    let mut depth = 0;
    let mut last_start = 0;
    let bytes = selector.as_bytes();
    let mut in_brackets = false;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'[' => in_brackets = true,
            b']' => in_brackets = false,
            b' ' | b'>' | b'+' | b'~' if depth == 0 && !in_brackets => last_start = i + 1,
            _ => {}
        }
    }
    let compound = &selector[last_start..];
    // Drop parenthesised and bracketed parts.
    let mut flat = String::new();
    let mut depth = 0;
    for c in compound.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ if depth == 0 => flat.push(c),
            _ => {}
        }
    }
    let ident_after = |s: &str, at: usize| -> String {
        s[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
            .collect()
    };
    if let Some(i) = flat.find('#') {
        let id = ident_after(&flat, i + 1);
        if !id.is_empty() && !flat.contains('\\') {
            return Key::Id(id.into());
        }
    }
    if let Some(i) = flat.find('.') {
        let class = ident_after(&flat, i + 1);
        if !class.is_empty() && !flat.contains('\\') {
            return Key::Class(class.into());
        }
    }
    let tag = ident_after(&flat, 0);
    if !tag.is_empty() {
        return Key::Tag(tag.to_ascii_lowercase().into());
    }
    Key::Any
}

/// Whether whether a selector matches can depend on more than the element's
/// name and attributes and its ancestors: its siblings (`+`, `~`, `:nth-child`,
/// `:first-of-type`...) or its content (`:empty`, `:has`). Read from the text,
/// so an attribute value holding `+` counts too; that only costs sharing.
fn positional(selector: &str) -> bool {
    let lower = selector.to_ascii_lowercase();
    lower.contains(['+', '~'])
        || [":nth", ":first", ":last", ":only", ":empty", ":has"]
            .iter()
            .any(|p| lower.contains(p))
}

impl RuleIndex {
    /// Every rule of `sources`, numbered in cascade order.
    fn build(sources: Vec<Source>) -> RuleIndex {
        let mut index = RuleIndex::default();
        let mut order = 0u32;
        let ranks = layer_ranks(&sources);
        for (s, source) in sources.iter().enumerate() {
            let (own, base) = &ranks[s];
            for (r, rule) in source.rules().iter().enumerate() {
                order += 1;
                let layer = if rule.layer == UNLAYERED {
                    *base
                } else {
                    own.get(usize::from(rule.layer)).copied().unwrap_or(*base)
                };
                let idx = index.rules.len() as u32;
                index.rules.push(IndexedRule {
                    source: s as u32,
                    rule: r as u32,
                    precedence: Precedence {
                        important: false,
                        origin: source.origin,
                        layer,
                        specificity: rule.specificity,
                        order,
                    },
                });
                let bucket = match &rule.key {
                    Key::Id(id) => index.by_id.entry(Arc::clone(id)).or_default(),
                    Key::Class(c) => index.by_class.entry(Arc::clone(c)).or_default(),
                    Key::Tag(t) => index.by_tag.entry(Arc::clone(t)).or_default(),
                    Key::Any => &mut index.universal,
                };
                bucket.push(idx);
            }
        }
        index.sources = sources;
        index
    }

    /// Which rules apply at `viewport`, by rule number.
    fn applies_at(&self, viewport: Viewport) -> Vec<bool> {
        let per_source = applicable(&self.sources, viewport);
        self.rules
            .iter()
            .map(|r| per_source[r.source as usize][r.rule as usize])
            .collect()
    }

    fn rule(&self, i: u32) -> (&SheetRule, Precedence) {
        let r = &self.rules[i as usize];
        (
            &self.sources[r.source as usize].sheet.rules[r.rule as usize],
            r.precedence,
        )
    }

    /// The rules that may match `el` by its buckets, in cascade order.
    fn candidates(&self, el: ElementRef<'_>, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(&self.universal);
        if let Some(id) = el.value().id() {
            if let Some(v) = self.by_id.get(id) {
                out.extend_from_slice(v);
            }
        }
        for class in el.value().classes() {
            if let Some(v) = self.by_class.get(class) {
                out.extend_from_slice(v);
            }
        }
        if let Some(v) = self.by_tag.get(el.value().name()) {
            out.extend_from_slice(v);
        }
        out.sort_unstable();
        out.dedup();
    }

    fn matches(&self, i: u32, el: ElementRef<'_>, ancestors: &FxHashMap<u64, u32>) -> bool {
        let (rule, _) = self.rule(i);
        rule.hints.iter().all(|h| ancestors.contains_key(h)) && rule.selector.matches(&el)
    }
}

/// What an element's match left for its later siblings: an element with the
/// same name and attributes under the same parent matches the same
/// non-[`positional`] rules, and is tested against the positional candidates only.
struct SiblingMatch<'a> {
    el: ElementRef<'a>,
    /// The non-positional rules it matched.
    fixed: Vec<u32>,
    /// Its positional candidates.
    positional: Vec<u32>,
}

/// Shapes of children remembered per open element.
const SIBLING_SHAPES: usize = 8;

/// The rules every element matched (at any viewport), in document order: the
/// cascade at another viewport filters these instead of matching again.
struct MatchLog {
    index: RuleIndex,
    /// Where each element's rules start in `rules` (one entry per element, plus
    /// the end).
    starts: Vec<u32>,
    rules: Vec<u32>,
}

impl MatchLog {
    fn matched(&self, element: usize) -> &[u32] {
        let (Some(&a), Some(&b)) = (self.starts.get(element), self.starts.get(element + 1)) else {
            return &[];
        };
        &self.rules[a as usize..b as usize]
    }
}

type StyleMap = FxHashMap<NodeId, Arc<ComputedStyle>>;

/// Computed styles for every element of a document, computed in one top-down pass.
pub struct Styles {
    map: Arc<StyleMap>,
    /// For styles restyled at another viewport ([`Styles::restyle_at`]): the
    /// styles they were derived from, for every element `map` does not hold.
    base: Option<Arc<StyleMap>>,
    viewport: Viewport,
    /// What was left of the page's caps at each author sheet the cascade read
    /// (`<style>` elements in document order, then linked sheets); sheets past
    /// the page's most have no entry.
    admitted: Arc<[SheetCaps]>,
    log: Arc<MatchLog>,
}

/// Reuses one computed style for siblings and cousins that match the same rules
/// under the same parent style (a browser's style sharing): most elements of a
/// page repeat a few shapes, and resolving a style costs more than looking it up.
#[derive(Default)]
struct ShareCache {
    /// By the address of the parent's style: matched rules and the style they gave.
    by_parent: FxHashMap<usize, Vec<SharedStyle>>,
}

/// The rules some elements matched and the style they resolved to.
type SharedStyle = (Box<[u32]>, Arc<ComputedStyle>);

/// Entries kept per parent style; past it, new shapes are computed unshared.
const SHARE_PER_PARENT: usize = 16;

impl ShareCache {
    fn get(&self, parent: &Arc<ComputedStyle>, matched: &[u32]) -> Option<Arc<ComputedStyle>> {
        let key = Arc::as_ptr(parent) as usize;
        self.by_parent
            .get(&key)?
            .iter()
            .find(|(m, _)| **m == *matched)
            .map(|(_, s)| Arc::clone(s))
    }

    fn put(&mut self, parent: &Arc<ComputedStyle>, matched: &[u32], style: &Arc<ComputedStyle>) {
        // Every parent style stays alive (in the style map or the pass's stack)
        // until the pass ends, so its address names the same style throughout.
        let list = self
            .by_parent
            .entry(Arc::as_ptr(parent) as usize)
            .or_default();
        if list.len() < SHARE_PER_PARENT {
            list.push((matched.into(), Arc::clone(style)));
        }
    }
}

/// Resolves styles from matched rules at one viewport, sharing equal results.
struct Resolver<'i> {
    index: &'i RuleIndex,
    /// Which rules apply at the viewport.
    applies: Vec<bool>,
    share: ShareCache,
    here: Vec<u32>,
    root_size: f32,
}

impl<'i> Resolver<'i> {
    fn new(index: &'i RuleIndex, viewport: Viewport) -> Self {
        Resolver {
            index,
            applies: index.applies_at(viewport),
            share: ShareCache::default(),
            here: Vec::new(),
            root_size: 16.0,
        }
    }

    /// The style of `el`, which matched the rules `matched` (at any viewport).
    fn style(
        &mut self,
        el: ElementRef<'_>,
        matched: &[u32],
        parent: &Arc<ComputedStyle>,
    ) -> Arc<ComputedStyle> {
        self.here.clear();
        self.here.extend(
            matched
                .iter()
                .copied()
                .filter(|&i| self.applies[i as usize]),
        );
        let inline = crate::dom::attr(el, "style");
        // An element's style depends on its matched rules, its `style` attribute,
        // its parent's style and the root font size only.
        if inline.is_none() {
            if let Some(shared) = self.share.get(parent, &self.here) {
                return shared;
            }
        }
        let style = Arc::new(compute_one(
            self.index,
            &self.here,
            inline,
            parent,
            self.root_size,
        ));
        if inline.is_none() {
            self.share.put(parent, &self.here, &style);
        }
        style
    }
}

/// One open element of a cascade pass.
struct Open<'a> {
    style: Arc<ComputedStyle>,
    /// Whether its style differs from the base styles (restyle only).
    differs: bool,
    /// Its children's shapes so far (first pass only).
    kids: Vec<SiblingMatch<'a>>,
}

impl Styles {
    /// Computes styles for `doc`: its `<style>` elements (in document order, honouring
    /// their `media`), then the engine-fetched `linked` sheets, then `style` attributes.
    pub fn compute(doc: &Html, linked: &[Stylesheet]) -> Styles {
        Styles::compute_at(doc, linked, Viewport::DESKTOP)
    }

    /// [`Styles::compute`] with `@media` rules evaluated for `viewport` (the
    /// user-agent sheet has none that depend on it).
    pub fn compute_at(doc: &Html, linked: &[Stylesheet], viewport: Viewport) -> Styles {
        Styles::compute_full(doc, linked, viewport, &PageBudget::DEFAULT, &|| false).0
    }

    /// [`Styles::compute`] within the page's caps on stylesheets, style rules
    /// and selectors (also returned: the caps that were hit), stopping early
    /// when `stop` says so (elements not reached then have no style: callers
    /// stop too).
    pub fn compute_within(
        doc: &Html,
        linked: &[Stylesheet],
        budget: &PageBudget,
        stop: &dyn Fn() -> bool,
    ) -> (Styles, Vec<Limit>) {
        Styles::compute_full(doc, linked, Viewport::DESKTOP, budget, stop)
    }

    /// [`Styles::compute_within`] with `@media` rules evaluated for
    /// `viewport`: a rendered page's, so the estimates agree with the layout
    /// the browser judged.
    pub fn compute_within_at(
        doc: &Html,
        linked: &[Stylesheet],
        viewport: Viewport,
        budget: &PageBudget,
        stop: &dyn Fn() -> bool,
    ) -> (Styles, Vec<Limit>) {
        Styles::compute_full(doc, linked, viewport, budget, stop)
    }

    fn compute_full(
        doc: &Html,
        linked: &[Stylesheet],
        viewport: Viewport,
        budget: &PageBudget,
        stop: &dyn Fn() -> bool,
    ) -> (Styles, Vec<Limit>) {
        let (sources, capped, admitted) = sources(doc, linked, budget);
        let index = RuleIndex::build(sources);
        let mut resolver = Resolver::new(&index, viewport);
        let mut map: StyleMap =
            FxHashMap::with_capacity_and_hasher(doc.tree.nodes().len(), Default::default());
        let mut starts: Vec<u32> = vec![0];
        let mut log: Vec<u32> = Vec::new();
        let initial = Arc::new(ComputedStyle::initial());
        let mut ancestors: FxHashMap<u64, u32> = FxHashMap::default();
        let mut cands: Vec<u32> = Vec::new();
        let mut open: Vec<Open<'_>> = Vec::new();
        let mut until_check = STOP_EVERY;
        for edge in doc.root_element().traverse() {
            match edge {
                Edge::Open(node) => {
                    let Some(el) = ElementRef::wrap(node) else {
                        continue;
                    };
                    until_check -= 1;
                    if until_check == 0 {
                        until_check = STOP_EVERY;
                        if stop() {
                            break;
                        }
                    }
                    let from = log.len();
                    let kids = open.last_mut().map(|o| &mut o.kids);
                    match_element(&index, el, &ancestors, kids, &mut cands, &mut log);
                    starts.push(log.len() as u32);
                    let parent = open.last().map(|o| &o.style).unwrap_or(&initial);
                    let style = resolver.style(el, &log[from..], parent);
                    if open.is_empty() {
                        resolver.root_size = style.font_size;
                    }
                    enter(&mut ancestors, el);
                    map.insert(el.id(), Arc::clone(&style));
                    open.push(Open {
                        style,
                        differs: false,
                        kids: Vec::new(),
                    });
                }
                Edge::Close(node) => {
                    if let Some(el) = ElementRef::wrap(node) {
                        leave(&mut ancestors, el);
                        open.pop();
                    }
                }
            }
        }
        drop(resolver);
        let styles = Styles {
            map: Arc::new(map),
            base: None,
            viewport,
            admitted: admitted.into(),
            log: Arc::new(MatchLog {
                index,
                starts,
                rules: log,
            }),
        };
        (styles, capped)
    }

    /// The styles of the same document (`doc`, which these styles were computed
    /// for) at another viewport, or `None` when no `@media` rule (or `media`
    /// attribute) applies differently there.
    ///
    /// Incremental: no selector is matched again (the rules each element matched
    /// at any viewport were kept), and only elements matched by a rule that
    /// applies at one viewport and not the other, and descendants whose parent's
    /// style changed, are restyled; every other element's style is the same at
    /// both viewports and is shared.
    pub fn restyle_at(&self, doc: &Html, viewport: Viewport) -> Option<Styles> {
        self.restyle_within(doc, viewport, &|| false)
    }

    /// [`Styles::restyle_at`], stopping early when `stop` says so (elements not
    /// reached then keep their style at this styles' viewport).
    pub fn restyle_within(
        &self,
        doc: &Html,
        viewport: Viewport,
        stop: &dyn Fn() -> bool,
    ) -> Option<Styles> {
        let index = &self.log.index;
        let here = index.applies_at(self.viewport);
        let there = index.applies_at(viewport);
        let changed: Vec<bool> = here.iter().zip(&there).map(|(a, b)| a != b).collect();
        if !changed.contains(&true) {
            return None;
        }
        // Styles that are themselves derived hold only their differences from
        // their base: restyle every element, against the base.
        let full = self.base.as_ref().unwrap_or(&self.map);
        let mut all = self.base.is_some();
        let mut resolver = Resolver::new(index, viewport);
        let initial = Arc::new(ComputedStyle::initial());
        let mut own: StyleMap = FxHashMap::default();
        let mut open: Vec<Open<'_>> = Vec::new();
        let mut element = 0usize;
        let mut until_check = STOP_EVERY;
        for edge in doc.root_element().traverse() {
            match edge {
                Edge::Open(node) => {
                    let Some(el) = ElementRef::wrap(node) else {
                        continue;
                    };
                    until_check -= 1;
                    if until_check == 0 {
                        until_check = STOP_EVERY;
                        if stop() {
                            break;
                        }
                    }
                    let matched = self.log.matched(element);
                    element += 1;
                    let old = full.get(&el.id());
                    let parent_differs = open.last().is_some_and(|o| o.differs);
                    let dirty = all
                        || parent_differs
                        || old.is_none()
                        || matched.iter().any(|&i| changed[i as usize]);
                    let (style, differs) = match old {
                        Some(old) if !dirty => (Arc::clone(old), false),
                        old => {
                            let parent = open.last().map(|o| &o.style).unwrap_or(&initial);
                            let new = resolver.style(el, matched, parent);
                            match old {
                                Some(old) if **old == *new => (Arc::clone(old), false),
                                _ => {
                                    own.insert(el.id(), Arc::clone(&new));
                                    (new, true)
                                }
                            }
                        }
                    };
                    if open.is_empty() {
                        resolver.root_size = style.font_size;
                        // Every `rem` is the root's font size.
                        all |= differs;
                    }
                    open.push(Open {
                        style,
                        differs,
                        kids: Vec::new(),
                    });
                }
                Edge::Close(node) => {
                    if ElementRef::wrap(node).is_some() {
                        open.pop();
                    }
                }
            }
        }
        Some(Styles {
            map: Arc::new(own),
            base: Some(Arc::clone(full)),
            viewport,
            admitted: Arc::clone(&self.admitted),
            log: Arc::clone(&self.log),
        })
    }

    /// What was left of the page's caps on style rules and selectors at each
    /// author stylesheet the cascade read, in cascade order (`<style>` elements
    /// in document order, then linked sheets); sheets past the page's cap on
    /// stylesheets have no entry.
    pub fn admitted_sheets(&self) -> &[SheetCaps] {
        &self.admitted
    }

    /// The computed style of an element of the document these styles were computed for.
    pub fn get(&self, node: NodeId) -> Option<&ComputedStyle> {
        match self.map.get(&node) {
            Some(style) => Some(style),
            None => self.base.as_ref()?.get(&node).map(|s| &**s),
        }
    }
}

/// Appends the rules `el` matches (at any viewport), in cascade order, to `out`;
/// `kids` are the shapes of its earlier siblings, reused when one is the same.
fn match_element<'a>(
    index: &RuleIndex,
    el: ElementRef<'a>,
    ancestors: &FxHashMap<u64, u32>,
    kids: Option<&mut Vec<SiblingMatch<'a>>>,
    cands: &mut Vec<u32>,
    out: &mut Vec<u32>,
) {
    let same_shape = |other: &ElementRef<'_>| {
        other.value().name == el.value().name && other.value().attrs == el.value().attrs
    };
    let is_positional = |i: u32| index.rule(i).0.positional;
    if let Some(kids) = kids {
        if let Some(prev) = kids.iter().find(|k| same_shape(&k.el)) {
            // Merge the sibling's fixed matches with this element's own
            // positional ones, keeping cascade order.
            cands.clear();
            cands.extend(
                prev.positional
                    .iter()
                    .copied()
                    .filter(|&i| index.matches(i, el, ancestors)),
            );
            cands.extend_from_slice(&prev.fixed);
            cands.sort_unstable();
            out.extend_from_slice(cands);
            return;
        }
        index.candidates(el, cands);
        let start = out.len();
        let mut positional = Vec::new();
        for &i in cands.iter() {
            if is_positional(i) {
                positional.push(i);
            }
            if index.matches(i, el, ancestors) {
                out.push(i);
            }
        }
        if kids.len() < SIBLING_SHAPES {
            let fixed = out[start..]
                .iter()
                .copied()
                .filter(|&i| !is_positional(i))
                .collect();
            kids.push(SiblingMatch {
                el,
                fixed,
                positional,
            });
        }
        return;
    }
    index.candidates(el, cands);
    out.extend(
        cands
            .iter()
            .copied()
            .filter(|&i| index.matches(i, el, ancestors)),
    );
}

fn hint_keys(el: ElementRef<'_>) -> impl Iterator<Item = u64> + '_ {
    std::iter::once(hint_hash(b'<', el.value().name()))
        .chain(el.value().id().map(|id| hint_hash(b'#', id)))
        .chain(el.value().classes().map(|c| hint_hash(b'.', c)))
}

fn enter(ancestors: &mut FxHashMap<u64, u32>, el: ElementRef<'_>) {
    for k in hint_keys(el) {
        *ancestors.entry(k).or_insert(0) += 1;
    }
}

fn leave(ancestors: &mut FxHashMap<u64, u32>, el: ElementRef<'_>) {
    for k in hint_keys(el) {
        if let Some(n) = ancestors.get_mut(&k) {
            *n -= 1;
            if *n == 0 {
                ancestors.remove(&k);
            }
        }
    }
}

/// A declared value in the cascade: a compiled sheet's, or one made for this
/// element (`style` attribute, `var()` substitution).
enum Val<'a> {
    Shared(&'a Arc<str>),
    Owned(Arc<str>),
}

impl Val<'_> {
    fn as_str(&self) -> &str {
        match self {
            Val::Shared(v) => v,
            Val::Owned(v) => v,
        }
    }

    fn to_arc(&self) -> Arc<str> {
        match self {
            Val::Shared(v) => Arc::clone(v),
            Val::Owned(v) => Arc::clone(v),
        }
    }
}

/// The winning declaration of one property so far.
struct Slot<'a> {
    precedence: Precedence,
    value: Val<'a>,
    deferred: bool,
}

/// A winning custom property or `var()` shorthand, by name.
struct NamedSlot<'a> {
    name: &'a str,
    precedence: Precedence,
    value: &'a str,
    custom: bool,
}

/// Declarations compete per property: the higher precedence wins, and of equal
/// precedence (one rule) the later one.
fn offer<'a>(
    slots: &mut [Option<Slot<'a>>; PROPS],
    named: &mut Vec<NamedSlot<'a>>,
    decl: &'a Decl,
    precedence: Precedence,
) {
    match decl {
        Decl::Prop {
            id,
            value,
            important,
            deferred,
        } => {
            let p = Precedence {
                important: *important,
                layer: if *important {
                    UNLAYERED - precedence.layer
                } else {
                    precedence.layer
                },
                ..precedence
            };
            match &slots[*id] {
                Some(q) if q.precedence > p => {}
                _ => {
                    slots[*id] = Some(Slot {
                        precedence: p,
                        value: Val::Shared(value),
                        deferred: *deferred,
                    });
                }
            }
        }
        Decl::Named {
            name,
            value,
            important,
            custom,
        } => {
            let p = Precedence {
                important: *important,
                layer: if *important {
                    UNLAYERED - precedence.layer
                } else {
                    precedence.layer
                },
                ..precedence
            };
            let slot = NamedSlot {
                name,
                precedence: p,
                value,
                custom: *custom,
            };
            match named.iter_mut().find(|n| n.name == &**name) {
                Some(q) if q.precedence > p => {}
                Some(q) => *q = slot,
                None => named.push(slot),
            }
        }
    }
}

fn compute_one(
    index: &RuleIndex,
    matched: &[u32],
    inline: Option<&str>,
    parent: &ComputedStyle,
    root_size: f32,
) -> ComputedStyle {
    let inline: Vec<Decl> = inline
        .map(|style| compile_declarations(&parse_declarations(style)))
        .unwrap_or_default();
    let mut slots: [Option<Slot<'_>>; PROPS] = [const { None }; PROPS];
    let mut named: Vec<NamedSlot<'_>> = Vec::new();
    for &i in matched {
        let (rule, precedence) = index.rule(i);
        for decl in rule.declarations.iter() {
            offer(&mut slots, &mut named, decl, precedence);
        }
    }
    for (n, decl) in inline.iter().enumerate() {
        let precedence = Precedence {
            important: false,
            origin: 2,
            layer: UNLAYERED,
            specificity: 0,
            order: n as u32,
        };
        offer(&mut slots, &mut named, decl, precedence);
    }
    // Custom properties: inherited, overridden by this element's winners.
    let mut vars = Arc::clone(&parent.vars);
    if named.iter().any(|n| n.custom) {
        let mut map: HashMap<String, String> = (*vars).clone();
        for n in named.iter().filter(|n| n.custom) {
            map.insert(n.name.to_string(), n.value.to_string());
        }
        vars = Arc::new(map);
    }
    // Declarations that use var(): substitute, then expand their shorthands and let
    // the longhands compete by precedence.
    let mut deferred: Vec<(&str, Precedence, Arc<str>)> = Vec::new();
    for (id, slot) in slots.iter_mut().enumerate() {
        if slot.as_ref().is_some_and(|s| s.deferred) {
            if let Some(s) = slot.take() {
                deferred.push((prop_name(id), s.precedence, s.value.to_arc()));
            }
        }
    }
    for n in named.iter().filter(|n| !n.custom) {
        deferred.push((n.name, n.precedence, Arc::from(n.value)));
    }
    for (name, p, value) in &deferred {
        // An unresolvable var() makes the declaration invalid at computed-value time:
        // the property is then unknown (`unset`).
        let substituted = substitute_vars(value, &vars).unwrap_or_else(|| UNRESOLVED.to_string());
        for (n, val) in expand(name, &substituted) {
            let Some(id) = prop_id(&n) else {
                continue;
            };
            let wins = match &slots[id] {
                Some(q) => q.precedence <= *p,
                None => true,
            };
            if wins {
                slots[id] = Some(Slot {
                    precedence: *p,
                    value: Val::Owned(val.into()),
                    deferred: false,
                });
            }
        }
    }
    let get = |id: usize| slots[id].as_ref().map(|s| s.value.as_str());

    let inherit = |v: Option<&str>| matches!(v, Some("inherit"));
    let mut s = ComputedStyle {
        color: parent.color,
        background_color: Some(Rgba::TRANSPARENT),
        background_image: false,
        font_size: parent.font_size,
        font_weight: parent.font_weight,
        display: "inline".into(),
        visibility_hidden: parent.visibility_hidden,
        opacity: 1.0,
        content_visibility_hidden: false,
        underline: false,
        other_decoration: false,
        extra: Vec::new(),
        vars,
    };

    if let Some(v) = get(FONT_SIZE) {
        s.font_size = font_size(v, parent.font_size, root_size).unwrap_or(parent.font_size);
    }
    if let Some(v) = get(FONT_WEIGHT) {
        s.font_weight = font_weight(v, parent.font_weight);
    }
    match get(COLOR) {
        Some("inherit" | "currentcolor" | "unset") | None => {}
        Some("initial") => s.color = Some(Rgba::BLACK),
        Some(v) => s.color = Rgba::parse(v),
    }
    match get(BACKGROUND_COLOR) {
        None | Some("initial" | "unset") => {}
        Some("inherit") => s.background_color = parent.background_color,
        Some("currentcolor") => s.background_color = s.color,
        Some(v) => s.background_color = Rgba::parse(v),
    }
    if let Some(v) = get(BACKGROUND_IMAGE) {
        s.background_image = !matches!(v, "none" | "initial" | "unset" | "");
    }
    match get(DISPLAY) {
        Some(v) if !inherit(Some(v)) => s.display = v.to_string(),
        Some(_) => s.display = parent.display.clone(),
        None => {}
    }
    match get(VISIBILITY) {
        Some("hidden" | "collapse") => s.visibility_hidden = true,
        Some("visible") => s.visibility_hidden = false,
        _ => {}
    }
    if let Some(v) = get(OPACITY) {
        s.opacity = parse_opacity(v).unwrap_or(1.0);
    }
    s.content_visibility_hidden = get(CONTENT_VISIBILITY) == Some("hidden");

    // Text decorations propagate from inline ancestors to their text.
    let parent_inline = !matches!(
        parent.display.as_str(),
        "block" | "list-item" | "table-cell" | "flex" | "grid"
    );
    let inherited_underline = parent.underline && parent_inline;
    let inherited_other = parent.other_decoration && parent_inline;
    // (`text-decoration` itself is always expanded to `text-decoration-line`.)
    let decoration = get(TEXT_DECORATION_LINE);
    match decoration {
        Some(v) => {
            s.underline = v.contains("underline") || (inherited_underline && !v.contains("none"));
            s.other_decoration = v.contains("line-through") || v.contains("overline");
        }
        None => {
            s.underline = inherited_underline;
            s.other_decoration = inherited_other;
        }
    }
    // Block children of a decorated block still draw their ancestor's decoration.
    if decoration.is_none() && parent.underline {
        s.underline = true;
    }

    // The kept properties, in `KEPT` order (their ids).
    s.extra = slots[..KEPT.len()]
        .iter()
        .enumerate()
        .filter_map(|(id, slot)| Some((KEPT[id], slot.as_ref()?.value.to_arc())))
        .collect();
    s
}
/// Deepest chain of `var()` references followed (a longer chain is unresolvable).
const MAX_VAR_DEPTH: usize = 16;
/// Most `var()` references substituted for one value, and the longest value a
/// substitution may build (in bytes): past either the value is unresolvable, as
/// browsers treat values that blow up (`--a: var(--b) var(--b)`, `--b: var(--c)
/// var(--c)`, … doubles at every level).
const MAX_VAR_SUBSTITUTIONS: usize = 1024;
const MAX_SUBSTITUTED_LEN: usize = 64 * 1024;

/// Replaces each `var(--name[, fallback])` in `value` with the custom property's
/// value (or the fallback); `None` when one can't be resolved.
///
/// Each substituted value is itself substituted, trimmed and lowercased before it
/// is put in place. An explicit stack of the values being substituted, not
/// recursion, and a budget on substitutions and length: a page's custom
/// properties decide how deep and how wide the expansion goes.
fn substitute_vars(value: &str, vars: &HashMap<String, String>) -> Option<String> {
    /// A value being substituted: what is done, what is left.
    struct Frame<'a> {
        out: String,
        rest: &'a str,
    }
    let mut substitutions = 0usize;
    let mut built = 0usize;
    let mut stack = vec![Frame {
        out: String::new(),
        rest: value,
    }];
    loop {
        let frame = stack.last_mut()?;
        let Some(start) = frame.rest.find("var(") else {
            // This value is done: it takes its place in the one that referred to it.
            let done = stack.pop()?;
            let mut text = done.out;
            text.push_str(done.rest);
            let text = text.trim().to_ascii_lowercase();
            match stack.last_mut() {
                Some(parent) => {
                    built += text.len();
                    if built > MAX_SUBSTITUTED_LEN {
                        return None;
                    }
                    parent.out.push_str(&text);
                    continue;
                }
                None => return Some(text),
            }
        };
        let rest = frame.rest;
        frame.out.push_str(&rest[..start]);
        let inner_start = start + 4;
        let mut level = 1;
        let mut end = None;
        for (i, c) in rest[inner_start..].char_indices() {
            match c {
                '(' => level += 1,
                ')' => {
                    level -= 1;
                    if level == 0 {
                        end = Some(inner_start + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end?;
        let inner = &rest[inner_start..end];
        frame.rest = &rest[end + 1..];
        let (name, fallback) = match inner.split_once(',') {
            Some((n, f)) => (n.trim(), Some(f.trim())),
            None => (inner.trim(), None),
        };
        let replacement: &str = match vars.get(name).filter(|v| !v.trim().is_empty()) {
            Some(v) => v,
            None => fallback?,
        };
        substitutions += 1;
        if stack.len() > MAX_VAR_DEPTH || substitutions > MAX_VAR_SUBSTITUTIONS {
            return None;
        }
        stack.push(Frame {
            out: String::new(),
            rest: replacement,
        });
    }
}

/// Expands the shorthands rules care about into longhands; other properties pass
/// through with lowercase names and trimmed values.
fn expand(name: &str, value: &str) -> Vec<(String, String)> {
    let lower = value.trim().to_ascii_lowercase();
    if name.starts_with("--") {
        // Custom properties keep their case-sensitive value.
        return vec![(name.to_string(), value.trim().to_string())];
    }
    if lower.contains("var(") {
        // Expanded once the element's custom properties are known (`compute_one`).
        return vec![(name.to_string(), lower)];
    }
    match name {
        "background" => {
            let mut out = vec![(
                "background-image".to_string(),
                if lower.contains("url(") || lower.contains("gradient(") || lower.contains("image(")
                {
                    lower.clone()
                } else {
                    "none".to_string()
                },
            )];
            // The color is the last layer's color component, if any.
            let last_layer = lower.rsplit(',').next().unwrap_or("");
            let color = if last_layer.contains('(')
                && !lower.contains("url(")
                && !lower.contains("gradient(")
            {
                Some(lower.clone())
            } else {
                last_layer
                    .split_whitespace()
                    .find(|w| Rgba::parse(w).is_some() || *w == "currentcolor")
                    .map(str::to_string)
                    .or_else(|| {
                        if lower.contains("gradient(") {
                            return None;
                        }
                        // Functional colors contain spaces: take `rgb(...)` etc. whole.
                        [
                            "rgb", "rgba", "hsl", "hsla", "hwb", "lab", "lch", "oklab", "oklch",
                            "color(",
                        ]
                        .iter()
                        .find_map(|f| {
                            let start = lower.find(&format!("{f}("))?;
                            let end = lower[start..].find(')')? + start + 1;
                            Some(lower[start..end].to_string())
                        })
                    })
            };
            if lower == "none" || lower == "transparent" {
                out.push(("background-color".into(), "transparent".into()));
            } else if let Some(c) = color {
                out.push(("background-color".into(), c));
            } else if matches!(lower.as_str(), "inherit" | "initial" | "unset") {
                out.push(("background-color".into(), lower.clone()));
            } else {
                out.push(("background-color".into(), "transparent".into()));
            }
            out
        }
        "font" => {
            let mut out = Vec::new();
            let mut weight = "400".to_string();
            for word in lower.split_whitespace() {
                if matches!(word, "bold" | "bolder" | "lighter" | "normal")
                    || (word.len() == 3 && word.parse::<u16>().is_ok())
                {
                    weight = word.to_string();
                    continue;
                }
                let size_part = word.split('/').next().unwrap_or("");
                if font_size(size_part, 16.0, 16.0).is_some() {
                    out.push(("font-size".to_string(), size_part.to_string()));
                    break;
                }
            }
            out.push(("font-weight".to_string(), weight));
            out
        }
        "text-decoration" | "text-decoration-line" => {
            vec![("text-decoration-line".to_string(), lower)]
        }
        "overflow" => vec![
            ("overflow".to_string(), lower.clone()),
            ("overflow-x".to_string(), lower.clone()),
            ("overflow-y".to_string(), lower),
        ],
        _ => vec![(name.to_string(), lower)],
    }
}

/// The value a kept property gets when its `var()` does not resolve: the
/// declaration is invalid at computed-value time and the value unknown.
pub const UNRESOLVED: &str = "unset-unknown";

/// Whether a declared value cannot be known statically: an unresolved `var()`
/// ([`UNRESOLVED`]) or a math function (`calc()`, `min()`, `max()`,
/// `clamp()`) the cascade does not evaluate. Rules built on the cascade report
/// *cannot tell* for such a value where it could change their answer.
pub fn is_unresolved(value: &str) -> bool {
    let v = value.trim();
    v == UNRESOLVED
        || ["calc(", "min(", "max(", "clamp(", "var(", "env("]
            .iter()
            .any(|f| v.contains(f))
}

/// A length in CSS pixels, assuming 16px fonts and a 1280×1024 viewport for
/// relative units; `None` for percentages, `auto`, `calc()` and the like.
pub fn length_px(v: &str) -> Option<f32> {
    let v = v.trim();
    if v == "0" {
        return Some(0.0);
    }
    let units: [(&str, f32); 7] = [
        ("px", 1.0),
        ("rem", 16.0),
        ("em", 16.0),
        ("vw", 12.8),
        ("vh", 10.24),
        ("pt", 4.0 / 3.0),
        ("cm", 37.8),
    ];
    for (unit, factor) in units {
        if let Some(n) = v.strip_suffix(unit) {
            return n.trim().parse::<f32>().ok().map(|x| x * factor);
        }
    }
    None
}

/// Resolves a `font-size` value to CSS pixels; `None` when it cannot be resolved
/// statically (e.g. `calc()` with custom properties).
pub fn font_size(v: &str, parent: f32, root: f32) -> Option<f32> {
    let v = v.trim();
    let keyword = match v {
        "xx-small" => Some(9.0),
        "x-small" => Some(10.0),
        "small" => Some(13.0),
        "medium" => Some(16.0),
        "large" => Some(18.0),
        "x-large" => Some(24.0),
        "xx-large" => Some(32.0),
        "xxx-large" => Some(48.0),
        "smaller" => Some(parent / 1.2),
        "larger" => Some(parent * 1.2),
        "inherit" | "unset" => Some(parent),
        "initial" => Some(16.0),
        _ => None,
    };
    if keyword.is_some() {
        return keyword;
    }
    let num = |suffix: &str| -> Option<f32> { v.strip_suffix(suffix)?.trim().parse().ok() };
    if let Some(n) = num("px") {
        return Some(n);
    }
    if let Some(n) = num("rem") {
        return Some(n * root);
    }
    if let Some(n) = num("em") {
        return Some(n * parent);
    }
    if let Some(n) = num("%") {
        return Some(n * parent / 100.0);
    }
    if let Some(n) = num("pt") {
        return Some(n * 4.0 / 3.0);
    }
    if let Some(n) = num("pc") {
        return Some(n * 16.0);
    }
    if let Some(n) = num("vw") {
        return Some(n * 12.8);
    }
    if let Some(n) = num("vh") {
        return Some(n * 10.24);
    }
    if v == "0" {
        return Some(0.0);
    }
    None
}

fn font_weight(v: &str, parent: u16) -> u16 {
    match v.trim() {
        "normal" | "initial" => 400,
        "bold" => 700,
        "bolder" => {
            if parent < 400 {
                400
            } else if parent < 600 {
                700
            } else {
                900
            }
        }
        "lighter" => {
            if parent < 600 {
                100
            } else if parent < 800 {
                400
            } else {
                700
            }
        }
        "inherit" | "unset" => parent,
        n => n.parse::<f32>().map(|x| x as u16).unwrap_or(parent),
    }
}

fn parse_opacity(v: &str) -> Option<f32> {
    let v = v.trim();
    if let Some(p) = v.strip_suffix('%') {
        return p
            .trim()
            .parse::<f32>()
            .ok()
            .map(|x| (x / 100.0).clamp(0.0, 1.0));
    }
    v.parse::<f32>().ok().map(|x| x.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use scraper::Selector;

    fn style_of<'a>(doc: &'a Html, styles: &'a Styles, sel: &str) -> &'a ComputedStyle {
        let el = doc.select(&Selector::parse(sel).unwrap()).next().unwrap();
        styles.get(el.id()).unwrap()
    }

    #[test]
    fn cascade_order_importance_and_inheritance() {
        let doc = Html::parse_document(
            r#"<html><head><style>
            p { color: red } .a { color: green } #x { color: blue }
            .imp { color: purple !important }
            body { font-size: 20px; color: #333 }
            @media print { #x { color: black } }
            .big { font-size: 1.5em; font-weight: bold }
            .hide { display: none } .vis { visibility: hidden } .show { visibility: visible }
            </style></head><body>
            <p id=x class=a>1</p><p class=a>2</p><p>3</p>
            <p class=imp style="color: orange">4</p><p class=a style="color: orange">5</p>
            <span id=inh>6</span><div class=big><span id=em>7</span></div>
            <div class=vis><span id=vh>8</span><span id=vv class=show>9</span></div>
            <div hidden id=h></div><div hidden style="display:block" id=hb></div>
            <h1 id=h1>t</h1><a href=x id=link>l</a>
            </body></html>"#,
        );
        let st = Styles::compute(&doc, &[]);
        let color = |s: &str| style_of(&doc, &st, s).color.unwrap().to_hex();
        assert_eq!(color("#x"), "#0000ff");
        assert_eq!(color("p:nth-child(2)"), "#008000");
        assert_eq!(color("p:nth-child(3)"), "#ff0000");
        assert_eq!(color(".imp"), "#800080");
        assert_eq!(color("p:nth-child(5)"), "#ffa500");
        assert_eq!(color("#inh"), "#333333");
        assert_eq!(style_of(&doc, &st, "#em").font_size, 30.0);
        assert!(style_of(&doc, &st, "#em").is_bold());
        assert!(style_of(&doc, &st, "#vh").visibility_hidden);
        assert!(!style_of(&doc, &st, "#vv").visibility_hidden);
        assert_eq!(style_of(&doc, &st, "#h").display, "none");
        assert_eq!(style_of(&doc, &st, "#hb").display, "block");
        assert_eq!(style_of(&doc, &st, "#h1").font_size, 40.0);
        assert_eq!(color("#link"), "#0000ee");
        assert!(style_of(&doc, &st, "#link").underline);
    }

    #[test]
    fn shorthands_and_linked_sheets() {
        let doc = Html::parse_document(
            r#"<div id=a style="background: #000 url(x.png) no-repeat">x</div>
            <div id=b style="background: rgb(10, 20, 30)">x</div>
            <p id=c style="font: italic bold 12px/30px Georgia, serif">x</p>
            <div id=d>x</div>"#,
        );
        let linked = [Stylesheet {
            url: "https://example.com/a.css".into(),
            text: "#d { background-color: yellow }".into(),
            media: None,
            ..Default::default()
        }];
        let st = Styles::compute(&doc, &linked);
        let a = style_of(&doc, &st, "#a");
        assert!(a.background_image);
        assert_eq!(a.background_color.unwrap().to_hex(), "#000000");
        assert_eq!(
            style_of(&doc, &st, "#b").background_color.unwrap().to_hex(),
            "#0a141e"
        );
        let c = style_of(&doc, &st, "#c");
        assert_eq!((c.font_size, c.font_weight), (12.0, 700));
        assert_eq!(
            style_of(&doc, &st, "#d").background_color.unwrap().to_hex(),
            "#ffff00"
        );
    }

    #[test]
    fn style_elements_and_linked_sheets_cascade_in_document_order() {
        // <link a.css> <style>#p blue</style> <link b.css> <style>#q red</style>:
        // equal specificity, so the later source wins — the `<style>` over
        // a.css, b.css over that `<style>`, the last `<style>` over b.css.
        let doc = Html::parse_document(
            "<style>#p { color: blue } #r { color: blue }</style>\
             <style>#q { color: red }</style><p id=p>x</p><p id=q>x</p><p id=r>x</p>",
        );
        let linked = [
            Stylesheet {
                url: "https://example.com/a.css".into(),
                text: "#p { color: green } #q { color: green }".into(),
                styles_before: 0,
                ..Default::default()
            },
            Stylesheet {
                url: "https://example.com/b.css".into(),
                text: "#q { color: maroon } #r { color: maroon }".into(),
                styles_before: 1,
                ..Default::default()
            },
        ];
        let st = Styles::compute(&doc, &linked);
        let color = |sel: &str| style_of(&doc, &st, sel).color.unwrap().to_hex();
        assert_eq!(color("#p"), "#0000ff");
        assert_eq!(color("#q"), "#ff0000");
        assert_eq!(color("#r"), "#800000");
    }

    #[test]
    fn imported_sheets_keep_the_layer_order_their_importers_declared() {
        // main.css: `@layer a, b; @import url(b.css) layer(b); @layer a {…}`,
        // and a `<style>` importing y.css into layer y after `@layer x, y;`.
        let style = "@layer x, y; @import url(y.css) layer(y); @layer x { #s { color: #000 } }";
        let doc =
            Html::parse_document(&format!("<style>{style}</style><p id=n>x</p><p id=s>x</p>"));
        let sheet = |url: &str, text: &str, layer: &str, before: &[&str]| Stylesheet {
            url: url.into(),
            text: text.into(),
            layer: (!layer.is_empty()).then(|| layer.to_string()),
            layers_before: before.iter().map(|l| l.to_string()).collect(),
            ..Default::default()
        };
        let mut y = sheet(
            "https://e.test/y.css",
            "#s { color: #999 }",
            "y",
            &["x", "y"],
        );
        y.style_element = Some(crate::css::style_key(style));
        let linked = [
            sheet(
                "https://e.test/b.css",
                "#n { color: #999 }",
                "b",
                &["a", "b"],
            ),
            sheet(
                "https://e.test/main.css",
                "@layer a, b; @import url(b.css) layer(b); @layer a { #n { color: #000 } }",
                "",
                &[],
            ),
            y,
        ];
        let st = Styles::compute(&doc, &linked);
        for id in ["#n", "#s"] {
            let color = style_of(&doc, &st, id).color.map(|c| c.to_hex());
            assert_eq!(color.as_deref(), Some("#999999"), "{id}");
        }
    }

    #[test]
    fn ancestor_hints_skip_only_impossible_rules() {
        // Hints are kept hashed; compare with the hashes of the expected names.
        let hints = |selector: &str| ancestor_hints(selector);
        let h = |names: Vec<&str>| -> Vec<u64> {
            names
                .iter()
                .map(|n| hint_hash(n.as_bytes()[0], &n[1..]))
                .collect()
        };
        assert_eq!(hints("#nav .menu > a"), h(vec![".menu", "#nav"]));
        assert_eq!(hints("div.a.b p"), h(vec!["<div", ".a", ".b"]));
        assert!(ancestor_hints(".a + p").is_empty());
        assert_eq!(hints(".x:hover a"), h(vec![".x"]));
        assert_eq!(
            ancestor_hints("details:not([open]) > :not(summary)"),
            h(vec!["<details"])
        );
        assert_eq!(hints("[data-x] a"), h(Vec::new()));
        let doc = Html::parse_document(
            r#"<style>#nav a { color: red } .side > p a { color: blue }</style>
            <div id=nav><p><a id=one>x</a></p></div><div class=side><p><a id=two>y</a></p></div><a id=three>z</a>"#,
        );
        let st = Styles::compute(&doc, &[]);
        let color = |s: &str| style_of(&doc, &st, s).color.unwrap().to_hex();
        assert_eq!(color("#one"), "#ff0000");
        assert_eq!(color("#two"), "#0000ff");
        assert_eq!(color("#three"), "#000000");
    }

    #[test]
    fn link_pseudo_classes() {
        let doc = Html::parse_document(
            r#"<style>.c a:link { color: #20609f } a:visited { color: purple } a:hover { color: red }</style>
            <div class=c><a href=x id=l>x</a><a id=n>y</a></div>"#,
        );
        let st = Styles::compute(&doc, &[]);
        assert_eq!(style_of(&doc, &st, "#l").color.unwrap().to_hex(), "#20609f");
        assert_eq!(style_of(&doc, &st, "#n").color.unwrap().to_hex(), "#000000");
    }

    #[test]
    fn the_page_caps_on_sheets_rules_and_selectors_cut_in_cascade_order() {
        use crate::budget::{Limit, PageBudget};
        let doc = Html::parse_document(
            "<style>p { color: red } .a, .b { color: green }</style><style>p.a { color: blue }</style><p class=a>x</p>",
        );
        let p = |styles: &Styles| {
            let el = doc.select(&Selector::parse("p").unwrap()).next().unwrap();
            styles.get(el.id()).unwrap().color
        };
        let run = |budget: PageBudget| Styles::compute_within(&doc, &[], &budget, &|| false);
        let (whole, hit) = run(PageBudget::DEFAULT);
        assert!(hit.is_empty());
        assert_eq!(p(&whole), Rgba::parse("blue"));
        // One sheet: the second is not applied.
        let (styles, hit) = run(PageBudget {
            max_stylesheets: 1,
            ..PageBudget::DEFAULT
        });
        assert_eq!(hit, vec![Limit::Stylesheets]);
        assert_eq!(p(&styles), Rgba::parse("green"));
        // One style rule: `.a, .b` and the second sheet are cut.
        let (styles, hit) = run(PageBudget {
            max_css_rules: 1,
            ..PageBudget::DEFAULT
        });
        assert_eq!(hit, vec![Limit::CssRules]);
        assert_eq!(p(&styles), Rgba::parse("red"));
        // Two selectors: `.b` and the second sheet's `p` are cut.
        let (styles, hit) = run(PageBudget {
            max_selectors: 2,
            ..PageBudget::DEFAULT
        });
        assert_eq!(hit, vec![Limit::Selectors]);
        assert_eq!(p(&styles), Rgba::parse("green"));
        // Exactly enough for everything: nothing is hit.
        let (_, hit) = run(PageBudget {
            max_stylesheets: 2,
            max_css_rules: 3,
            max_selectors: 4,
            ..PageBudget::DEFAULT
        });
        assert!(hit.is_empty(), "{hit:?}");
        // A stop ends the pass at its next check: later elements are left
        // unstyled (their callers stop too).
        let many = Html::parse_document(&"<p>x</p>".repeat(200));
        let (stopped, _) = Styles::compute_within(&many, &[], &PageBudget::DEFAULT, &|| true);
        let styled = many
            .root_element()
            .descendants()
            .filter(|n| stopped.get(n.id()).is_some())
            .count();
        assert_eq!(styled, usize::try_from(STOP_EVERY).unwrap() - 1);
    }

    #[test]
    fn custom_properties() {
        let doc = Html::parse_document(
            r#"<style>:root { --brand: #0B5FFF; --fg: var(--brand) } .b { background: var(--brand); color: var(--missing, white) }
            .c { color: var(--fg) } .d { --brand: red } .e { color: var(--nope) }</style>
            <a class=b id=b>x</a><p class=c id=c>y</p><div class=d><p class=c id=d>z</p></div><p class=e id=e>w</p>"#,
        );
        let st = Styles::compute(&doc, &[]);
        let b = style_of(&doc, &st, "#b");
        assert_eq!(b.background_color.unwrap().to_hex(), "#0b5fff");
        assert_eq!(b.color.unwrap().to_hex(), "#ffffff");
        assert_eq!(style_of(&doc, &st, "#c").color.unwrap().to_hex(), "#0b5fff");
        assert_eq!(style_of(&doc, &st, "#d").color.unwrap().to_hex(), "#ff0000");
        assert!(style_of(&doc, &st, "#e").color.is_none());
    }

    #[test]
    fn visually_hidden_patterns() {
        let doc = Html::parse_document(
            r#"<span id=a style="position:absolute;clip:rect(0 0 0 0);width:1px;height:1px;overflow:hidden">x</span>
            <span id=b style="position:absolute;left:-9999px">x</span><span id=c>x</span>"#,
        );
        let st = Styles::compute(&doc, &[]);
        assert!(style_of(&doc, &st, "#a").is_visually_clipped());
        assert!(style_of(&doc, &st, "#b").is_visually_clipped());
        assert!(!style_of(&doc, &st, "#c").is_visually_clipped());
    }
}
