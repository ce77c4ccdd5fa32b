//! Colors for contrast: parsing (via the `csscolorparser` crate, which knows every
//! CSS color syntax and named color), alpha compositing, relative luminance and the
//! WCAG 2.1 contrast ratio.

use serde::{Deserialize, Serialize};

/// An sRGB color with channels 0–255 and alpha 0–1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rgba {
    /// Red, 0–255.
    pub r: f32,
    /// Green, 0–255.
    pub g: f32,
    /// Blue, 0–255.
    pub b: f32,
    /// Alpha, 0 (transparent) – 1 (opaque).
    pub a: f32,
}

impl Rgba {
    /// Opaque black, the initial `color`.
    pub const BLACK: Rgba = Rgba {
        r: 0.0,
        g: 0.0,
        b: 0.0,
        a: 1.0,
    };
    /// Opaque white, the canvas a page is drawn on.
    pub const WHITE: Rgba = Rgba {
        r: 255.0,
        g: 255.0,
        b: 255.0,
        a: 1.0,
    };
    /// Fully transparent, the initial `background-color`.
    pub const TRANSPARENT: Rgba = Rgba {
        r: 0.0,
        g: 0.0,
        b: 0.0,
        a: 0.0,
    };

    /// Parses a CSS color value. `None` for keywords that need context
    /// (`currentcolor`, `inherit`, system colors) and values that don't parse.
    pub fn parse(value: &str) -> Option<Rgba> {
        let v = value.trim();
        if v.is_empty() || v.contains("var(") {
            return None;
        }
        let c = csscolorparser::parse(v).ok()?;
        Some(Rgba {
            r: (c.r * 255.0).clamp(0.0, 255.0),
            g: (c.g * 255.0).clamp(0.0, 255.0),
            b: (c.b * 255.0).clamp(0.0, 255.0),
            a: c.a.clamp(0.0, 1.0),
        })
    }

    /// This color with its alpha multiplied by `opacity`.
    pub fn fade(self, opacity: f32) -> Rgba {
        Rgba {
            a: self.a * opacity.clamp(0.0, 1.0),
            ..self
        }
    }

    /// This color painted over `below` (source-over compositing).
    pub fn over(self, below: Rgba) -> Rgba {
        let a = self.a + below.a * (1.0 - self.a);
        if a <= 0.0 {
            return Rgba::TRANSPARENT;
        }
        let mix = |top: f32, bottom: f32| (top * self.a + bottom * below.a * (1.0 - self.a)) / a;
        Rgba {
            r: mix(self.r, below.r),
            g: mix(self.g, below.g),
            b: mix(self.b, below.b),
            a,
        }
    }

    /// Whether the color is fully opaque.
    pub fn is_opaque(self) -> bool {
        self.a >= 0.999
    }

    /// WCAG 2.1 relative luminance (of the opaque color).
    pub fn luminance(self) -> f32 {
        let lin = |c: f32| {
            let c = c / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(self.r) + 0.7152 * lin(self.g) + 0.0722 * lin(self.b)
    }

    /// `#rrggbb` (or `#rrggbbaa` when translucent), for finding data.
    pub fn to_hex(self) -> String {
        let h = |c: f32| c.round().clamp(0.0, 255.0) as u8;
        if self.is_opaque() {
            format!("#{:02x}{:02x}{:02x}", h(self.r), h(self.g), h(self.b))
        } else {
            format!(
                "#{:02x}{:02x}{:02x}{:02x}",
                h(self.r),
                h(self.g),
                h(self.b),
                h(self.a * 255.0)
            )
        }
    }
}

/// The color stops of a single `linear-gradient()` / `radial-gradient()` /
/// `conic-gradient()` (repeating ones too). `None` when the value has several layers,
/// an image, or a stop whose color cannot be parsed.
pub fn gradient_stops(value: &str) -> Option<Vec<Rgba>> {
    let v = value.trim().to_ascii_lowercase();
    if v.contains("url(") || v.matches("gradient(").count() != 1 {
        return None;
    }
    let start = v.find("gradient(")? + "gradient(".len();
    let mut depth = 1;
    let mut end = None;
    for (i, c) in v[start..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(start + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let inner = &v[start..end?];
    let mut stops = Vec::new();
    for (i, part) in crate::css::split_selector_list(inner)
        .into_iter()
        .enumerate()
    {
        if let Some(c) = Rgba::parse(part) {
            stops.push(c);
            continue;
        }
        // `color position [position]`: the color is the first token (functional
        // colors keep their parentheses together).
        let token = match part.find(')') {
            Some(close) if part.contains('(') => &part[..=close],
            _ => part.split_whitespace().next().unwrap_or(""),
        };
        match Rgba::parse(token) {
            Some(c) => stops.push(c),
            // The first argument may be a direction, angle or shape.
            None if i == 0 && is_gradient_geometry(part) => continue,
            None => return None,
        }
    }
    (!stops.is_empty()).then_some(stops)
}

fn is_gradient_geometry(part: &str) -> bool {
    let p = part.trim();
    p.starts_with("to ")
        || p.starts_with("from ")
        || p.contains("circle")
        || p.contains("ellipse")
        || p.contains("at ")
        || ["deg", "turn", "rad", "grad"].iter().any(|u| {
            p.strip_suffix(u)
                .is_some_and(|n| n.trim().parse::<f32>().is_ok())
        })
}

/// WCAG 2.1 contrast ratio between two opaque colors, 1–21.
pub fn contrast_ratio(a: Rgba, b: Rgba) -> f32 {
    let (la, lb) = (a.luminance(), b.luminance());
    let (hi, lo) = if la > lb { (la, lb) } else { (lb, la) };
    (hi + 0.05) / (lo + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios() {
        assert!((contrast_ratio(Rgba::BLACK, Rgba::WHITE) - 21.0).abs() < 0.01);
        let grey = Rgba::parse("#777").unwrap();
        let r = contrast_ratio(grey, Rgba::WHITE);
        assert!((r - 4.48).abs() < 0.01, "{r}");
        assert_eq!(Rgba::parse("rebeccapurple").unwrap().to_hex(), "#663399");
        assert_eq!(Rgba::parse("rgb(0 0 0 / 50%)").unwrap().a, 0.5);
        assert!(Rgba::parse("currentcolor").is_none());
        assert!(Rgba::parse("var(--x)").is_none());
    }

    #[test]
    fn gradients() {
        let s = gradient_stops("linear-gradient(to right, #FFF, #00F)").unwrap();
        assert_eq!(s.len(), 2);
        let s = gradient_stops(
            "linear-gradient(90deg, transparent, transparent 3.3em, black 3.3em, black 6em)",
        )
        .unwrap();
        assert_eq!(s.len(), 4);
        assert_eq!(s[0].a, 0.0);
        let s = gradient_stops("radial-gradient(circle, rgb(0, 0, 0) 10%, white)").unwrap();
        assert_eq!(s[0].to_hex(), "#000000");
        assert!(gradient_stops("url(a.png), linear-gradient(red, blue)").is_none());
        assert!(gradient_stops("linear-gradient(var(--a), red)").is_none());
    }

    #[test]
    fn compositing() {
        let half_black = Rgba::BLACK.fade(0.5);
        let c = half_black.over(Rgba::WHITE);
        assert!((c.r - 127.5).abs() < 0.5 && c.is_opaque());
        assert_eq!(Rgba::TRANSPARENT.over(Rgba::WHITE), Rgba::WHITE);
    }
}
