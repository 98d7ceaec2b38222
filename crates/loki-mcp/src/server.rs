//! The MCP side: the tool router (names, descriptions, input schemas), resources, and the
//! mapping of a tool's answer to a `CallToolResult`. The work runs on a blocking thread
//! ([`tokio::task::spawn_blocking`]): a judge or a git call must not stall the transport, and a
//! panic in one call becomes that call's error, not the server's end.

use std::sync::Arc;

use loki_core::RunId;
use loki_core::run::{ListedRun, RunStore};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, CustomRequest, CustomResult, ErrorCode, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use serde_json::Value;

use crate::args::{
    AnswerArgs, FixArgs, ReceiptArgs, RunArgs, RunsArgs, SealCheckArgs, StatusArgs, VerifyArgs,
};
use crate::error::ToolError;
use crate::tools::{self, Ctx};

/// The URI scheme and prefix of a run resource.
const RUN_URI: &str = "loki://runs/";
/// The suffix of a run's receipt resource.
const RECEIPT_SUFFIX: &str = "/receipt";

/// What the server tells a client about itself at `initialize`.
const INSTRUCTIONS: &str = "loki builds a task in an isolated git worktree with a model, verifies it with the repository's real tests and seals a signed receipt. Start a build with loki_run and follow it with loki_status until `done`; a BLOCKED run asks a question that loki_answer answers. loki_seal_check judges a working tree against a base; loki_verify checks a receipt. Every `repo` is an absolute path.";

/// loki's MCP server: one per connection (stdio) or per session (HTTP); clones share the context.
#[derive(Clone)]
pub struct LokiServer {
    ctx: Arc<Ctx>,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for LokiServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LokiServer")
            .field("ctx", &self.ctx)
            .finish_non_exhaustive()
    }
}

/// Runs `work` on a blocking thread and turns its answer into a tool result: the object as
/// `structuredContent` (and as JSON text, as the protocol asks), an error as `isError: true`.
async fn respond<F>(ctx: &Arc<Ctx>, work: F) -> CallToolResult
where
    F: FnOnce(&Ctx) -> Result<Value, ToolError> + Send + 'static,
{
    let ctx = Arc::clone(ctx);
    match tokio::task::spawn_blocking(move || work(&ctx)).await {
        Ok(Ok(v)) => CallToolResult::structured(v),
        Ok(Err(e)) => CallToolResult::error(vec![ContentBlock::text(e.message())]),
        Err(join) => CallToolResult::error(vec![ContentBlock::text(format!(
            "the tool stopped unexpectedly: {join}"
        ))]),
    }
}

#[tool_router]
impl LokiServer {
    /// A server over `ctx`.
    #[must_use]
    pub fn new(ctx: Ctx) -> LokiServer {
        LokiServer {
            ctx: Arc::new(ctx),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Start a loki build of `task` in the background: an isolated git worktree, a model, the repository's real tests, a signed receipt. Returns at once with the run id, the process id and the log path; follow the run with loki_status.",
        annotations(
            title = "Start a loki build",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn loki_run(&self, Parameters(a): Parameters<RunArgs>) -> CallToolResult {
        respond(&self.ctx, move |c| tools::run(c, &a)).await
    }

    #[tool(
        description = "A run's status: kind, status (running, completed, interrupted), current or last stage, outcome (VERIFIED, FAILED, BLOCKED, ...), cost and tokens, its receipt path, and the question of a BLOCKED run. `done` is true once it has ended.",
        annotations(title = "Run status", read_only_hint = true, open_world_hint = false)
    )]
    async fn loki_status(&self, Parameters(a): Parameters<StatusArgs>) -> CallToolResult {
        respond(&self.ctx, move |c| tools::status(c, &a)).await
    }

    #[tool(
        description = "Verify a receipt as `loki verify` does (hash, event-log binding, DSSE signature, outcome): the steps and the verdict (VERIFIED, TAMPERED, UNCHECKED, UNSIGNED, NOT_VERIFIED).",
        annotations(
            title = "Verify a receipt",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn loki_verify(&self, Parameters(a): Parameters<VerifyArgs>) -> CallToolResult {
        respond(&self.ctx, move |c| tools::verify_target(c, &a)).await
    }

    #[tool(
        description = "Judge the working tree against a base revision as `loki seal check` does: runs the repository's real tests on both, and reports tests newly failing, deleted, skipped or weakened, test values steering the code and answers that depend on order. Verdict: clean, findings, declare (the change alters what existing tests expect: each with its old and new lines, to be declared), or cannot_judge (never clean when a question stayed open).",
        annotations(
            title = "Judge the working tree",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn loki_seal_check(&self, Parameters(a): Parameters<SealCheckArgs>) -> CallToolResult {
        respond(&self.ctx, move |c| tools::seal_check(c, &a)).await
    }

    #[tool(
        description = "List a repository's loki runs, newest first.",
        annotations(title = "List runs", read_only_hint = true, open_world_hint = false)
    )]
    async fn loki_runs(&self, Parameters(a): Parameters<RunsArgs>) -> CallToolResult {
        respond(&self.ctx, move |c| tools::runs(c, &a)).await
    }

    #[tool(
        description = "A run's evidence receipt: the receipt JSON and its Markdown rendering.",
        annotations(
            title = "A run's receipt",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn loki_receipt(&self, Parameters(a): Parameters<ReceiptArgs>) -> CallToolResult {
        respond(&self.ctx, move |c| tools::receipt(c, &a)).await
    }

    #[tool(
        description = "Diagnose a crash recorded by `loki run` (command, crash, source frames). With apply: true (and only then), synthesize a patch with the model, apply it with a backup and verify it by replaying the crash, in the background; follow that heal run with loki_status.",
        annotations(
            title = "Diagnose or fix a crash",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn loki_fix(&self, Parameters(a): Parameters<FixArgs>) -> CallToolResult {
        respond(&self.ctx, move |c| tools::fix(c, &a)).await
    }

    #[tool(
        description = "Answer the question of a BLOCKED run: starts a follow-up build whose task carries the original task, the question and this answer (like loki_run). A run that is not BLOCKED is an error.",
        annotations(
            title = "Answer a BLOCKED run",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn loki_answer(&self, Parameters(a): Parameters<AnswerArgs>) -> CallToolResult {
        respond(&self.ctx, move |c| tools::answer(c, &a)).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LokiServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("loki", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    /// A request rmcp could not read as one of the protocol's (its requests fall back to a custom
    /// request on any mismatch): a protocol method is there with malformed `params` (`-32602`),
    /// any other is not a method (`-32601`). The method is in the message and in `data`, so a
    /// client can tell which request was refused.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method;
        let data = Some(serde_json::json!({"method": method}));
        Err(if client_methods().contains(&method.as_str()) {
            ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!("Invalid params for {method}: they do not match the method's schema"),
                data,
            )
        } else {
            ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
                data,
            )
        })
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let ctx = Arc::clone(&self.ctx);
        let listed = tokio::task::spawn_blocking(move || list_resources(&ctx))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ListResourcesResult::with_all_items(listed))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("{RUN_URI}{{run_id}}"), "run")
                .with_description("a run's status, as loki_status answers")
                .with_mime_type("application/json"),
            ResourceTemplate::new(format!("{RUN_URI}{{run_id}}{RECEIPT_SUFFIX}"), "receipt")
                .with_description("a run's receipt and its Markdown, as loki_receipt answers")
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let ctx = Arc::clone(&self.ctx);
        let uri = request.uri.clone();
        let read = tokio::task::spawn_blocking(move || read_resource(&ctx, &uri))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let text = read.map_err(|e| ErrorData::resource_not_found(e, None))?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri).with_mime_type("application/json"),
        ])
        .into())
    }
}

/// The request methods a client may send (rmcp's names for them).
fn client_methods() -> [&'static str; 23] {
    use rmcp::model as m;
    fn v<T: m::ConstString>() -> &'static str {
        T::VALUE
    }
    [
        v::<m::InitializeResultMethod>(),
        v::<m::PingRequestMethod>(),
        v::<m::DiscoverRequestMethod>(),
        v::<m::CompleteRequestMethod>(),
        v::<m::SetLevelRequestMethod>(),
        v::<m::GetPromptRequestMethod>(),
        v::<m::ListPromptsRequestMethod>(),
        v::<m::ListResourcesRequestMethod>(),
        v::<m::ListResourceTemplatesRequestMethod>(),
        v::<m::ReadResourceRequestMethod>(),
        v::<m::SubscriptionsListenRequestMethod>(),
        v::<m::SubscribeRequestMethod>(),
        v::<m::UnsubscribeRequestMethod>(),
        v::<m::CallToolRequestMethod>(),
        v::<m::ListToolsRequestMethod>(),
        v::<m::GetTaskMethod>(),
        v::<m::UpdateTaskMethod>(),
        v::<m::CancelTaskMethod>(),
        v::<m::ListSkillsRequestMethod>(),
        v::<m::GetSkillRequestMethod>(),
        v::<m::ReadResourceDirectoryRequestMethod>(),
        v::<m::ListRootsRequestMethod>(),
        v::<m::CreateMessageRequestMethod>(),
    ]
}

/// Every run (and receipt) of the repositories the server was started for. A server that serves
/// any repository has nothing to list: a resource needs a repository.
fn list_resources(ctx: &Ctx) -> Vec<Resource> {
    let mut out = Vec::new();
    for root in &ctx.scope.allowed {
        let store = RunStore::new(loki_core::layout::Repo { root: root.clone() });
        for r in store.list().unwrap_or_default() {
            let ListedRun::Ok(rec) = r else { continue };
            let id = rec.id.as_str();
            let what = format!(
                "{} run, {}{}",
                rec.kind.as_str(),
                rec.outcome
                    .map_or(rec.status.as_str(), loki_protocol::RunEnd::as_str),
                rec.task
                    .as_deref()
                    .map(|t| format!(": {}", t.lines().next().unwrap_or("")))
                    .unwrap_or_default()
            );
            out.push(
                Resource::new(format!("{RUN_URI}{id}"), id)
                    .with_description(what)
                    .with_mime_type("application/json"),
            );
            if store.dir(&rec.id).join("receipt.json").is_file() {
                out.push(
                    Resource::new(
                        format!("{RUN_URI}{id}{RECEIPT_SUFFIX}"),
                        format!("{id} receipt"),
                    )
                    .with_description(format!("the evidence receipt of {id}"))
                    .with_mime_type("application/json"),
                );
            }
        }
    }
    out
}

/// The JSON text of `loki://runs/<id>` or `loki://runs/<id>/receipt`.
fn read_resource(ctx: &Ctx, uri: &str) -> Result<String, String> {
    let rest = uri
        .strip_prefix(RUN_URI)
        .ok_or_else(|| format!("{uri}: not a loki resource (loki://runs/<id>[/receipt])"))?;
    let (id, receipt) = match rest.strip_suffix(RECEIPT_SUFFIX) {
        Some(id) => (id, true),
        None => (rest, false),
    };
    let id: RunId = id
        .parse()
        .map_err(|_| format!("{uri}: `{id}` is not a run id"))?;
    let repo = ctx
        .scope
        .allowed
        .iter()
        .map(|root| loki_core::layout::Repo { root: root.clone() })
        .find(|r| r.run_dir(&id).is_dir())
        .ok_or_else(|| format!("{uri}: no run {id} in the repositories this server serves"))?;
    let value = if receipt {
        tools::receipt_of(&repo, &id)
    } else {
        tools::status_of(&repo, &id)
    }
    .map_err(|e| format!("{uri}: {}", e.message()))?;
    serde_json::to_string_pretty(&value).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Ctx {
        Ctx {
            exe: "loki".into(),
            scope: crate::validate::Scope::default(),
            home: None,
        }
    }

    #[test]
    fn only_loki_run_uris_with_a_run_id_are_read() {
        let e = read_resource(&ctx(), "file:///etc/passwd").unwrap_err();
        assert!(e.contains("not a loki resource"), "{e}");
        let e = read_resource(&ctx(), "loki://runs/../../etc/passwd").unwrap_err();
        assert!(e.contains("is not a run id"), "{e}");
        let e = read_resource(&ctx(), "loki://runs/run_20261203_075000_ab12/receipt").unwrap_err();
        assert!(
            e.contains("no run run_20261203_075000_ab12 in the repositories this server serves"),
            "{e}"
        );
        // A server that serves any repository lists nothing: a resource needs a repository.
        assert!(list_resources(&ctx()).is_empty());
    }
}
