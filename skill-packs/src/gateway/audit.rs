//! The audit record of a call: built from the caller, written whatever the outcome, and
//! written as `cancelled` when the call is dropped before it finishes.

use std::time::Instant;

use chrono::{DateTime, Utc};
use toolwright::{SkillError, SkillResult};

use super::{ms, Caller, Gateway};
use crate::codes;
use crate::store::{AuditId, AuditRecord, StoreError};

/// The record of a call that has started and has no outcome yet.
pub(super) fn started(
    caller: &Caller,
    provider: &str,
    tool: &str,
    at: DateTime<Utc>,
) -> AuditRecord {
    AuditRecord {
        consumer: caller.pack().into(),
        provider: provider.into(),
        tool: tool.into(),
        user: caller.user().into(),
        at,
        outcome: String::new(),
        message: None,
        duration_ms: 0.0,
        unreadable: None,
    }
}

/// The record of a call that ended with `result`.
pub(super) fn finished(
    caller: &Caller,
    provider: &str,
    tool: &str,
    at: DateTime<Utc>,
    result: &SkillResult,
) -> AuditRecord {
    AuditRecord {
        outcome: outcome_of(result),
        message: result.error.as_ref().map(|e| e.message.clone()),
        duration_ms: result.elapsed_ms,
        ..started(caller, provider, tool, at)
    }
}

fn outcome_of(result: &SkillResult) -> String {
    match result.error_code() {
        None => "ok".into(),
        Some(code) => code.into(),
    }
}

impl Gateway {
    /// Appends `record` to the audit log (as the outcome of the started record `id`, when
    /// there is one), trying again after each of the configured delays; the last error is
    /// returned (and logged with the whole record) when every attempt failed.
    pub(super) async fn try_write_audit(
        &self,
        id: Option<AuditId>,
        record: &AuditRecord,
    ) -> Result<(), StoreError> {
        let mut delays = self.inner.audit_retries.delays.iter();
        loop {
            match self.inner.audit.finish(id, record).await {
                Ok(()) => return Ok(()),
                Err(err) => match delays.next() {
                    Some(delay) => {
                        tracing::warn!(error = %err, ?delay, "audit write failed; trying again");
                        tokio::time::sleep(*delay).await;
                    }
                    None => {
                        tracing::error!(
                            consumer = %record.consumer,
                            provider = %record.provider,
                            tool = %record.tool,
                            user = %record.user,
                            outcome = %record.outcome,
                            at = %record.at,
                            error = %err,
                            "audit record could not be written"
                        );
                        return Err(err);
                    }
                },
            }
        }
    }

    /// Appends the record of a call that was refused before it ran; a failure (after the
    /// retries) is logged with the whole record, and the refusal stands.
    pub(super) async fn write_audit(&self, record: AuditRecord) {
        let _ = self.try_write_audit(None, &record).await;
    }
}

/// The result of an admitted call whose audit record could not be written: the call
/// reports `audit_failed`, with the tool's own result in the details.
pub(super) fn audit_failed(result: SkillResult, err: StoreError) -> SkillResult {
    let elapsed = result.elapsed_ms;
    let skill_id = result.skill_id.clone();
    let original = serde_json::to_value(&result).unwrap_or(serde_json::Value::Null);
    let error = SkillError::new(
        codes::AUDIT_FAILED,
        format!(
            "`{skill_id}` ran, but its audit record could not be written ({}); its result is in the details",
            err.message
        ),
    )
    .with_details(serde_json::json!({ "result": original }));
    SkillResult::err(skill_id, error, elapsed)
}

/// Holds the record of a running call and writes it when the call ends, or as `cancelled`
/// when the call is dropped before it finishes. When the record was appended as the call
/// started (with its quota unit, or before it), the end appends its outcome instead.
pub(super) struct AuditGuard {
    gateway: Gateway,
    record: Option<AuditRecord>,
    /// The started record, once appended.
    id: Option<AuditId>,
    started: Instant,
}

impl AuditGuard {
    pub(super) fn new(gateway: &Gateway, record: AuditRecord) -> Self {
        Self {
            gateway: gateway.clone(),
            record: Some(record),
            id: None,
            started: Instant::now(),
        }
    }

    /// The record as it stands (for appending it as started).
    pub(super) fn record(&self) -> Option<&AuditRecord> {
        self.record.as_ref()
    }

    /// The record was appended as started, under `id`.
    pub(super) fn appended(&mut self, id: Option<AuditId>) {
        self.id = id;
    }

    /// Writes the record with the outcome of `result`, timed from `call_started`, and
    /// returns only once it is stored (or every attempt failed).
    pub(super) async fn finish(
        &mut self,
        result: &SkillResult,
        call_started: Instant,
    ) -> Result<(), StoreError> {
        let Some(mut record) = self.record.take() else {
            return Ok(());
        };
        record.outcome = outcome_of(result);
        record.message = result.error.as_ref().map(|e| e.message.clone());
        record.duration_ms = ms(call_started);
        self.gateway.try_write_audit(self.id, &record).await
    }
}

impl Drop for AuditGuard {
    fn drop(&mut self) {
        let Some(mut record) = self.record.take() else {
            return;
        };
        record.outcome = "cancelled".into();
        record.message = Some("the call was dropped before it finished".into());
        record.duration_ms = ms(self.started);
        let id = self.id;
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                let gateway = self.gateway.clone();
                handle.spawn(async move {
                    let _ = gateway.try_write_audit(id, &record).await;
                });
            }
            Err(_) => tracing::error!(
                ?record,
                "cancelled call outside a runtime; audit record only logged"
            ),
        }
    }
}
