package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookRewritesToolInput: a hook's updatedInput is the result's, the hooks after it see the
// rewritten input, and on an event after the call it is only a warning.
func TestHookRewritesToolInput(t *testing.T) {
	t.Parallel()
	config := `{"hooks": {
	  "PreToolUse": [
	    {"command": "echo '{\"updatedInput\": {\"command\": \"ls -la\"}}'"},
	    {"command": "cat > seen.json"}
	  ],
	  "PostToolUse": [{"command": "echo '{\"updatedInput\": {\"command\": \"x\"}}'"}]
	}}`
	e, _ := engineFor(t, config, nil, nil)
	res, err := e.Fire(context.Background(), PreToolUse, Payload{"toolName": "Bash", "toolInput": map[string]any{"command": "ls"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.UpdatedInput["command"] != "ls -la" || res.Blocked {
		t.Fatalf("result %+v", res)
	}
	b, err := os.ReadFile(filepath.Join(e.Workspace, "seen.json"))
	must(t, err)
	seen := string(b)
	if !strings.Contains(seen, `"toolInput":{"command":"ls -la"}`) {
		t.Errorf("the next hook saw %s", seen)
	}
	res, err = e.Fire(context.Background(), PostToolUse, Payload{"toolName": "Bash", "toolInput": map[string]any{"command": "ls"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.UpdatedInput != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "where the call has already run") {
		t.Errorf("PostToolUse: %+v", res)
	}
}
