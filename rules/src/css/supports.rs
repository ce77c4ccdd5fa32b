//! `@supports` conditions, evaluated against what the cascade implements.
//!
//! A browser applies an `@supports` block when it understands the declaration
//! or selector tested. The static cascade stands in for a current Chromium, so
//! a feature holds when Chromium supports it, except where the cascade itself
//! reads the property and cannot read the value (a `color-mix()` color, say):
//! then the condition is false and the fallback the author wrote for older
//! browsers (`@supports not (…)`) is what the rules judge, which they can.

use super::color::Rgba;

/// Properties whose values the cascade resolves to colors: a value it cannot
/// parse makes a `(property: value)` test false.
const COLOR_PROPERTIES: &[&str] = &["color", "background-color"];

/// Keywords every property accepts, or every color property.
const KEYWORDS: &[&str] = &[
    "inherit",
    "initial",
    "unset",
    "revert",
    "revert-layer",
    "currentcolor",
    "transparent",
];

/// Whether an `@supports` condition (the prelude text) holds.
///
/// Evaluated without recursion over the text: a frame per open group, so a
/// hostile prelude costs one pass and memory in proportion to its length.
/// Syntax it cannot read counts as an unknown feature: false, as in browsers.
pub fn supports_applies(condition: &str) -> bool {
    #[derive(Default)]
    struct Frame {
        value: Option<bool>,
        or: bool,
        not: bool,
    }
    fn combine(frame: &mut Frame, v: bool) {
        let v = v != frame.not;
        frame.not = false;
        frame.value = Some(match frame.value {
            None => v,
            Some(a) if frame.or => a || v,
            Some(a) => a && v,
        });
    }
    let text = condition.trim();
    let bytes = text.as_bytes();
    let mut stack = vec![Frame::default()];
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'(' {
            let end = matching_paren(bytes, i);
            let inner = text[i + 1..end.saturating_sub(1).max(i + 1)].trim();
            if let Some((name, value)) = feature(inner) {
                let v = declaration_supported(name, value);
                if let Some(top) = stack.last_mut() {
                    combine(top, v);
                }
                i = end;
            } else {
                stack.push(Frame::default());
                i += 1;
            }
            continue;
        }
        if c == b')' {
            i += 1;
            if stack.len() > 1 {
                let done = stack.pop().and_then(|f| f.value).unwrap_or(false);
                if let Some(top) = stack.last_mut() {
                    combine(top, done);
                }
            }
            continue;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-') {
            i += 1;
        }
        let word = text[start..i].to_ascii_lowercase();
        let Some(top) = stack.last_mut() else {
            return false;
        };
        if i < bytes.len() && bytes[i] == b'(' && !word.is_empty() {
            // A function: `selector(…)`, `font-tech(…)`, `font-format(…)`.
            let end = matching_paren(bytes, i);
            let args = text[i + 1..end.saturating_sub(1).max(i + 1)].trim();
            let v = match word.as_str() {
                "selector" => scraper::Selector::parse(args).is_ok(),
                "font-tech" | "font-format" => true,
                _ => false,
            };
            combine(top, v);
            i = end;
            continue;
        }
        match word.as_str() {
            "not" => top.not = !top.not,
            "and" => top.or = false,
            "or" => top.or = true,
            // Anything else is syntax no browser reads: the whole condition fails.
            _ => return false,
        }
    }
    // Unclosed groups close at the end, as CSS closes blocks at EOF.
    while stack.len() > 1 {
        let done = stack.pop().and_then(|f| f.value).unwrap_or(false);
        if let Some(top) = stack.last_mut() {
            combine(top, done);
        }
    }
    stack.pop().and_then(|f| f.value).unwrap_or(false)
}

/// `name: value` when `inner` is a declaration (a colon before any parenthesis).
fn feature(inner: &str) -> Option<(&str, &str)> {
    let colon = inner.find(':')?;
    if inner[..colon].contains(['(', ')']) {
        return None;
    }
    let name = inner[..colon].trim();
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then(|| (name, inner[colon + 1..].trim()))
}

/// Whether a current Chromium with our cascade's reading of values takes the
/// declaration.
fn declaration_supported(name: &str, value: &str) -> bool {
    let name = name.to_ascii_lowercase();
    if value.is_empty() {
        return false;
    }
    // Prefixes of other engines are not Chromium's.
    if ["-moz-", "-ms-", "-o-"].iter().any(|p| name.starts_with(p)) {
        return false;
    }
    if name.starts_with("--") {
        return true;
    }
    if COLOR_PROPERTIES.contains(&name.as_str()) {
        let v = value.to_ascii_lowercase();
        return KEYWORDS.contains(&v.as_str()) || Rgba::parse(&v).is_some();
    }
    true
}

/// The index just past the parenthesis matching the one at `open` (the end of
/// the text when unbalanced).
fn matching_paren(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::supports_applies;

    #[test]
    fn conditions() {
        assert!(supports_applies("(display: grid)"));
        assert!(!supports_applies("not (display: grid)"));
        assert!(supports_applies("(display: grid) and (gap: 1em)"));
        assert!(supports_applies(
            "(-moz-appearance: none) or (display: flex)"
        ));
        assert!(!supports_applies("(-moz-appearance: none)"));
        assert!(supports_applies("(color: #123456)"));
        // A color the cascade cannot read: the author's fallback applies.
        assert!(!supports_applies("(color: color-mix(in srgb, red, blue))"));
        assert!(supports_applies(
            "not (color: color-mix(in srgb, red, blue))"
        ));
        assert!(!supports_applies(
            "((display: grid) and (not (display: inline-grid)))"
        ));
        assert!(supports_applies("selector(:is(a, b))"));
        assert!(!supports_applies("selector(::-moz-thing)"));
        assert!(!supports_applies("bogus"));
        assert!(!supports_applies(""));
        assert!(!supports_applies("((((("));
        assert!(supports_applies("(display: grid"));
    }
}
