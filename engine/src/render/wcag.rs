//! Names and Understanding-document links of the WCAG 2.1 A/AA success criteria,
//! so reports can say "1.4.3 Contrast (Minimum)" and link to the explanation.

/// (number, name, slug of the W3C Understanding document) for every WCAG 2.1
/// level A and AA success criterion.
const CRITERIA: &[(&str, &str, &str)] = &[
    ("1.1.1", "Non-text Content", "non-text-content"),
    (
        "1.2.1",
        "Audio-only and Video-only (Prerecorded)",
        "audio-only-and-video-only-prerecorded",
    ),
    ("1.2.2", "Captions (Prerecorded)", "captions-prerecorded"),
    (
        "1.2.3",
        "Audio Description or Media Alternative (Prerecorded)",
        "audio-description-or-media-alternative-prerecorded",
    ),
    ("1.2.4", "Captions (Live)", "captions-live"),
    (
        "1.2.5",
        "Audio Description (Prerecorded)",
        "audio-description-prerecorded",
    ),
    ("1.3.1", "Info and Relationships", "info-and-relationships"),
    ("1.3.2", "Meaningful Sequence", "meaningful-sequence"),
    (
        "1.3.3",
        "Sensory Characteristics",
        "sensory-characteristics",
    ),
    ("1.3.4", "Orientation", "orientation"),
    ("1.3.5", "Identify Input Purpose", "identify-input-purpose"),
    ("1.4.1", "Use of Color", "use-of-color"),
    ("1.4.2", "Audio Control", "audio-control"),
    ("1.4.3", "Contrast (Minimum)", "contrast-minimum"),
    ("1.4.4", "Resize Text", "resize-text"),
    ("1.4.5", "Images of Text", "images-of-text"),
    ("1.4.10", "Reflow", "reflow"),
    ("1.4.11", "Non-text Contrast", "non-text-contrast"),
    ("1.4.12", "Text Spacing", "text-spacing"),
    (
        "1.4.13",
        "Content on Hover or Focus",
        "content-on-hover-or-focus",
    ),
    ("2.1.1", "Keyboard", "keyboard"),
    ("2.1.2", "No Keyboard Trap", "no-keyboard-trap"),
    (
        "2.1.4",
        "Character Key Shortcuts",
        "character-key-shortcuts",
    ),
    ("2.2.1", "Timing Adjustable", "timing-adjustable"),
    ("2.2.2", "Pause, Stop, Hide", "pause-stop-hide"),
    (
        "2.3.1",
        "Three Flashes or Below Threshold",
        "three-flashes-or-below-threshold",
    ),
    ("2.4.1", "Bypass Blocks", "bypass-blocks"),
    ("2.4.2", "Page Titled", "page-titled"),
    ("2.4.3", "Focus Order", "focus-order"),
    (
        "2.4.4",
        "Link Purpose (In Context)",
        "link-purpose-in-context",
    ),
    ("2.4.5", "Multiple Ways", "multiple-ways"),
    ("2.4.6", "Headings and Labels", "headings-and-labels"),
    ("2.4.7", "Focus Visible", "focus-visible"),
    ("2.5.1", "Pointer Gestures", "pointer-gestures"),
    ("2.5.2", "Pointer Cancellation", "pointer-cancellation"),
    ("2.5.3", "Label in Name", "label-in-name"),
    ("2.5.4", "Motion Actuation", "motion-actuation"),
    ("3.1.1", "Language of Page", "language-of-page"),
    ("3.1.2", "Language of Parts", "language-of-parts"),
    ("3.2.1", "On Focus", "on-focus"),
    ("3.2.2", "On Input", "on-input"),
    ("3.2.3", "Consistent Navigation", "consistent-navigation"),
    (
        "3.2.4",
        "Consistent Identification",
        "consistent-identification",
    ),
    ("3.3.1", "Error Identification", "error-identification"),
    ("3.3.2", "Labels or Instructions", "labels-or-instructions"),
    ("3.3.3", "Error Suggestion", "error-suggestion"),
    (
        "3.3.4",
        "Error Prevention (Legal, Financial, Data)",
        "error-prevention-legal-financial-data",
    ),
    ("4.1.1", "Parsing", "parsing"),
    ("4.1.2", "Name, Role, Value", "name-role-value"),
    ("4.1.3", "Status Messages", "status-messages"),
];

/// The name of a success criterion (`"1.4.3"` -> `"Contrast (Minimum)"`).
pub fn name(sc: &str) -> Option<&'static str> {
    CRITERIA.iter().find(|c| c.0 == sc).map(|c| c.1)
}

/// The W3C Understanding document of a success criterion.
pub fn url(sc: &str) -> Option<String> {
    CRITERIA
        .iter()
        .find(|c| c.0 == sc)
        .map(|c| format!("https://www.w3.org/WAI/WCAG21/Understanding/{}.html", c.2))
}

/// "1.4.3 Contrast (Minimum)", or the bare number when it is not an A/AA criterion.
pub fn label(sc: &str) -> String {
    match name(sc) {
        Some(n) => format!("{sc} {n}"),
        None => sc.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criteria_are_the_fifty_a_and_aa_ones_of_wcag_21() {
        assert_eq!(CRITERIA.len(), 50);
        assert_eq!(label("1.4.3"), "1.4.3 Contrast (Minimum)");
        assert_eq!(
            url("2.4.2").unwrap(),
            "https://www.w3.org/WAI/WCAG21/Understanding/page-titled.html"
        );
        assert_eq!(label("9.9.9"), "9.9.9");
        assert!(url("9.9.9").is_none());
    }
}
