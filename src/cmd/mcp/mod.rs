//! `csift mcp`: the read commands served as MCP tools over stdio, on rmcp
//! (the official Rust SDK). The tokio runtime starts in [`serve`] and only
//! there: every other command runs without one. Each call runs the CLI
//! command's own code in-process on a blocking thread ([`call`]); a tool's
//! failure answers that call (isError), a panic inside a command answers an
//! internal error, and the server keeps serving until stdin closes.

mod call;
mod tools;

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt};

use crate::cli::extra::McpArgs;
use crate::cmd::Exit;
use crate::discovery::home;
use crate::error::{Error, Result};

/// What every call shares: the home fixed at start, the default budget,
/// the tool list (built once from the clap definitions).
#[derive(Clone)]
struct Server {
    home: Arc<PathBuf>,
    budget: usize,
    tools: Arc<Vec<Tool>>,
}

/// Serve until the client closes stdin.
pub(crate) fn serve(args: &McpArgs) -> Result<Exit> {
    let home = home::from_env(args.claude_home.clone())?.root;
    let home = std::path::absolute(&home).unwrap_or(home);
    let budget = args.budget.max(1);
    let server = Server {
        home: Arc::new(home),
        budget,
        tools: Arc::new(tool_list(budget)),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::Internal(format!("starting the MCP runtime: {e}")))?;
    rt.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Usage(format!("csift mcp: the client's initialize failed: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| Error::Internal(format!("the MCP service stopped: {e}")))?;
        Ok(Exit::Found)
    })
}

/// Every tool this build serves, with its schemas and annotations.
fn tool_list(budget: usize) -> Vec<Tool> {
    tools::available()
        .into_iter()
        .map(|(spec, cmd)| {
            let schema = tools::input_schema(spec, &cmd, budget);
            let mut ann = ToolAnnotations::new();
            ann.read_only_hint = Some(true);
            ann.destructive_hint = Some(false);
            ann.open_world_hint = Some(false);
            Tool::new(spec.name, spec.description, Arc::new(schema))
                .with_raw_output_schema(Arc::new(tools::output_schema()))
                .with_annotations(ann)
        })
        .collect()
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("csift", crate::cli::VERSION))
            .with_instructions(format!(
                "csift reads the Claude Code transcripts under {} (read-only). Find a \
session with list_sessions, search what was said or done with search (label picks user, \
agent.message, agent.tool.use …), print a hit whole with show (its session and line). \
Every answer is the CLI's --format json objects; one over max_chars says what it cut \
and the offset that gets the rest.",
                self.home.display()
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !self.tools.iter().any(|t| t.name == name) {
            return Err(ErrorData::invalid_params(
                format!("csift mcp has no tool `{name}`"),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let (home, budget) = (Arc::clone(&self.home), self.budget);
        let joined = tokio::task::spawn_blocking(move || {
            let available = tools::available();
            let Some((spec, cmd)) = available.iter().find(|(s, _)| s.name == name) else {
                return Err(call::CallError(format!("no tool `{name}`")));
            };
            call::run(spec, cmd, &args, &home, budget)
        })
        .await;
        let result = match joined {
            Ok(Ok(answer)) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(answer.text)]);
                r.structured_content = Some(answer.structured);
                r
            }
            Ok(Err(call::CallError(msg))) => {
                CallToolResult::error(vec![ContentBlock::text(format!("csift: {msg}"))])
            }
            // A panic inside a command: this call fails, the server goes on.
            Err(e) => {
                return Err(ErrorData::internal_error(
                    format!("csift: internal error running the tool: {e}"),
                    None,
                ))
            }
        };
        Ok(result.into())
    }
}
