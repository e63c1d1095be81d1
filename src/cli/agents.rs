//! Flags of `csift agents`.

use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum KindFilter {
    /// Task/Agent subagents: kinds task, agent and async-agent.
    Task,
    Teammate,
    Workflow,
    Fork,
    /// Compaction lanes.
    Compact,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum ReturnsArg {
    /// The text the parent recorded (continuation footer split off).
    Parent,
    /// The child's own last assistant words.
    Child,
    /// Both; the child's words are printed only when they differ.
    #[default]
    Both,
}

/// How siblings in the tree are ordered (`--order-by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum OrderBy {
    /// By the spawning call's time (the lane's first record when no call is
    /// known): the order the parent asked for them.
    #[default]
    Trigger,
    /// By the time each returned (`completed`); lanes with no completion
    /// time follow, in trigger order.
    Completion,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift agents @4d5611e5                 # the tree of one session\n",
    "  csift agents @a2898e3                  # the session that lane belongs to\n",
    "  csift agents                           # every session that has subagents\n",
    "  csift agents . --kind teammate         # teammates of this directory's session\n",
    "  csift agents @4d56 --depth 1 --returns parent\n",
    "  csift agents @4d56 --format json | jq 'select(.state==\"pending\")'\n",
    "  csift agents @4d56 --order-by completion   # siblings in the order they returned\n",
    "  csift agents @4d56 --with-files            # the files each lane wrote\n",
    "  csift show @a2898e3                    # lane ids work as targets\n\n",
    "TARGET must name one session (an error lists the candidates otherwise). With no TARGET,\n",
    "every session that has a lane or a spawn is listed, one tree after another.\n",
    "Nesting comes from the spawning Task/Agent/Workflow tool_use and the keys Claude Code\n",
    "writes (tool_use_id, agentId, meta toolUseId/parentAgentId, workflow runId, fork\n",
    "parentLastUuid, seed prompt), never from paths. Spawns whose lane file was never written\n",
    "appear as lane-less nodes; lanes whose parent cannot be found are listed as orphans.\n\n",
    "States: returned (carrier: sync-tool-result | task-notification | task-output |\n",
    "workflow-journal | compact-summary), launched (ack, no result yet), pending\n",
    "(the lane ends on an unanswered tool_use: escalation-blocked when Claude Code's\n",
    "dangerous-rm rule holds that Bash call for a human \"Yes\", even under bypass\n",
    "permissions; else awaiting-execution, where slow, wedged and abandoned look the same\n",
    "on disk, so weigh pending_since), stopped-by-user, failed, unknown.\n",
    "A lane is never called running.\n\n",
    "JSON (--format json), one object per line:\n",
    "  {\"type\":\"lane\",\"session_id\",\"project\",\"main_present\",\"agent_id\",\"file\",\n",
    "   \"line\" (an inline sidechain's first line in the main file, else null),\"shape\",\n",
    "   \"kind\",\"kind_basis\",\"agent_type\",\"description\",\"parent_id\",\"spawn_tool_use_id\",\"spawn_tool\",\n",
    "   \"join_rule\",\"join_agree\",\"unresolved_reason\",\"depth\",\"spawned\",\"started\",\"last_activity\",\n",
    "   \"completed\",\"records\",\"tool_calls\",\"tokens\":{\"input\",\"output\",\"cache_read\",\n",
    "   \"cache_creation\"},\"nested_records\"?,\"malformed_lines\",\"state\",\"carrier\",\"state_evidence\",\n",
    "   \"pending_classification\",\"pending_tool_name\",\"pending_since\",\"pending_reason\",\n",
    "   \"generating\",\"last_stop_reason\",\"returned_message_source\",\"returned_message\",\"footer\",\n",
    "   \"child_final_text\",\"returns_differ\",\"fork_parent_last_uuid\",\"fork_context_length\",\n",
    "   \"workflow_id\",\"teammate\":{\"name\",\"team_name\",\"messages_in\",\"messages_out\",\n",
    "   \"signals_in\",\"signals_out\",\"terminated\",\"control_hint\"}}\n",
    "  {\"type\":\"run\",\"session_id\",\"workflow_id\",\"parent_id\",\"spawn_tool_use_id\",\"task_id\",\n",
    "   \"workflow_name\",\"manifest_present\",\"status\",\"manifest_agent_count\",\"lanes\",\n",
    "   \"journal_present\",\"journal_started\",\"journal_results\",\"journal_failed\",\"depth\"}\n",
    "  shape is the lane file's, as list and stats name it (subagent, compact, workflow, flat,\n",
    "  lane), or inline-sidechain or no-lane-file; --kind selects on kind.\n",
    "  then {\"type\":\"summary\",\"sessions\",\"lanes\",\"shown\",\"dropped\",\"orphans\",\n",
    "   \"lane_less_spawns\",\"errors\",\"elapsed_ms\"} (lanes: every lane and lane-less spawn found;\n",
    "   dropped: those --kind, --depth or a window left out; sessions, orphans, lane_less_spawns:\n",
    "   among those shown; errors: files that could not be read, said on stderr; exit 2).\n",
    "  parent_id is \"main\", a parent agent id, or null (orphan). returned_message and\n",
    "  child_final_text are present as --returns selects. Tokens count each message.id once.\n",
    "  files_written (only with --with-files): [{\"path\",\"class\",\"kinds\":[…],\"touches\"}], the\n",
    "  paths the lane's own Write/Edit/MultiEdit/NotebookEdit calls changed (those whose result\n",
    "  is an error never landed and are left out) and those its Bash commands write, move,\n",
    "  copy, delete or touch, read as `csift files` reads them (kinds and classes as there);\n",
    "  null where the lane's records are not on disk apart (an inline sidechain, a lane-less\n",
    "  spawn without nested records). files_opaque: its commands that change files they never\n",
    "  name (formatters, installs, git checkout …).\n",
    "  nested_records: true on a lane-less subagent whose records sit in the parent's\n",
    "  agent_progress records (search finds them `via agent_progress`): records, tool_calls,\n",
    "  started and last_activity count them; tokens stay 0, as each nested usage copy is\n",
    "  written when its reply starts streaming (the footer has the total).\n\n",
    "Exit status: 0 lanes found, 1 none, 2 an error.",
))]
pub(crate) struct AgentsArgs {
    /// What to read (see TARGETS in `csift --help`); must resolve to one session.
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Only lanes of this kind (their ancestors stay as context in the tree).
    #[arg(long, alias = "shape", value_enum, value_name = "KIND")]
    pub(crate) kind: Option<KindFilter>,
    /// Only lanes at most N spawns below the session (1 = spawned by main).
    #[arg(long, value_name = "N")]
    pub(crate) depth: Option<usize>,
    /// Which return text to show.
    #[arg(long, value_enum, default_value_t = ReturnsArg::Both, value_name = "WHICH")]
    pub(crate) returns: ReturnsArg,
    /// Characters of each return shown in the tree (0 = whole text).
    #[arg(long, value_name = "N", default_value_t = 240)]
    pub(crate) width: usize,
    /// Order siblings by when they were spawned (trigger) or when they
    /// returned (completion).
    #[arg(long, value_enum, default_value_t = OrderBy::Trigger, value_name = "BY")]
    pub(crate) order_by: OrderBy,
    /// Also list the files each lane wrote (from its tool calls and commands,
    /// as `csift files` reads them).
    #[arg(long)]
    pub(crate) with_files: bool,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
