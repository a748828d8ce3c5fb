//! Where a tool stands for the calling pack, the contract checks of a cross-pack call, and
//! running the tool as its pack.

use std::borrow::Cow;
use std::time::Instant;

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{json, Value};
use toolwright::{SkillContext, SkillError, SkillRegistration, SkillResult};

use super::audit::AuditGuard;
use super::{ms, Caller, Gateway, MAX_CALL_DEPTH, SHOW_SUBSCRIBE_CARD};
use crate::codes;
use crate::manifest::{Access, PackManifest};
use crate::rate::RateLimit;
use crate::session::PackSession;
use crate::store::{QuotaRequest, StoreError};

/// Where a tool stands relative to a calling pack.
enum Route {
    /// Core tool or the caller's own, run as the given pack without contract checks.
    Direct(&'static SkillRegistration, &'static str),
    /// Another pack's tool.
    Cross(&'static SkillRegistration, &'static PackManifest),
    /// A skill of no pack that is not a core tool.
    Outside(&'static SkillRegistration),
}

/// One call on its way through the gateway.
struct Call<'a> {
    caller: &'a Caller,
    args: Option<&'a Value>,
    ctx: &'a SkillContext,
    started: Instant,
}

impl Call<'_> {
    fn fail(&self, tool: impl Into<Cow<'static, str>>, err: SkillError) -> SkillResult {
        SkillResult::err(tool, err, ms(self.started))
    }
}

impl Gateway {
    /// Runs `tool` for `caller`: own and core tools directly, other packs' tools through the
    /// contract checks, with an audit record for everything but direct calls.
    pub(super) async fn route(
        &self,
        caller: &Caller,
        tool: &str,
        args: Option<&Value>,
        ctx: &SkillContext,
    ) -> SkillResult {
        let call = Call {
            caller,
            args,
            ctx,
            started: Instant::now(),
        };
        let at = self.now();
        let Some(consumer) = self.pack(caller.pack()) else {
            let err = SkillError::new(
                codes::UNKNOWN_PACK,
                format!(
                    "there is no pack `{}`; known packs: {}",
                    caller.pack(),
                    self.pack_ids()
                ),
            );
            let result = call.fail(tool.to_string(), err);
            self.write_audit(super::audit::finished(caller, "", tool, at, &result))
                .await;
            return result;
        };
        match self.route_of(tool, consumer) {
            Some(Route::Direct(reg, pack)) => self.run_as(pack, reg, &call).await,
            None => {
                // Unknown tool: name only the tools this pack may call; audit the attempt.
                let offered = self
                    .tools_for_pack(consumer.id)
                    .map(|set| {
                        set.iter()
                            .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                let err = SkillError::new(
                    toolwright::codes::UNKNOWN_SKILL,
                    format!(
                        "there is no tool named `{tool}`; tools of pack `{}`: {offered}",
                        consumer.id
                    ),
                )
                .with_details(json!({ "requested": tool }));
                let result = call.fail(tool.to_string(), err);
                self.write_audit(super::audit::finished(caller, "", tool, at, &result))
                    .await;
                result
            }
            Some(Route::Outside(reg)) => {
                let err = SkillError::new(
                    codes::TOOL_NOT_IMPORTED,
                    format!(
                        "pack `{}` may not call `{}`: it is neither a core tool, nor its own, nor imported",
                        consumer.id, reg.wire_name
                    ),
                );
                let result = call.fail(reg.id, err);
                self.write_audit(super::audit::finished(caller, "", reg.id, at, &result))
                    .await;
                result
            }
            Some(Route::Cross(reg, provider)) => {
                let mut guard =
                    AuditGuard::new(self, super::audit::started(caller, provider.id, reg.id, at));
                let (result, admitted) = match self
                    .authorise(&call, consumer, provider, reg, &mut guard)
                    .await
                {
                    Ok(()) => (self.run_as(provider.id, reg, &call).await, true),
                    Err(err) => (call.fail(reg.id, err), false),
                };
                match guard.finish(&result, call.started).await {
                    Err(err) if admitted => super::audit::audit_failed(result, err),
                    _ => result,
                }
            }
        }
    }

    fn route_of(&self, tool: &str, consumer: &'static PackManifest) -> Option<Route> {
        let reg = self.inner.dispatcher.registration(tool)?;
        if self.inner.core.iter().any(|c| std::ptr::eq(*c, reg)) {
            return Some(Route::Direct(reg, consumer.id));
        }
        Some(match self.owner_of(reg.id) {
            Some(owner) if owner == consumer.id => Route::Direct(reg, owner),
            Some(owner) => Route::Cross(reg, self.inner.packs[owner]),
            None => Route::Outside(reg),
        })
    }

    /// The contract checks of a cross-pack call, in order: import declared and still
    /// exported, nesting depth, subscription unless the tool is free, rate limit. A call
    /// counted against a limit has its audit record appended with the count (one
    /// transaction where the store holds both), or before it (quotas elsewhere), so no
    /// counted call is left without its record.
    async fn authorise(
        &self,
        call: &Call<'_>,
        consumer: &'static PackManifest,
        provider: &'static PackManifest,
        reg: &'static SkillRegistration,
        guard: &mut AuditGuard,
    ) -> Result<(), SkillError> {
        let now = self.now();
        check_contract(consumer, provider, reg, now.date_naive())?;
        if call.caller.depth() >= MAX_CALL_DEPTH {
            return Err(depth_exceeded(reg.id));
        }
        let user = call.caller.user();
        let access = &provider.exports.access;
        if access.needs_subscription(reg.id) {
            self.check_subscription(user, provider, reg, now).await?;
        }
        let pack_key = format!("{}.*", provider.id);
        let limits = quota_requests(access, reg.id, &pack_key);
        if limits.is_empty() {
            return Ok(());
        }
        match self.admit(user, &limits, now, guard).await? {
            Ok(None) => Ok(()),
            Ok(Some(i)) => Err(rate_limited(
                limits[i.min(limits.len() - 1)],
                &pack_key,
                provider,
                reg,
                now,
            )),
            Err(err) if self.inner.fail_open_free_tools && !access.needs_subscription(reg.id) => {
                tracing::warn!(
                    error = %err,
                    tool = reg.id,
                    "quota store unavailable; free tool admitted without a quota check"
                );
                Ok(())
            }
            Err(err) => Err(quota_unavailable(err)),
        }
    }

    /// Refuses a tool that needs a subscription `user` does not hold, so the caller can
    /// offer the subscription card.
    async fn check_subscription(
        &self,
        user: &str,
        provider: &'static PackManifest,
        reg: &'static SkillRegistration,
        now: DateTime<Utc>,
    ) -> Result<(), SkillError> {
        match self
            .inner
            .subscriptions
            .is_subscribed(user, provider.id, now)
            .await
        {
            Ok(true) => Ok(()),
            Ok(false) => Err(SkillError::new(
                codes::SUBSCRIPTION_REQUIRED,
                format!(
                    "`{}` needs a subscription to `{}`; offer the user the subscription card",
                    reg.wire_name, provider.id
                ),
            )
            .with_details(json!({
                "skill_id": provider.id,
                "tool": reg.id,
                "action": SHOW_SUBSCRIBE_CARD,
            }))),
            Err(err) => Err(storage_failed(err)),
        }
    }

    /// Counts the call against `limits` with its audit record kept beside the count: the
    /// outer error refuses the call because the record could not be written first, the
    /// inner result is the store's answer (the index of an exhausted limit, if any).
    async fn admit(
        &self,
        user: &str,
        limits: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
        guard: &mut AuditGuard,
    ) -> Result<Result<Option<usize>, StoreError>, SkillError> {
        Ok(match (&self.inner.audited_quotas, guard.record()) {
            (Some(both), Some(record)) => {
                match both.admit_and_audit(user, limits, now, record).await {
                    Ok(Ok(id)) => {
                        guard.appended(Some(id));
                        Ok(None)
                    }
                    Ok(Err(i)) => Ok(Some(i)),
                    Err(err) => Err(err),
                }
            }
            (_, record) => {
                // The record first: a process ending between the two leaves a record
                // without a count, never a count without a record.
                if let Some(record) = record {
                    match self.inner.audit.start(record).await {
                        Ok(id) => guard.appended(id),
                        Err(err) => return Err(audit_unwritten(err)),
                    }
                }
                self.inner.quotas.try_acquire_all(user, limits, now).await
            }
        })
    }

    /// Runs `reg` as a tool of `pack`: the skill gets a [`PackSession`] one level deeper.
    async fn run_as(
        &self,
        pack: &'static str,
        reg: &'static SkillRegistration,
        call: &Call<'_>,
    ) -> SkillResult {
        if call.caller.depth() >= MAX_CALL_DEPTH {
            return call.fail(reg.id, depth_exceeded(reg.id));
        }
        let base = match call.ctx.get::<PackSession>() {
            Some(session) => session.base_context().clone(),
            None => call.ctx.clone(),
        };
        let session = PackSession::new(self.clone(), call.caller.nested(pack), base.clone());
        self.inner
            .dispatcher
            .prepare_and_call(reg.id, &base.with(session), call.args)
            .await
    }
}

/// Whether `tool`'s removal date, declared by `provider`, has come.
pub(super) fn is_removed(provider: &PackManifest, tool: &str, today: NaiveDate) -> bool {
    provider
        .exports
        .deprecation(tool)
        .and_then(|d| NaiveDate::parse_from_str(d.removal_date, "%Y-%m-%d").ok())
        .is_some_and(|removal| today >= removal)
}

/// The import, export and removal checks of a cross-pack call, which need no store.
fn check_contract(
    consumer: &PackManifest,
    provider: &PackManifest,
    reg: &SkillRegistration,
    today: NaiveDate,
) -> Result<(), SkillError> {
    if !consumer.imports_tool(provider.id, reg.id) {
        return Err(SkillError::new(
            codes::TOOL_NOT_IMPORTED,
            format!(
                "`{}` is not in the imports of pack `{}`; declare it under `imports: [{{ from: {}, tools: [...] }}]`",
                reg.wire_name, consumer.id, provider.id
            ),
        ));
    }
    if !provider.exports.exports(reg.id) {
        return Err(SkillError::new(
            codes::TOOL_NOT_EXPORTED,
            format!("pack `{}` does not export `{}`", provider.id, reg.wire_name),
        ));
    }
    if is_removed(provider, reg.id, today) {
        let dep = provider.exports.deprecation(reg.id);
        return Err(SkillError::new(
            codes::TOOL_REMOVED,
            format!(
                "`{}` was removed on {}{}",
                reg.wire_name,
                dep.map_or("", |d| d.removal_date),
                dep.and_then(|d| d.replacement)
                    .map(|r| format!("; use `{r}` instead"))
                    .unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

/// The limits a call to `tool` counts against: the tool's own first, then the pack-wide
/// one keyed `pack_key`.
fn quota_requests<'a>(access: &Access, tool: &'a str, pack_key: &'a str) -> Vec<QuotaRequest<'a>> {
    let mut limits = Vec::with_capacity(2);
    if let RateLimit::PerWindow { max, window } = access.rate_limit(tool) {
        limits.push(QuotaRequest {
            key: tool,
            max,
            window,
        });
    }
    if let RateLimit::PerWindow { max, window } = access.rate_limit {
        limits.push(QuotaRequest {
            key: pack_key,
            max,
            window,
        });
    }
    limits
}

/// The refusal for a call over the limit `hit`, naming the limit and when to retry.
fn rate_limited(
    hit: QuotaRequest<'_>,
    pack_key: &str,
    provider: &PackManifest,
    reg: &SkillRegistration,
    now: DateTime<Utc>,
) -> SkillError {
    let (max, window, pack_wide) = (hit.max, hit.window, hit.key == pack_key);
    let retry_after = window.retry_after(now);
    let per = if pack_wide {
        format!("the tools of pack `{}` together allow", provider.id)
    } else {
        format!("`{}` allows", reg.wire_name)
    };
    SkillError::new(
        codes::RATE_LIMITED,
        format!(
            "{per} {max} calls per {} per user; try again in {retry_after} seconds",
            window.as_str()
        ),
    )
    .with_details(json!({
        "retry_after": retry_after,
        "limit": format!("{max}/{}", window.as_str()),
        "scope": if pack_wide { "pack" } else { "tool" },
    }))
}

fn depth_exceeded(tool: &str) -> SkillError {
    SkillError::new(
        codes::CALL_DEPTH_EXCEEDED,
        format!("calls between packs nest deeper than {MAX_CALL_DEPTH}; `{tool}` was not run"),
    )
}

fn storage_failed(err: StoreError) -> SkillError {
    tracing::error!(error = %err, "pack storage failed");
    SkillError::new(
        codes::STORAGE_FAILED,
        "the call could not be authorised because storage is unavailable; try again later",
    )
    .with_source(err)
}

fn audit_unwritten(err: StoreError) -> SkillError {
    tracing::error!(error = %err, "audit record not written; call refused");
    SkillError::new(
        codes::AUDIT_FAILED,
        "the call was not run: its audit record could not be written before its quota was counted; try again later",
    )
    .with_source(err)
}

fn quota_unavailable(err: StoreError) -> SkillError {
    tracing::error!(error = %err, "quota store unavailable");
    SkillError::new(
        codes::QUOTA_UNAVAILABLE,
        "the call was not run: its rate limit could not be checked because the quota store is unavailable; try again later",
    )
    .with_source(err)
}
