package gitcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormsCommitAndPushWithRealGit grounds the forms Scan sees through: each command, run by
// sh with the real git CLI in a throwaway repository, really makes a commit (HEAD moves) or
// really pushes (the bare remote's main moves), and Scan says the command commits or pushes
// (an op, or unknown: either way both gates fire).
func TestFormsCommitAndPushWithRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	t.Parallel()
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.git")
	repo := filepath.Join(dir, "repo")
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	run := func(command string) (string, error) {
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("%s: %v\n%s", command, err, out)
		}
		return strings.TrimSpace(string(out)), nil
	}
	must := func(command string) string {
		t.Helper()
		out, err := run(command)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	must("git init -q --bare " + remote + " && git init -q -b main . && git remote add origin " + remote)
	must("git commit -q --allow-empty -m init && git push -q origin main")
	execPath := must("git --exec-path")

	tests := []struct {
		command string
		op      string // "commit" or "push"
		needs   string // a program the form needs besides git and sh
	}{
		{`"$(git --exec-path)/git-push" -q origin main`, "push", ""},
		{execPath + `/git-push -q origin main`, "push", ""},
		{execPath + `/git-commit -q --allow-empty -m x`, "commit", ""},
		{`env -S 'git push -q origin main'`, "push", "env"},
		{`echo 'push -q origin main' | xargs git`, "push", "xargs"},
		{`git -c alias.p=push p -q origin main`, "push", ""},
		{`git -c alias.c='commit --allow-empty' c -q -m x`, "commit", ""},
		{`git config alias.sv '!git push -q origin' && git sv main`, "push", ""},
		{`find . -maxdepth 0 -exec git push -q origin main \;`, "push", "find"},
		{`git send-pack ` + remote + ` main`, "push", ""},
		{`git update-ref refs/heads/main $(git commit-tree 'HEAD^{tree}' -p HEAD -m x)`, "commit", ""},
		{`git -c core.editor='git push -q origin main; true' commit -q --allow-empty --allow-empty-message`, "push", ""},
		{`echo 'git push -q origin main' | sh`, "push", ""},
		{"bash 2>/dev/null <<'EOF'\nPS4='$(git push -q origin main)'\nset -x\n:\nEOF", "push", "bash"},
		{`bash -c 'hash -p "$(command -v git)" g; g push -q origin main'`, "push", "bash"},
		{"bash <<'EOF'\nshopt -s expand_aliases\nalias p='git push -q origin main'\np\nEOF", "push", "bash"},
		{`GIT_SEQUENCE_EDITOR="sed -i '1i exec git push -q origin main'" git rebase -q -i HEAD~1`, "push", "sed"},
		{`git -c protocol.ext.allow=always fetch -q 'ext::sh -c git% push% -q% origin% main% >&2;% git-upload-pack% ` + remote + `' main`, "push", ""},
		{`busybox sh -c 'git push -q origin main'`, "push", "busybox"},
		{`script -qc 'git push -q origin main' /dev/null`, "push", "script"},
		{`flock ` + filepath.Join(dir, "lock") + ` git push -q origin main`, "push", "flock"},
		{`ionice -c3 git push -q origin main`, "push", "ionice"},
		{`strace -f -o /dev/null git push -q origin main`, "push", "strace"},
		{`fakeroot git commit -q --allow-empty -m x`, "commit", "fakeroot"},
		{`parallel git ::: 'push -q origin main'`, "push", "parallel"},
	}
	for _, tt := range tests {
		if tt.needs != "" {
			if _, err := exec.LookPath(tt.needs); err != nil {
				t.Logf("skipped, no %s: %s", tt.needs, tt.command)
				continue
			}
		}
		// Something new to push, made by plain git.
		must("git commit -q --allow-empty -m next")
		head := must("git rev-parse HEAD")
		remoteHead := must("git --git-dir=" + remote + " rev-parse main")
		if out, err := run(tt.command); err != nil {
			if tt.needs == "strace" { // here, but it may not run in a sandbox without ptrace
				t.Logf("skipped, %s does not run here: %v", tt.needs, strings.TrimSpace(out))
				continue
			}
			t.Fatal(err)
		}
		newHead := must("git rev-parse HEAD")
		newRemote := must("git --git-dir=" + remote + " rev-parse main")
		switch tt.op {
		case "commit":
			if newHead == head {
				t.Fatalf("%s: git made no commit", tt.command)
			}
		case "push":
			if newRemote == remoteHead {
				t.Fatalf("%s: git pushed nothing", tt.command)
			}
		}
		if r := Scan(tt.command); !r.Has(tt.op) {
			t.Errorf("%s: git did %s, Scan says %+v", tt.command, tt.op, r)
		}
	}
}
