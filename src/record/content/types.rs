//! The type names csift models: top-level record types, message block types and
//! tool-result part types. A name outside them is counted as unknown and said,
//! never dropped.

/// Top-level `type` values: observed, registered in the 2.1.258 binary, or from
/// older versions (REC-002, REC-024, REC-025, QT-030, QT-032).
pub(crate) const RECORD_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "attachment",
    "queue-operation",
    "file-history-snapshot",
    "file-history-delta",
    "last-prompt",
    "permission-mode",
    "mode",
    "ai-title",
    "agent-name",
    "atis-latch",
    "bridge-session",
    "fork-context-ref",
    "cost-state",
    "continued-in",
    "progress",
    "summary",
    "pr-link",
    "custom-title",
    "ended-by-model",
    "tag",
    "relocated",
    "agent-color",
    "agent-setting",
    "history-suppression",
    "attribution-snapshot",
    "isolation-latch",
    "worktree-state",
    "observer-ref",
    "content-replacement",
    "frame-link",
];

/// Part types of a tool_result's content array csift models (REC-011): a
/// part's `text` is searched whatever its type; the other fields of a part of
/// another type are not (search's unmodelled note says when a pattern is there).
pub(crate) const RESULT_PART_TYPES: &[&str] = &["text", "image", "tool_reference"];

/// Content block types csift models (REC-010; the binary registers 22, most
/// unobserved — any other name is listed as unknown).
pub(crate) const BLOCK_TYPES: &[&str] = &[
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
    "image",
    "document",
    "fallback",
    "server_tool_use",
    "mcp_tool_use",
    "mcp_tool_result",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
];
