//! The protocol side: rmcp's [`ServerHandler`] over the registry and call adapters.

use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ElicitRequest,
    ElicitRequestParams, ElicitationAction, ElicitationSchema, GetSkillRequestParams,
    GetSkillResult, Implementation, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, ListResourcesRequestMethod, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestMethod,
    ReadResourceRequestParams, ReadResourceResponse, SealOptions, ServerCapabilities, ServerConfig,
    SubscriptionFilter, Tool,
};
use rmcp::model::{CancelTaskParams, GetTaskParams, GetTaskResult, UpdateTaskParams};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tracing::Instrument;

use crate::calls::{self, CallOutcome, Pending, Runner};
use crate::registry::ServedSkill;
use crate::{pages, search, trace, McpServer};

/// Key of the consent question in an input-required result.
const CONSENT_KEY: &str = "confirm";
/// How long `tools/list` pages may be cached (2026-07-28 `ttlMs`, required there). A
/// change within that time is announced by `notifications/tools/list_changed`.
const LIST_TTL_MS: u64 = 300_000;

/// What the sealed `requestState` of a consent question carries.
#[derive(Debug, Serialize, Deserialize)]
struct ConsentState {
    /// Id in the confirmation queue (the dispatcher's, or the store shared by several
    /// servers, whose ids any of them can decide).
    pending: String,
    /// The tool the consent is for; a retry of another tool is refused.
    tool: String,
}

/// How the user can be asked for consent on this request.
enum ConsentRoute {
    /// 2026-07-28: answer `input_required`, the client retries with the answer.
    InputRequired,
    /// Handshake era: send `elicitation/create` and wait for the answer.
    Elicit,
    /// The client cannot ask: the call stays pending.
    Unavailable,
}

impl McpServer {
    /// What runs calls: the dispatcher, or the gateway when a pack is served.
    fn runner(&self) -> Runner {
        #[cfg(feature = "packs")]
        if let Some(route) = &self.source().pack {
            return Runner::Gateway(route.gateway.clone(), route.caller.clone());
        }
        Runner::Dispatcher(self.inner.registry.dispatcher().clone())
    }

    fn consent_route(cx: &RequestContext<RoleServer>) -> ConsentRoute {
        let can_form = cx
            .client_capabilities()
            .and_then(|c| c.elicitation)
            .is_some_and(|e| e.form.is_some() || e.url.is_none());
        if !can_form {
            return ConsentRoute::Unavailable;
        }
        match cx.protocol_version() {
            Some(v) if !v.has_initialize() => ConsentRoute::InputRequired,
            _ => ConsentRoute::Elicit,
        }
    }

    fn consent_request(
        skill: ServedSkill,
        pending: &Pending,
    ) -> Result<ElicitRequestParams, McpError> {
        let schema: ElicitationSchema = serde_json::from_value(json!({
            "type": "object",
            "properties": {
                CONSENT_KEY: {
                    "type": "boolean",
                    "title": "Run it",
                    "description": "Allow this change to be made.",
                    "default": false
                }
            },
            "required": [CONSENT_KEY]
        }))
        .map_err(|e| McpError::internal_error(format!("consent form: {e}"), None))?;
        Ok(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: format!(
                "`{}` changes data and needs your consent: {}",
                skill.wire_name(),
                pending.summary
            ),
            requested_schema: schema,
        })
    }

    /// The 2026 consent question: an input-required result carrying the sealed pending id.
    fn ask_in_result(
        &self,
        skill: ServedSkill,
        pending: &Pending,
    ) -> Result<CallToolResponse, McpError> {
        let state = ConsentState {
            pending: pending.id.clone(),
            tool: skill.wire_name().to_string(),
        };
        let sealed = self
            .inner
            .state_codec
            .seal_json_with(
                &state,
                &SealOptions::new()
                    .associated_data(skill.wire_name().as_bytes())
                    .ttl(
                        self.inner
                            .registry
                            .dispatcher()
                            .confirmation_ttl()
                            .max(Duration::from_secs(1)),
                    ),
            )
            .map_err(|e| McpError::internal_error(format!("request state: {e}"), None))?;
        let mut requests = InputRequests::new();
        requests.insert(
            CONSENT_KEY.into(),
            InputRequest::Elicitation(ElicitRequest::new(Self::consent_request(skill, pending)?)),
        );
        tracing::info!(tool = skill.wire_name(), pending = %pending.id, "asking for consent (input required)");
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)).into())
    }

    /// The retry of a 2026 consent question: run the parked call on consent, drop it otherwise.
    async fn resume(
        &self,
        skill: ServedSkill,
        sealed: &str,
        responses: Option<InputResponses>,
        cx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let state: ConsentState = self
            .inner
            .state_codec
            .open_json_with(sealed, skill.wire_name().as_bytes())
            .map_err(|e| {
                McpError::invalid_params(
                    format!("requestState is not valid for `{}`: {e}", skill.wire_name()),
                    None,
                )
            })?;
        if state.tool != skill.wire_name() {
            return Err(McpError::invalid_params(
                "requestState belongs to another tool",
                None,
            ));
        }
        let Some(answer) = responses.as_ref().and_then(|r| r.get(CONSENT_KEY)) else {
            // Asked again: the client came back without the answer.
            let pending = Pending {
                id: state.pending,
                summary: String::new(),
                unanswered: CallToolResult::default(),
            };
            return self.ask_in_result(skill, &pending);
        };
        // A call that expired meanwhile (or was decided elsewhere) is refused by the
        // queue that keeps it (the dispatcher's, or the store shared by several servers):
        // nothing runs.
        let consent = &self.inner.consent;
        let result = if consents(answer) {
            tokio::select! {
                _ = cx.ct.cancelled() => return Err(cancelled()),
                r = consent.confirm(skill, &state.pending, &self.inner.context) => r,
            }
        } else {
            consent
                .reject(skill, &state.pending, "the user declined")
                .await
        };
        Ok(result.into())
    }

    /// The handshake-era consent question: `elicitation/create`, then run or drop.
    async fn ask_and_run(
        &self,
        skill: ServedSkill,
        pending: Pending,
        cx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let consent = &self.inner.consent;
        let params = match Self::consent_request(skill, &pending) {
            Ok(p) => p,
            Err(e) => {
                consent
                    .reject(skill, &pending.id, "the user could not be asked")
                    .await;
                return Err(e);
            }
        };
        tracing::info!(tool = skill.wire_name(), pending = %pending.id, "asking for consent (elicitation)");
        let answer = tokio::select! {
            _ = cx.ct.cancelled() => {
                consent.reject(skill, &pending.id, "the call was cancelled").await;
                return Err(cancelled());
            }
            a = cx.peer.create_elicitation(params) => a,
        };
        match answer {
            Ok(answer)
                if answer.action == ElicitationAction::Accept
                    && answer
                        .content
                        .as_ref()
                        .is_some_and(|c| c[CONSENT_KEY] == true) =>
            {
                Ok(tokio::select! {
                    _ = cx.ct.cancelled() => return Err(cancelled()),
                    r = consent.confirm(skill, &pending.id, &self.inner.context) => r,
                })
            }
            Ok(answer) => {
                let reason = match answer.action {
                    ElicitationAction::Cancel => "the user dismissed the question",
                    _ => "the user declined",
                };
                Ok(consent.reject(skill, &pending.id, reason).await)
            }
            Err(err) => {
                tracing::warn!(tool = skill.wire_name(), error = %err, "consent could not be asked");
                Ok(consent
                    .reject(skill, &pending.id, "the client could not ask the user")
                    .await)
            }
        }
    }

    async fn progress(
        cx: &RequestContext<RoleServer>,
        token: &Option<ProgressToken>,
        done: bool,
        tool: &str,
    ) {
        let Some(token) = token else { return };
        let (value, message) = if done {
            (1.0, format!("`{tool}` finished"))
        } else {
            (0.0, format!("`{tool}` started"))
        };
        let param = ProgressNotificationParam::new(token.clone(), value)
            .with_total(1.0)
            .with_message(message);
        if let Err(err) = cx.peer.notify_progress(param).await {
            tracing::debug!(error = %err, "progress notification not sent");
        }
    }
}

/// Whether an elicitation answer (as JSON) accepts with `confirm: true`.
fn consents(answer: &Value) -> bool {
    answer.get("action").and_then(Value::as_str) == Some("accept")
        && answer
            .get("content")
            .and_then(|c| c.get(CONSENT_KEY))
            .and_then(Value::as_bool)
            == Some(true)
}

fn cancelled() -> McpError {
    McpError::internal_error("the request was cancelled", None)
}

/// The opaque cursor of the page starting at `offset` of the list `fingerprint`.
fn encode_cursor(fingerprint: u64, offset: usize) -> String {
    format!("{fingerprint:016x}{offset:x}")
}

/// The page offset a cursor of list `fingerprint` names: past the start, inside the list,
/// on a page boundary.
fn decode_cursor(cursor: &str, fingerprint: u64, len: usize, page_size: usize) -> Option<usize> {
    let (list, offset) = cursor.split_at_checked(16)?;
    if u64::from_str_radix(list, 16).ok()? != fingerprint {
        return None;
    }
    usize::from_str_radix(offset, 16)
        .ok()
        .filter(|&o| o > 0 && o < len && o % page_size == 0)
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = if self.inner.skill_sources.any() {
            // Skills ride on resources (SEP-2640): their files are read with resources/read.
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_resources()
                .enable_skills_with_directory_read()
                .build()
        } else {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build()
        };
        if self.inner.tasks.any() {
            // SEP-2663: task tools answer with tasks to clients that declare it too.
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(rmcp::model::TASKS_EXTENSION_ID.into(), Default::default());
        }
        let config = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.inner.name.clone(),
            self.inner.version.clone(),
        ));
        match &self.inner.instructions {
            Some(text) => config.with_instructions(text.clone()),
            None => config,
        }
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        if let Some(tool) = self.inner.tasks.tool(name) {
            return Some(tool);
        }
        if self.inner.search.is_some() {
            if let Some(tool) = search::tool(name) {
                return Some(tool);
            }
        }
        self.list().tool(name)
    }

    async fn on_initialized(&self, cx: NotificationContext<RoleServer>) {
        tracing::debug!("client initialized");
        self.add_peer(cx.peer);
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = requested.tools_list_changed.filter(|&on| on);
        Some(accepted)
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        let mut changes = self.inner.changes.subscribe();
        changes.mark_unchanged();
        let wants_tools = subscription.accepted().tools_list_changed == Some(true);
        loop {
            tokio::select! {
                () = subscription.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    if !wants_tools {
                        continue;
                    }
                    if let Err(err) = subscription.sink().notify_tool_list_changed().await {
                        tracing::debug!(error = %err, "list change not sent to a listener");
                        return Ok(());
                    }
                }
            }
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let span = trace::request_span("tools/list", None, &cx)?;
        self.list_tools_in(request, cx).instrument(span).await
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        let _span = trace::request_span("skills/list", None, &cx)?.entered();
        self.skill_catalog().list(request.and_then(|r| r.cursor))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let _span = trace::request_span("skills/get", Some(&request.uri), &cx)?.entered();
        self.skill_catalog().get(&request.uri)
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, McpError> {
        let _span =
            trace::request_span("resources/directory/read", Some(&request.uri), &cx)?.entered();
        self.skill_catalog().directory(&request.uri)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        if !self.inner.skill_sources.any() {
            return Err(McpError::method_not_found::<ListResourcesRequestMethod>());
        }
        let _span = trace::request_span("resources/list", None, &cx)?.entered();
        if let Some(cursor) = request.and_then(|r| r.cursor) {
            return Err(McpError::invalid_params(
                "invalid cursor: this server lists its resources on one page; call resources/list without a cursor",
                Some(json!({ "cursor": cursor })),
            ));
        }
        Ok(self.skill_catalog().resources())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if !self.inner.skill_sources.any() {
            return Err(McpError::method_not_found::<ReadResourceRequestMethod>());
        }
        let _span = trace::request_span("resources/read", Some(&request.uri), &cx)?.entered();
        self.skill_catalog().read(&request.uri).map(Into::into)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let span = trace::request_span("tools/call", Some(&request.name), &cx)?;
        if self.inner.tasks.serves(&request.name) {
            return self
                .inner
                .tasks
                .call(&request.name, request.arguments, &cx)
                .instrument(span)
                .await;
        }
        self.call_tool_in(request, cx).instrument(span).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let span = trace::request_span("tasks/get", Some(&request.task_id), &cx)?;
        self.inner
            .tasks
            .get(&request.task_id)
            .instrument(span)
            .await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let span = trace::request_span("tasks/cancel", Some(&request.task_id), &cx)?;
        self.inner
            .tasks
            .cancel(&request.task_id)
            .instrument(span)
            .await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let span = trace::request_span("tasks/update", Some(&request.task_id), &cx)?;
        self.inner
            .tasks
            .update(&request.task_id)
            .instrument(span)
            .await
    }
}

impl McpServer {
    /// `tools/list`, inside the request's span.
    async fn list_tools_in(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.recheck_pack().await;
        if self.inner.search.is_some() {
            // Two tools: one page, and no cursor names a second.
            if let Some(cursor) = request.and_then(|r| r.cursor) {
                return Err(McpError::invalid_params(
                    "invalid cursor: this server lists two tools on one page",
                    Some(json!({ "cursor": cursor })),
                ));
            }
            let mut tools = self.inner.tasks.tools();
            tools.extend(search::tools().iter().cloned());
            return Ok(ListToolsResult::with_all_items(tools)
                .with_ttl_ms(LIST_TTL_MS)
                .with_cache_scope(CacheScope::Public));
        }
        let list = self.list();
        let len = list.len();
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => decode_cursor(&cursor, list.fingerprint, len, list.page_size)
                .ok_or_else(|| {
                    McpError::invalid_params(
                        "invalid cursor: pass a nextCursor of this server's current tools/list",
                        Some(json!({ "cursor": cursor })),
                    )
                })?,
        };
        let end = (start + list.page_size).min(len);
        // Task tools lead the first page; it is answered typed (the pre-rendered pages hold
        // the dispatcher's tools only).
        let task_tools = if start == 0 {
            self.inner.tasks.tools()
        } else {
            Vec::new()
        };
        let mut page = if self.pages && pages::token_fits(&cx.id) && task_tools.is_empty() {
            // The transport writes the page's pre-rendered JSON in place of the token.
            let mut page = ListToolsResult::with_all_items(Vec::new());
            page.meta = Some(pages::token_meta(&list, start / list.page_size));
            page
        } else {
            let mut tools = task_tools;
            tools.extend(list.typed_tools(start, end));
            ListToolsResult::with_all_items(tools)
        };
        page.next_cursor = (end < len).then(|| encode_cursor(list.fingerprint, end));
        Ok(page
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    /// `tools/call`, inside the request's span: the skill runs under it.
    async fn call_tool_in(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.recheck_pack().await;
        let list = self.list();
        // With tool search, `search_tools` is answered here and `call_tool` names the tool
        // (and brings its arguments) that then takes the path of a direct call.
        let (skill, arguments, proxied) = match (&self.inner.search, request.name.as_ref()) {
            (Some(index), toolwright::search::tool::SEARCH_TOOLS) => {
                return Ok(search::search(index, &list, request.arguments.as_ref()).into());
            }
            (Some(_), search::CALL_TOOL) => match search::proxied(&list, request.arguments) {
                search::Proxied::Run(found, args) => (Some(found), args, true),
                search::Proxied::Refused(answer) => return Ok(answer.into()),
            },
            _ => (
                list.skill(&request.name),
                request.arguments.map(Value::Object),
                false,
            ),
        };
        let Some(skill) = skill else {
            tracing::warn!(tool = %request.name, "call of an unknown tool");
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{}`; call {} for the tools this server offers",
                    request.name,
                    if self.inner.search.is_some() {
                        "search_tools"
                    } else {
                        "tools/list"
                    }
                ),
                Some(json!({ "name": request.name })),
            ));
        };
        if let Some(sealed) = &request.request_state {
            return self
                .resume(skill, sealed, request.input_responses, &cx)
                .await;
        }
        let token = cx.meta.get_progress_token();
        Self::progress(&cx, &token, false, skill.wire_name()).await;
        let runner = self.runner();
        let outcome = tokio::select! {
            _ = cx.ct.cancelled() => {
                tracing::info!(tool = skill.wire_name(), "call cancelled");
                return Err(cancelled());
            }
            o = calls::call(&runner, &self.inner.consent, skill, arguments, &self.inner.context, proxied) => o,
        };
        let result = match outcome {
            CallOutcome::Finished(result) => result,
            CallOutcome::AwaitingConsent(pending) => {
                debug_assert!(skill.needs_confirmation());
                match Self::consent_route(&cx) {
                    ConsentRoute::InputRequired => return self.ask_in_result(skill, &pending),
                    ConsentRoute::Elicit => self.ask_and_run(skill, pending, &cx).await?,
                    ConsentRoute::Unavailable => pending.unanswered,
                }
            }
        };
        Self::progress(&cx, &token, true, skill.wire_name()).await;
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trips_and_refuses_other_lists_and_ranges() {
        let c = encode_cursor(0xabc, 5);
        assert_eq!(decode_cursor(&c, 0xabc, 10, 5), Some(5));
        assert_eq!(decode_cursor(&c, 0xabd, 10, 5), None);
        assert_eq!(decode_cursor(&c, 0xabc, 5, 5), None);
        assert_eq!(decode_cursor(&c, 0xabc, 10, 3), None);
        assert_eq!(decode_cursor(&encode_cursor(0xabc, 0), 0xabc, 10, 5), None);
        assert_eq!(decode_cursor("garbage", 0xabc, 10, 5), None);
    }

    #[test]
    fn consent_needs_accept_and_true() {
        assert!(consents(
            &json!({"action": "accept", "content": {"confirm": true}})
        ));
        assert!(!consents(
            &json!({"action": "accept", "content": {"confirm": false}})
        ));
        assert!(!consents(&json!({"action": "decline"})));
        assert!(!consents(&json!({"action": "accept"})));
    }
}
