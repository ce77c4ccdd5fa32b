//! CSV: one row per finding, for spreadsheets and ad-hoc scripts. The columns are
//! [`HEADER`]; list fields (WCAG criteria, the pages of a grouped finding) are
//! joined with spaces, measured data is compact JSON. A finding about a whole
//! host or one resource is one row: `occurrences` counts its places and `pages`
//! lists the pages of those listed (`page_url` is the first).

use crate::error::{Error, Result};
use crate::report::ReportSource;

use super::outcome_name;

/// The header row.
pub(crate) const HEADER: [&str; 15] = [
    "rule_id",
    "category",
    "outcome",
    "impact",
    "page_url",
    "selector",
    "snippet",
    "message",
    "wcag",
    "baseline",
    "data",
    "scope",
    "resource",
    "occurrences",
    "pages",
];

pub(super) fn write(source: &dyn ReportSource, out: &mut dyn std::io::Write) -> Result<()> {
    let err = |e: ::csv::Error| Error::Render {
        format: "csv",
        reason: e.to_string(),
    };
    let mut w = ::csv::Writer::from_writer(out);
    w.write_record(HEADER).map_err(err)?;
    source.for_each_finding(&mut |f| {
        let baseline = match f.baseline {
            Some(sitescan_rules::BaselineState::New) => "new",
            Some(sitescan_rules::BaselineState::Unchanged) => "unchanged",
            None => "",
        };
        let data = f.data.as_ref().map(|d| d.to_string()).unwrap_or_default();
        let scope = serde_json::to_value(f.scope)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let mut pages: Vec<&str> = f.occurrences.iter().map(|o| o.page_url.as_str()).collect();
        pages.dedup();
        w.write_record([
            f.rule_id.as_str(),
            f.category.as_str(),
            outcome_name(f.outcome),
            f.impact.as_str(),
            f.page_url.as_str(),
            f.selector.as_str(),
            f.snippet.as_str(),
            f.message.as_str(),
            &f.wcag.join(" "),
            baseline,
            &data,
            &scope,
            f.resource.as_deref().unwrap_or(""),
            &f.occurrence_count().to_string(),
            &pages.join(" "),
        ])
        .map_err(err)
    })?;
    w.flush().map_err(|e| Error::Render {
        format: "csv",
        reason: e.to_string(),
    })
}

#[cfg(test)]
fn render(report: &crate::report::Report) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write(report, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;

    #[test]
    fn one_row_per_finding_parses_back_with_special_characters_intact() {
        let report = sample::report();
        let bytes = render(&report).unwrap();
        let mut r = ::csv::Reader::from_reader(bytes.as_slice());
        assert_eq!(r.headers().unwrap().iter().collect::<Vec<_>>(), HEADER);
        let rows: Vec<::csv::StringRecord> = r.records().map(|r| r.unwrap()).collect();
        assert_eq!(rows.len(), report.findings.len());
        for (row, f) in rows.iter().zip(&report.findings) {
            assert_eq!(&row[0], f.rule_id);
            assert_eq!(&row[4], f.page_url);
            assert_eq!(&row[5], f.selector);
            assert_eq!(&row[6], f.snippet);
            assert_eq!(&row[7], f.message);
        }
        assert_eq!(&rows[1][10], r#"{"contrast_ratio":2.9,"expected":4.5}"#);
        assert_eq!(&rows[6][2], "cant-tell");
        assert_eq!(
            &rows[7][7],
            "Meta description missing | add one, \"short\", under 160 characters\nsecond line"
        );
        assert_eq!(&rows[0][8], "1.1.1");
    }

    #[test]
    fn an_empty_report_is_just_the_header() {
        let bytes = render(&sample::empty_report()).unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "rule_id,category,outcome,impact,page_url,selector,snippet,message,wcag,baseline,data,scope,resource,occurrences,pages\n"
        );
    }
}
