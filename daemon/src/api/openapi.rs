//! The OpenAPI 3.0 document served at `/api/v1/openapi.json`, generated from the
//! handlers' `#[utoipa::path]` attributes and the wire types' `ToSchema`.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{Modify, OpenApi};

use super::envelope::{
    DeliveryEnvelope, DeliveryListEnvelope, KeyEnvelope, Meta, ReportEnvelope, ScanEnvelope,
    ScanListEnvelope, SiteDeletedEnvelope, SiteEnvelope, SiteListEnvelope, WebhookDeletedEnvelope,
    WebhookEnvelope, WebhookListEnvelope,
};
use super::error::{ErrorBody, ErrorCode, ErrorDetail, ErrorObject};

use super::reports::CompareEnvelope;
use super::views::{
    AccountView, BudgetParam, CreateSite, KeyView, PriorityParam, ScanLinks, ScanRequest,
    ScanRequestConfig, ScanView, SiteDeleted,
};
use super::webhooks::{CreateWebhook, DeliveryView, UpdateWebhook, WebhookDeleted, WebhookView};
use super::{keys, reports, scans, sites, webhooks};
use crate::store::{
    AppliedConfig, CategoryResult, DeliveryAttempt, DeliveryStatus, Plan, Progress, ScanStatus,
    ScanSummary, Site,
};
use crate::webhooks::EventPayload;

/// The document.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "sitescan API",
        description = "Start website scans (accessibility WCAG 2.1 A/AA, SEO, security, performance, content quality), follow them and fetch their reports. Every request carries `X-API-Key`. Successes are `{\"data\", \"meta\"}`; errors are `{\"error\": {\"code\", \"message\", \"details\"}}` with the codes listed in each response.",
        version = "1.0.0"
    ),
    paths(
        sites::list_sites, sites::create_site, sites::get_site, sites::delete_site,
        scans::create_scan, scans::list_scans,
        scans::create_accessibility_scan, scans::create_seo_scan, scans::create_performance_scan,
        scans::create_security_scan, scans::create_quality_scan,
        scans::get_scan, scans::cancel_scan, scans::get_report, reports::compare,
        keys::current_key,
        webhooks::list_webhooks, webhooks::create_webhook, webhooks::get_webhook,
        webhooks::update_webhook, webhooks::delete_webhook, webhooks::rotate_secret,
        webhooks::list_deliveries, webhooks::redeliver,
    ),
    components(schemas(
        Meta, ErrorBody, ErrorObject, ErrorDetail,
        Site, SiteEnvelope, SiteListEnvelope, SiteDeleted, SiteDeletedEnvelope, CreateSite,
        ScanView, ScanLinks, ScanEnvelope, ScanListEnvelope, ScanRequest, ScanRequestConfig, BudgetParam, PriorityParam,
        AppliedConfig, Progress, ScanSummary, CategoryResult, ScanStatus,
        ReportEnvelope, KeyView, AccountView, KeyEnvelope, Plan,
        CompareEnvelope,
        WebhookView, WebhookEnvelope, WebhookListEnvelope, WebhookDeleted, WebhookDeletedEnvelope,
        CreateWebhook, UpdateWebhook, DeliveryView, DeliveryEnvelope, DeliveryListEnvelope,
        DeliveryStatus, DeliveryAttempt, EventPayload,
    )),
    modifiers(&Security),
    tags(
        (name = "sites", description = "The account's websites"),
        (name = "scans", description = "Start, follow, cancel scans; fetch reports"),
        (name = "keys", description = "The calling API key"),
        (name = "webhooks", description = "Signed scan events POSTed to your endpoints, with a delivery log"),
    )
)]
pub struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-API-Key"))),
        );
        // `error.code` takes exactly the values of the code table.
        if let Some(RefOr::T(Schema::Object(error))) = components.schemas.get_mut("ErrorObject") {
            if let Some(RefOr::T(Schema::Object(code))) = error.properties.get_mut("code") {
                code.enum_values = Some(
                    ErrorCode::ALL
                        .iter()
                        .map(|c| serde_json::Value::from(c.as_str()))
                        .collect(),
                );
                code.description = Some(
                    ErrorCode::ALL
                        .iter()
                        .map(|c| {
                            format!(
                                "`{}` ({}): {}",
                                c.as_str(),
                                c.status().as_u16(),
                                c.summary()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
            }
        }
    }
}

/// The document as JSON.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
