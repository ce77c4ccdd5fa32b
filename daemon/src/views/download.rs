//! A report rendered as a file to download, the same over the API
//! (`?format=`) and in the dashboard (Download the report).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use sitescan_engine::render::{render, Format};
use sitescan_engine::Report;

use crate::error::{Error, Result};

/// A rendered report with its content type and file name.
#[derive(Debug)]
pub struct Download {
    /// The rendered file.
    pub body: Vec<u8>,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// `sitescan-<name>.<extension>`, the name reduced to `[A-Za-z0-9_-]`.
    pub file_name: String,
}

impl Download {
    /// `report` rendered in `format`, named after `name` (a scan id, or two).
    pub fn new(report: &Report, format: Format, name: &str) -> Result<Self> {
        Self::render(report, format, name)
    }

    /// [`Download::new`] on the blocking pool: rendering a large report
    /// takes seconds, which must not stall the async threads.
    pub async fn new_off_async(report: Report, format: Format, name: &str) -> Result<Self> {
        let name = name.to_string();
        crate::ops::scans::off_async(move || Self::render(&report, format, &name)).await
    }

    fn render(report: &Report, format: Format, name: &str) -> Result<Self> {
        let body = render(report, format).map_err(Error::Engine)?;
        let name = name.replace(
            |c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'),
            "_",
        );
        Ok(Download {
            body,
            content_type: format.content_type(),
            file_name: format!("sitescan-{name}.{}", format.file_extension()),
        })
    }
}

/// 200 with the file as an attachment.
impl IntoResponse for Download {
    fn into_response(self) -> Response {
        let disposition = format!("attachment; filename=\"{}\"", self.file_name);
        let mut response = (StatusCode::OK, self.body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.content_type),
        );
        if let Ok(v) = HeaderValue::from_str(&disposition) {
            headers.insert(header::CONTENT_DISPOSITION, v);
        }
        response
    }
}
