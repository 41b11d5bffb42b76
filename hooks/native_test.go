package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirectArgv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(content), mode))
	}
	write("hook.sh", "#!/bin/sh\necho hi\n", 0o755)
	write("noshebang.sh", "echo hi\n", 0o755)
	write("notexec.sh", "#!/bin/sh\necho hi\n", 0o644)
	tests := []struct {
		command string
		direct  bool
	}{
		{"./hook.sh", true},
		{"./hook.sh --flag=1 a,b x@y 50%", true},
		{"./noshebang.sh", false}, // sh runs it as a script
		{"./notexec.sh", false},
		{"cat", true},
		{"true", false}, // a builtin: sh's, as written
		{"echo hi", false},
		{"FOO=1 ./hook.sh", false},
		{"./hook.sh | cat", false},
		{"./hook.sh > out", false},
		{"./hook.sh $HOME", false},
		{"./hook.sh 'quoted'", false},
		{"./hook.sh *", false},
		{"~/hook.sh", false},
		{"./hook.sh\n./hook.sh", false},
		{"no-such-program-here", false},
	}
	for _, tc := range tests {
		got := directArgv(tc.command, dir)
		if (got != nil) != tc.direct {
			t.Errorf("directArgv(%q) = %q, want direct=%v", tc.command, got, tc.direct)
		}
	}
	if got := directArgv("./hook.sh a b", dir); len(got) != 3 || got[0] != filepath.Join(dir, "hook.sh") || got[2] != "b" {
		t.Errorf("argv %q", got)
	}
}

// Direct and sh-run commands behave the same: arguments, stdin, exit codes, a script without #!.
func TestDirectExecBehavesLikeSh(t *testing.T) {
	t.Parallel()
	config := hooksJSON("PreExecutionEnd",
		cmdHook("direct", "./hook.sh one two=2", ""),
		cmdHook("plain", "./noshebang.sh", ""),
		cmdHook("gate", "./block.sh", ""))
	e, out := engineFor(t, config, nil, nil)
	write := func(name, content string) {
		must(t, os.WriteFile(filepath.Join(e.Workspace, name), []byte(content), 0o755))
	}
	write("hook.sh", "#!/bin/sh\necho \"args: $1 $2 event: $(jq -r .eventName)\"\n")
	write("noshebang.sh", "echo no shebang ran\n")
	write("block.sh", "#!/bin/sh\necho stop here >&2\nexit 2\n")
	res, err := e.Fire(context.Background(), "PreExecutionEnd", nil)
	must(t, err)
	for _, want := range []string{"args: one two=2 event: PreExecutionEnd", "no shebang ran"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output %q lacks %q", out.String(), want)
		}
	}
	if !res.Blocked || res.Reason != "stop here" {
		t.Errorf("blocked=%v reason=%q", res.Blocked, res.Reason)
	}
}
