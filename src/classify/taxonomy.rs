//! The label taxonomy: exactly 33 leaves under three roles (CLS-001), each with its
//! one-line meaning and whether the model sees it. Visibility follows the one
//! measured instrument, the presence of a `message{}` on the record (CLS-002); a
//! bare role selector expands to its visible leaves only (QT-027, QT-029).
//! [`Label::ALL`] is the single source of truth for selectors, `--list-labels`,
//! census keys and docs/labels.md.

use std::fmt;

macro_rules! labels {
    ($( $var:ident = $name:literal, $visible:literal, $doc:literal; )*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) enum Label { $( #[doc = $doc] $var, )* }

        impl Label {
            pub(crate) const ALL: &'static [Label] = &[ $( Label::$var, )* ];

            /// The dotted leaf path, e.g. `agent.tool.use`.
            pub(crate) fn name(self) -> &'static str {
                match self { $( Label::$var => $name, )* }
            }

            /// Whether the model receives this unit (CLS-002).
            pub(crate) fn visible(self) -> bool {
                match self { $( Label::$var => $visible, )* }
            }

            /// One line saying what the leaf holds.
            pub(crate) fn doc(self) -> &'static str {
                match self { $( Label::$var => $doc, )* }
            }
        }
    };
}

labels! {
    UserMessage = "user.message", true, "a prompt the user typed (string or text blocks, not meta), a prompt of images only, or text typed while a tool ran, beside its tool_result"; // IMG-001
    UserAnswer = "user.answer", true, "the user's answer to an AskUserQuestion, riding a non-error tool_result with toolUseResult.answers"; // TURN-010
    UserRejection = "user.rejection", true, "a tool-use rejection carrying the user's typed instruction"; // TURN-013
    UserUnsent = "user.unsent", false, "a draft recalled with escape and re-sent: a superseded same-parent sibling"; // TURN-022…024
    UserQueued = "user.queued", false, "text the user typed while the agent worked, in a queue-operation line"; // QT-001, QT-005
    AgentMessage = "agent.message", true, "the agent's visible text block";
    AgentThinking = "agent.thinking", true, "a thinking (or redacted_thinking) block the model reasoned in";
    AgentThinkingNarration = "agent.thinking.narration", true, "a thinking block the signature marks as narration"; // NAR-*
    AgentToolUse = "agent.tool.use", true, "a tool_use block: tool name plus its input";
    AgentToolResult = "agent.tool.result", true, "a tool_result block: what the tool returned";
    AgentCommunicationInbox = "agent.communication.inbox", true, "a message from a peer or teammate delivered into this lane"; // TURN-015…017
    AgentCommunicationSent = "agent.communication.sent", true, "a SendMessage or a Task/Agent/Workflow spawn addressed to another agent"; // CLS-010
    AgentCommunicationSignal = "agent.communication.signal", true, "a teammate control signal such as idle_notification or shutdown_request"; // CLS-011
    HarnessNotificationBackground = "harness.notification.background", true, "a <task-notification> about a background shell command"; // CLS-003, CLS-004
    HarnessNotificationMonitor = "harness.notification.monitor", true, "a <task-notification> pulse from a Monitor or cron cadence"; // CLS-005
    HarnessNotificationSubagent = "harness.notification.subagent", true, "a <task-notification> about an agent or workflow, or a stopped-agents notice"; // CLS-004, CLS-008
    HarnessNotificationTask = "harness.notification.task", true, "any other <task-notification>"; // CLS-003
    HarnessScheduleContinuation = "harness.schedule.continuation", true, "the `Continue from where you left off.` resume marker"; // CLS-013
    HarnessScheduleWakeup = "harness.schedule.wakeup", true, "a fired autonomous-loop / ScheduleWakeup tick"; // CLS-014, CLS-015
    HarnessCompactionBoundary = "harness.compaction.boundary", false, "the system compact_boundary record with compactMetadata"; // CMP-*
    HarnessCompactionSummary = "harness.compaction.summary", true, "the isCompactSummary user record carrying the compaction summary"; // TURN-020
    HarnessCommandInvocation = "harness.command.invocation", true, "a slash-command wrapper (<command-name>, <command-message>, <command-args>), or the isMeta prompt a command or skill expands to"; // TURN-007, TURN-008
    HarnessCommandStdout = "harness.command.stdout", true, "local command output in <local-command-stdout> / <local-command-stderr>"; // TURN-006
    HarnessInterruptUser = "harness.interrupt.user", true, "`[Request interrupted by user]`"; // TURN-005
    HarnessInterruptTool = "harness.interrupt.tool", true, "`[Request interrupted by user for tool use]`"; // TURN-005
    HarnessMetaAttachment = "harness.meta.attachment", true, "an attachment record other than hook context (hook output, files, todos, deferred tools …)"; // CLS-020
    HarnessMetaAway = "harness.meta.away", false, "a system away_summary written when the session went idle";
    HarnessMetaHook = "harness.meta.hook", true, "hook-injected text: isMeta hook feedback or a hook_additional_context attachment"; // CLS-016, CLS-019
    HarnessMetaLoop = "harness.meta.loop", true, "an isMeta autonomous-loop driver tick (`# Autonomous loop tick`)";
    HarnessMetaSnapshot = "harness.meta.snapshot", false, "file-history-snapshot / file-history-delta lines"; // CLS-025
    HarnessMetaStop = "harness.meta.stop", false, "system stop_hook_summary records";
    HarnessMetaSystem = "harness.meta.system", false, "any other system subtype, or none (local_command, api_error, informational …)";
    HarnessMetaTurn = "harness.meta.turn", false, "system turn_duration records (durationMs, messageCount)";
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Label {
    #[cfg(test)]
    pub(crate) fn from_name(s: &str) -> Option<Label> {
        Label::ALL.iter().copied().find(|l| l.name() == s)
    }

    /// The earlier spellings of four leaves (csift 0.10.1's, and the claims'),
    /// accepted as selector aliases and listed by `--list-labels` with the
    /// leaf they name: (alias, canonical leaf).
    pub(crate) const ALIASES: &'static [(&'static str, Label)] = &[
        (
            "harness.notification.background-command",
            Label::HarnessNotificationBackground,
        ),
        ("harness.meta.away-summary", Label::HarnessMetaAway),
        ("harness.meta.stop-hooks", Label::HarnessMetaStop),
        ("harness.meta.turn-duration", Label::HarnessMetaTurn),
    ];

    /// The leaf an alias names, or `s` itself.
    pub(crate) fn alias(s: &str) -> &str {
        match Label::ALIASES.iter().find(|(a, _)| *a == s) {
            Some((_, l)) => l.name(),
            None => s,
        }
    }

    #[cfg(test)]
    pub(crate) fn role(self) -> &'static str {
        let n = self.name();
        &n[..n.find('.').unwrap_or(n.len())]
    }

    /// Dot-segment prefix test: `agent.thinking` covers `agent.thinking.narration`
    /// but `agent.tool` does not cover `agent.toolbox` (CLS-001).
    pub(crate) fn under(self, prefix: &str) -> bool {
        let n = self.name();
        n == prefix || (n.starts_with(prefix) && n.as_bytes().get(prefix.len()) == Some(&b'.'))
    }
}

/// A set of labels, as selected by `-t` flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LabelSet(u64);

impl LabelSet {
    pub(crate) const EMPTY: LabelSet = LabelSet(0);

    /// The default selection: every visible leaf.
    pub(crate) fn visible() -> LabelSet {
        Label::ALL
            .iter()
            .filter(|l| l.visible())
            .fold(LabelSet::EMPTY, |s, &l| s.with(l))
    }

    pub(crate) fn with(self, l: Label) -> LabelSet {
        LabelSet(self.0 | (1 << l as u32))
    }

    pub(crate) fn contains(self, l: Label) -> bool {
        self.0 & (1 << l as u32) != 0
    }

    pub(crate) fn iter(self) -> impl Iterator<Item = Label> {
        Label::ALL
            .iter()
            .copied()
            .filter(move |&l| self.contains(l))
    }

    /// Parse `-t` selectors (repeatable, comma-separated). A bare role selects its
    /// visible leaves (QT-027); `x.y.*` or `x.y` selects the dot-segment subtree;
    /// an exact leaf reaches any leaf, visible or not (QT-029).
    pub(crate) fn parse<S: AsRef<str>>(selectors: &[S]) -> Result<LabelSet, String> {
        let mut set = LabelSet::EMPTY;
        for sel in selectors.iter().flat_map(|s| s.as_ref().split(',')) {
            let sel = sel.trim();
            if sel.is_empty() {
                continue;
            }
            let (prefix, star) = match sel.strip_suffix(".*") {
                Some(p) => (Label::alias(p), true),
                None => (Label::alias(sel), false),
            };
            let bare_role = !star && matches!(prefix, "user" | "agent" | "harness");
            let before = set;
            for &l in Label::ALL {
                if l.under(prefix) && (!bare_role || l.visible()) {
                    set = set.with(l);
                }
            }
            if set == before && !Label::ALL.iter().any(|l| l.under(prefix)) {
                return Err(format!(
                    "unknown label selector `{sel}`; valid leaves (`csift search --list-labels` explains each):\n  {}",
                    Label::ALL
                        .iter()
                        .map(|l| l.name())
                        .collect::<Vec<_>>()
                        .join("\n  ")
                ));
            }
        }
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_33_leaves_cls_001() {
        assert_eq!(Label::ALL.len(), 33, "Label::ALL leaf count drifted");
        let roles = ["user", "agent", "harness"];
        let per: Vec<usize> = roles
            .iter()
            .map(|r| Label::ALL.iter().filter(|l| l.role() == *r).count())
            .collect();
        assert_eq!(per, vec![5, 8, 20]);
    }

    #[test]
    fn names_are_unique_and_round_trip() {
        for &l in Label::ALL {
            assert_eq!(Label::from_name(l.name()), Some(l));
        }
    }

    #[test]
    fn segment_prefix_selection_cls_001() {
        let s = LabelSet::parse(&["agent.thinking"]).unwrap();
        assert_eq!(s.iter().count(), 2);
        let s = LabelSet::parse(&["agent.thinking.narration"]).unwrap();
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            vec![Label::AgentThinkingNarration]
        );
        let s = LabelSet::parse(&["agent.tool.*"]).unwrap();
        assert_eq!(s.iter().count(), 2);
    }

    #[test]
    fn bare_role_selects_visible_leaves_only_qt_027() {
        let s = LabelSet::parse(&["user"]).unwrap();
        assert!(s.contains(Label::UserMessage));
        assert!(!s.contains(Label::UserUnsent));
        // An exact invisible leaf is reachable (QT-029).
        let s = LabelSet::parse(&["user.unsent"]).unwrap();
        assert!(s.contains(Label::UserUnsent));
        // `harness.*` is a subtree, not a bare role: it includes invisible leaves.
        assert!(LabelSet::parse(&["harness.*"])
            .unwrap()
            .contains(Label::HarnessMetaTurn));
    }

    #[test]
    fn comma_lists_and_unknown_selectors() {
        let s = LabelSet::parse(&["user.message,agent.message"]).unwrap();
        assert_eq!(s.iter().count(), 2);
        let e = LabelSet::parse(&["nosuchleaf"]).unwrap_err();
        assert_eq!(e.lines().count(), 34);
    }
}
