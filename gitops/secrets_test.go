package gitops

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// fakeToken is a made-up GitHub token of the real format (ghp_ and 36 characters of a fixed
// seed), built at run time so that no file of this repository holds one.
func fakeToken(seed uint64) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := rand.New(rand.NewPCG(seed, seed))
	b := []byte("gh" + "p_")
	for range 36 {
		b = append(b, alnum[r.IntN(len(alnum))])
	}
	return string(b)
}

// fakePrivateKey is a made-up OpenSSH private key: its armour around random base64.
func fakePrivateKey() string {
	return "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + strings.Repeat(fakeToken(9)[4:]+"\n", 3) +
		"-----END OPENSSH " + "PRIVATE KEY-----\n"
}

func findingPaths(fs []SecretFinding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path+":"+f.Rule)
	}
	return strings.Join(out, " ")
}

// TestCommitLeavesOutSecrets (issue 27, item 6): an untracked .env with SECRET=1 was committed
// (and pushed). Files that look like secrets — by name (dotenv, private key files) or by content
// (a GitHub token) — are left out of the commit, untracked or unstaged, and reported; the rest
// is committed; an allowed one is committed.
func TestCommitLeavesOutSecrets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		allow   []string
		leftOut string // path:rule …
		status  string // git status --porcelain afterwards
		commits string // the commit's files, as filesString
	}{
		{
			name:    "left out",
			leftOut: ".env:dotenv deploy/id_rsa:RSAFile src/token.go:github-pat",
			status:  "?? .env\n?? deploy/\n?? src/token.go",
			commits: "M\tREADME.md\nA\tconfig/.env.example\nA\tsrc/main.go",
		},
		{
			name:    "allowed by the hook",
			allow:   []string{".env", "deploy/**"},
			leftOut: "src/token.go:github-pat",
			status:  "?? src/token.go",
			commits: "A\t.env\nM\tREADME.md\nA\tconfig/.env.example\nA\tdeploy/id_rsa\nA\tsrc/main.go",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			dir := e.newRepo(t, map[string]string{"README.md": "readme\n"})
			writeFiles(t, dir, map[string]string{
				".env":                "SECRET=1\n",
				"config/.env.example": "SECRET=\n",
				"deploy/id_rsa":       "not even a key: the name says it\n",
				"src/token.go":        "package src\n\nconst token = \"" + fakeToken(1) + "\"\n",
				"src/main.go":         "package src\n",
				"README.md":           "readme, changed\n",
			})
			res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "work", AllowSecrets: tc.allow})
			if err != nil {
				t.Fatal(err)
			}
			if got := findingPaths(res.Secrets); got != tc.leftOut {
				t.Errorf("left out %q, want %q", got, tc.leftOut)
			}
			if got := filesString(res.Files); got != tc.commits {
				t.Errorf("committed %s, want %s", got, tc.commits)
			}
			if got := e.git(t, dir, "show", "--name-status", "--format=", "HEAD"); strings.Contains(got, "token.go") {
				t.Errorf("git show HEAD:\n%s", got)
			}
			if got := e.git(t, dir, "status", "--porcelain", "--untracked-files=normal"); got != tc.status {
				t.Errorf("git status:\n%s\nwant:\n%s", got, tc.status)
			}
			e.fsck(t, dir)
		})
	}
}

// TestCommitUnstagesSecretsStagedBefore: a file that looks like a secret and was staged before
// (git add) is taken out of the commit too: a new file leaves the index (untracked again), a
// tracked file's entry goes back to HEAD's version (its change unstaged, still in the work tree).
func TestCommitUnstagesSecretsStagedBefore(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"config.go": "package config\n"})
	writeFiles(t, dir, map[string]string{
		".env.local": "SECRET=1\n",
		"config.go":  "package config\n\nconst token = \"" + fakeToken(2) + "\"\n",
		"ok.txt":     "fine\n",
	})
	e.git(t, dir, "add", "-A")
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "work"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := findingPaths(res.Secrets), ".env.local:dotenv config.go:github-pat"; got != want {
		t.Errorf("left out %q, want %q", got, want)
	}
	if got, want := filesString(res.Files), "A\tok.txt"; got != want {
		t.Errorf("committed %s, want %s", got, want)
	}
	if got, want := e.git(t, dir, "status", "--porcelain", "--branch"), "## main\n M config.go\n?? .env.local"; got != want {
		t.Errorf("git status:\n%s\nwant:\n%s", got, want)
	}
	e.fsck(t, dir)

	// Nothing else to commit: nothing is committed, and the files are reported again.
	res, err = openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes || findingPaths(res.Secrets) != ".env.local:dotenv config.go:github-pat" {
		t.Errorf("second commit: changes %v, left out %q", res.Changes, findingPaths(res.Secrets))
	}
}

// TestCommitRefusesSecretStagedByPreCommit: what the repository's pre-commit hook stages is
// checked too; a hook that stages a secret stops the commit.
func TestCommitRefusesSecretStagedByPreCommit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	writeFiles(t, dir, map[string]string{"a.txt": "a changed\n", "server.pem": fakePrivateKey()})
	writeHook(t, dir, ".git/hooks/pre-commit", "git add server.pem\n")
	head := e.git(t, dir, "rev-parse", "HEAD")
	_, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "work"})
	if err == nil || !strings.Contains(err.Error(), "the pre-commit hook staged server.pem, which looks like a secret (rule PemFile (talisman))") {
		t.Fatalf("err = %v", err)
	}
	e.wantRef(t, dir, "HEAD", head)
}

// TestPushRefusesNewCommitsWithSecrets: a push whose new commits (made by anyone: here by git
// itself) add a file that looks like a secret is refused, naming the file, the rule and the
// commit, and the remote is left as it was; a file allowed by the hook is pushed.
func TestPushRefusesNewCommitsWithSecrets(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	e.git(t, dir, "push", "-q", "origin", "main")
	before := e.git(t, bare, "rev-parse", "main")
	writeFiles(t, dir, map[string]string{".env": "SECRET=1\n"})
	e.git(t, dir, "add", ".env")
	e.git(t, dir, "commit", "-q", "-m", "add .env")
	secretCommit := e.git(t, dir, "rev-parse", "HEAD")
	writeFiles(t, dir, map[string]string{"b.txt": "b\n"})
	e.git(t, dir, "add", "b.txt")
	e.git(t, dir, "commit", "-q", "-m", "b")

	_, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{})
	var se *SecretError
	if !errors.As(err, &se) || len(se.Findings) != 1 {
		t.Fatalf("err = %v, want a SecretError with one finding", err)
	}
	if f := se.Findings[0]; f.Path != ".env" || f.Rule != "dotenv" || f.Commit != secretCommit {
		t.Errorf("finding %+v", f)
	}
	if msg := err.Error(); !strings.Contains(msg, ".env in "+secretCommit[:7]+" (rule dotenv (github/gitignore))") || !strings.Contains(msg, "nothing was pushed") {
		t.Errorf("message %q", msg)
	}
	e.wantRef(t, bare, "main", before)

	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{AllowSecrets: []string{"*.env", ".env"}}); err != nil {
		t.Fatal(err)
	}
	e.wantRef(t, bare, "main", e.git(t, dir, "rev-parse", "HEAD"))
}

// TestPushChecksOnlyWhatTheRemoteLacks: what a branch of the remote already has is not the
// push's to refuse — a secret pushed before (by git), a branch started from an older commit of a
// remote branch that moved on, a merge of a remote branch — while a secret in a commit the remote
// lacks, below a merge, is found.
func TestPushChecksOnlyWhatTheRemoteLacks(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	commit := func(files map[string]string, msg string) {
		writeFiles(t, dir, files)
		e.git(t, dir, "add", "-A")
		e.git(t, dir, "commit", "-q", "-m", msg)
	}
	// Someone pushed a token with git, and main moved on after the feature branch started.
	commit(map[string]string{"old.go": "package old\n\nvar t = \"" + fakeToken(3) + "\"\n"}, "old token")
	e.git(t, dir, "branch", "feature")
	commit(map[string]string{"main.txt": "main moves on\n"}, "main")
	e.git(t, dir, "push", "-q", "origin", "main")

	e.git(t, dir, "checkout", "-q", "feature")
	commit(map[string]string{"feature.txt": "feature\n"}, "feature")
	e.git(t, dir, "merge", "-q", "--no-edit", "main")
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{}); err != nil {
		t.Fatalf("push of clean new commits: %v", err)
	}
	e.wantRef(t, bare, "feature", e.git(t, dir, "rev-parse", "HEAD"))

	// A side branch with a secret merged in: the merge's second parent is new.
	e.git(t, dir, "checkout", "-q", "-b", "side", "main")
	commit(map[string]string{"keys/deploy.key": "key material\n"}, "side")
	side := e.git(t, dir, "rev-parse", "HEAD")
	e.git(t, dir, "checkout", "-q", "feature")
	commit(map[string]string{"feature2.txt": "more\n"}, "feature 2")
	e.git(t, dir, "merge", "-q", "--no-edit", "side")
	before := e.git(t, bare, "rev-parse", "feature")
	_, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{})
	var se *SecretError
	if !errors.As(err, &se) || findingPaths(se.Findings) != "keys/deploy.key:KeyPairFile" || se.Findings[0].Commit != side {
		t.Fatalf("err = %v, want keys/deploy.key of %s", err, side)
	}
	e.wantRef(t, bare, "feature", before)
}
