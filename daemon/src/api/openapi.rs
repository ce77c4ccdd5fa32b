//! The OpenAPI 3.0 document served at `/api/v1/openapi.json`, generated from the
//! handlers' `#[utoipa::path]` attributes and the wire types' `ToSchema`.

use utoipa::openapi::path::{ParameterBuilder, ParameterIn, PathItemType};
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::openapi::{
    ContentBuilder, ObjectBuilder, Ref, RefOr, Required, ResponseBuilder, Schema, SchemaType,
};
use utoipa::{Modify, OpenApi};

use super::envelope::{
    DeliveryEnvelope, DeliveryListEnvelope, KeyEnvelope, Meta, ReportEnvelope, ScanEnvelope,
    ScanListEnvelope, SiteDeletedEnvelope, SiteEnvelope, SiteListEnvelope, WebhookDeletedEnvelope,
    WebhookEnvelope, WebhookListEnvelope,
};
use super::error::{ErrorBody, ErrorCode, ErrorDetail, ErrorObject};

use super::credentials::{
    CredentialsDeleted, CredentialsDeletedEnvelope, CredentialsEnvelope, SetCredentials,
};
use super::marks::{
    MarkDeleted, MarkDeletedEnvelope, MarkEnvelope, MarkLinks, MarkListEnvelope, MarkView, PutMark,
};
use super::reports::CompareEnvelope;
use super::schedules::{
    CreateSchedule, ScheduleDeleted, ScheduleDeletedEnvelope, ScheduleEnvelope, ScheduleLinks,
    ScheduleListEnvelope, ScheduleView, UpdateSchedule,
};
use super::views::{
    AccountView, BudgetParam, CreateSite, KeyView, LinksParam, RenderOptionsParam, RenderReadiness,
    ScanLinks, ScanRequest, ScanRequestConfig, ScanView, ScreenshotsParam, SiteDeleted, Status,
    UpdateSite, ViewportParam, WaitingReason,
};
use super::webhooks::{CreateWebhook, DeliveryView, UpdateWebhook, WebhookDeleted, WebhookView};
use super::{credentials, keys, marks, reports, scans, schedules, screenshots, sites, webhooks};
use crate::ops::regressions::{RegressedData, RegressedEvent};
use crate::store::{
    AppliedConfig, CategoryResult, ChangedFinding, CredentialsDescription, DeliveryAttempt,
    DeliveryStatus, FindingChanges, ImpactCounts, LoginFormDescription, LoginStepDescription, Plan,
    Progress, RegressionThreshold, Regressions, RunOutcome, RunStatus, ScanStatus, ScanSummary,
    Site,
};
use crate::webhooks::EventPayload;

/// The document.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "sitescan API",
        description = include_str!("openapi_intro.md"),
        version = "1.0.0"
    ),
    paths(
        sites::list_sites, sites::create_site, sites::get_site, sites::update_site, sites::delete_site,
        scans::create_scan, scans::list_scans,
        scans::create_accessibility_scan, scans::create_seo_scan, scans::create_performance_scan,
        scans::create_security_scan, scans::create_quality_scan,
        scans::get_scan, scans::cancel_scan, scans::get_report, reports::compare,
        keys::current_key,
        webhooks::list_webhooks, webhooks::create_webhook, webhooks::get_webhook,
        webhooks::update_webhook, webhooks::delete_webhook, webhooks::rotate_secret,
        webhooks::list_deliveries, webhooks::redeliver,
        schedules::create_schedule, schedules::list_schedules, schedules::get_schedule,
        schedules::update_schedule, schedules::delete_schedule,
        credentials::put_credentials, credentials::get_credentials, credentials::delete_credentials,
        marks::put_mark, marks::list_marks, marks::get_mark, marks::delete_mark,
        screenshots::get_screenshot,
    ),
    components(schemas(
        Meta, ErrorBody, ErrorObject, ErrorDetail,
        Site, SiteEnvelope, SiteListEnvelope, SiteDeleted, SiteDeletedEnvelope, CreateSite, UpdateSite, RegressionThreshold,
        ScanView, ScanLinks, ScanEnvelope, ScanListEnvelope, ScanRequest, ScanRequestConfig, BudgetParam, RenderOptionsParam, ScreenshotsParam, ViewportParam, WaitingReason, sitescan_engine::Priority, LinksParam, Status, RenderReadiness,
        AppliedConfig, Progress, ScanSummary, CategoryResult, ScanStatus,
        Regressions, FindingChanges, ChangedFinding, ImpactCounts,
        ReportEnvelope, KeyView, AccountView, KeyEnvelope, Plan,
        CompareEnvelope,
        WebhookView, WebhookEnvelope, WebhookListEnvelope, WebhookDeleted, WebhookDeletedEnvelope,
        CreateWebhook, UpdateWebhook, DeliveryView, DeliveryEnvelope, DeliveryListEnvelope,
        DeliveryStatus, DeliveryAttempt, EventPayload, RegressedEvent, RegressedData,
        ScheduleView, ScheduleLinks, ScheduleEnvelope, ScheduleListEnvelope, ScheduleDeleted,
        ScheduleDeletedEnvelope, CreateSchedule, UpdateSchedule, RunOutcome, RunStatus,
        SetCredentials, CredentialsDescription, LoginFormDescription, LoginStepDescription,
        CredentialsEnvelope, CredentialsDeleted, CredentialsDeletedEnvelope,
        MarkView, MarkLinks, MarkEnvelope, MarkListEnvelope, MarkDeleted, MarkDeletedEnvelope, PutMark,
        screenshots::Picture,
    )),
    modifiers(&Security),
    tags(
        (name = "sites", description = "The account's websites"),
        (name = "scans", description = "Start, follow, cancel scans; fetch reports"),
        (name = "keys", description = "The calling API key"),
        (name = "webhooks", description = "Signed scan events POSTed to your endpoints, with a delivery log"),
        (name = "schedules", description = "Scans started on a cron schedule in a time zone"),
        (name = "marks", description = "Triage: findings marked ignored or false positive, left out of scores and gates"),
    )
)]
pub struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        shared_behaviour(openapi);
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "The key, `key_...`. Or send it as `Authorization: Bearer key_...`; both headers with different keys are a 400 `conflicting_api_keys`.",
            ))),
        );
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "The same key as `X-API-Key`, as `Authorization: Bearer key_...`.",
                    ))
                    .build(),
            ),
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

/// What every operation shares, added here once rather than on each handler:
/// `Authorization: Bearer` beside `X-API-Key` (and the 400 of sending two
/// different keys), and on every `POST` the `Idempotency-Key` header with its
/// 409 and 422 answers.
fn shared_behaviour(openapi: &mut utoipa::openapi::OpenApi) {
    let error_response = |description: &str| {
        RefOr::T(
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Ref::from_schema_name("ErrorBody"))
                        .build(),
                )
                .build(),
        )
    };
    let mention =
        |responses: &mut utoipa::openapi::Responses, status: &str, what: &str| match responses
            .responses
            .get_mut(status)
        {
            Some(RefOr::T(r)) => {
                if !r.description.contains(what) {
                    r.description = format!("{} or {what}", r.description);
                }
            }
            Some(RefOr::Ref(_)) => {}
            None => {
                responses
                    .responses
                    .insert(status.to_string(), error_response(what));
            }
        };
    for (_, item) in openapi.paths.paths.iter_mut() {
        for (kind, op) in item.operations.iter_mut() {
            let authenticated = op.security.as_ref().is_some_and(|s| !s.is_empty());
            if authenticated {
                if let Some(security) = op.security.as_mut() {
                    security.push(SecurityRequirement::new("bearer", Vec::<String>::new()));
                }
                mention(&mut op.responses, "400", "conflicting_api_keys");
            }
            if authenticated && matches!(kind, PathItemType::Post) {
                op.parameters.get_or_insert_with(Vec::new).push(
                    ParameterBuilder::new()
                        .name("Idempotency-Key")
                        .parameter_in(ParameterIn::Header)
                        .required(Required::False)
                        .description(Some(IDEMPOTENCY_DOC))
                        .schema(Some(
                            ObjectBuilder::new()
                                .schema_type(SchemaType::String)
                                .min_length(Some(1))
                                .max_length(Some(super::idempotency::MAX_KEY_CHARS))
                                .pattern(Some("^[\\x21-\\x7e]+$")),
                        ))
                        .build(),
                );
                mention(
                    &mut op.responses,
                    "409",
                    "idempotency_key_in_use (a request with this Idempotency-Key is still being served; Retry-After: 1)",
                );
                mention(
                    &mut op.responses,
                    "422",
                    "idempotency_key_reused (this Idempotency-Key was used with another request) or validation_failed on Idempotency-Key",
                );
            }
        }
    }
}

/// The `Idempotency-Key` parameter's description.
const IDEMPOTENCY_DOC: &str = "Makes a retry safe (a timeout, a dropped connection): any 1 to 255 visible ASCII characters, a UUID v4 for instance, scoped to your account. The first success (2xx) answered with a key is kept for 24 hours and answered again, byte for byte, to every request with the same key, method, path and body, with `Idempotent-Replayed: true` and without running again (no second scan, no second charge to the day's quota). The same key with another request: 422 `idempotency_key_reused`. While the first is still being served: 409 `idempotency_key_in_use`. An error answer is not kept: the key is freed and the request may be sent again with it. The newest 1000 keys per account are kept.";

/// The document as JSON.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

#[cfg(test)]
mod tests {
    /// Every `$ref` names a schema of the document (walked with a stack).
    #[test]
    fn every_reference_resolves() {
        let doc = serde_json::to_value(super::document()).unwrap();
        let mut stack = vec![("".to_string(), &doc)];
        while let Some((at, v)) = stack.pop() {
            match v {
                serde_json::Value::Object(map) => {
                    if let Some(serde_json::Value::String(r)) = map.get("$ref") {
                        let name = r.trim_start_matches("#/components/schemas/");
                        assert!(
                            doc["components"]["schemas"][name].is_object(),
                            "dangling {r} at {at}"
                        );
                    }
                    stack.extend(map.iter().map(|(k, v)| (format!("{at}/{k}"), v)));
                }
                serde_json::Value::Array(items) => stack.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (format!("{at}/{i}"), v)),
                ),
                _ => {}
            }
        }
    }
}
