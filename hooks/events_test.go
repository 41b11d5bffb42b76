package hooks

import "testing"

// TestAgentEventsBlock: the agent events of issue 13 block as the hosts let them: a gate before a
// tool, a prompt, a permission, a push or a subagent's stop; not what reports what already happened.
func TestAgentEventsBlock(t *testing.T) {
	t.Parallel()
	want := map[string]bool{
		UserPromptSubmit: true, PreToolUse: true, PermissionRequest: true, SubagentStop: true, PreGitPush: true,
		PostToolUse: false, PostToolUseFailure: false, Notification: false, PreCompact: false, SubagentStart: false,
	}
	for event, blocks := range want {
		if c, ok := Canonical(event, nil); !ok || c != event {
			t.Errorf("%s: canonical %q, %v", event, c, ok)
		}
		if got := CanBlock(event); got != blocks {
			t.Errorf("CanBlock(%s) = %v, want %v", event, got, blocks)
		}
	}
}
