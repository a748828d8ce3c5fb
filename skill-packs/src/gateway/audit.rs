//! The audit record of a call: built from the caller, written whatever the outcome, and
//! written as `cancelled` when the call is dropped before it finishes.

use std::time::Instant;

use chrono::{DateTime, Utc};
use skill_core::SkillResult;

use super::{ms, Caller, Gateway};
use crate::store::AuditRecord;

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
    /// Appends `record` to the audit log; a failure is logged, never returned, so the audit
    /// cannot change a call's outcome.
    pub(super) async fn write_audit(&self, record: AuditRecord) {
        if let Err(err) = self.inner.audit.record(&record).await {
            tracing::error!(
                consumer = %record.consumer,
                provider = %record.provider,
                tool = %record.tool,
                user = %record.user,
                outcome = %record.outcome,
                error = %err,
                "audit record could not be written"
            );
        }
    }
}

/// Holds the record of a running call and writes it when the call ends, or as `cancelled`
/// when the call is dropped before it finishes.
pub(super) struct AuditGuard {
    gateway: Gateway,
    record: Option<AuditRecord>,
    started: Instant,
}

impl AuditGuard {
    pub(super) fn new(gateway: &Gateway, record: AuditRecord) -> Self {
        Self {
            gateway: gateway.clone(),
            record: Some(record),
            started: Instant::now(),
        }
    }

    /// Writes the record with the outcome of `result`, timed from `call_started`.
    pub(super) async fn finish(&mut self, result: &SkillResult, call_started: Instant) {
        if let Some(mut record) = self.record.take() {
            record.outcome = outcome_of(result);
            record.message = result.error.as_ref().map(|e| e.message.clone());
            record.duration_ms = ms(call_started);
            self.gateway.write_audit(record).await;
        }
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
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                let gateway = self.gateway.clone();
                handle.spawn(async move { gateway.write_audit(record).await });
            }
            Err(_) => tracing::error!(
                ?record,
                "cancelled call outside a runtime; audit record only logged"
            ),
        }
    }
}
