package githubtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// call sends one API request with the token and decodes the answer.
func call(t *testing.T, s *Server, method, path string, in any) (int, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	if in != nil {
		if err := json.NewEncoder(&body).Encode(in); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, s.URL+path, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func gitIn(t *testing.T, dir string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=" + dir, "PATH=" + pathEnv()}
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestGitDataAPI drives the fake's Git Data API the way GitHub's is driven, and checks with the
// git CLI that it wrote what git would, and fails where GitHub does.
func TestGitDataAPI(t *testing.T) {
	s := New("octo", "hello", "tok", "")
	defer s.Close()
	bare, err := s.ServeGit(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A first commit, made with the git CLI.
	blob := gitIn(t, bare, "a\n", "hash-object", "-w", "--stdin")
	tree := gitIn(t, bare, "100644 blob "+blob+"\ta.txt\n", "mktree")
	root := gitIn(t, bare, "", "-c", "user.name=T", "-c", "user.email=t@example.com", "commit-tree", tree, "-m", "root")
	gitIn(t, bare, "", "update-ref", "refs/heads/main", root)

	status, b := call(t, s, "POST", "/repos/octo/hello/git/blobs", map[string]any{"content": "Yg==", "encoding": "base64"})
	if status != 201 || b["sha"] != gitIn(t, bare, "b", "hash-object", "--stdin") {
		t.Fatalf("create blob: %d %v", status, b)
	}
	status, tr := call(t, s, "POST", "/repos/octo/hello/git/trees", map[string]any{"base_tree": tree, "tree": []any{
		map[string]any{"path": "dir/b.txt", "mode": "100755", "type": "blob", "sha": b["sha"]},
		map[string]any{"path": "a.txt", "mode": "100644", "type": "blob", "sha": nil},
	}})
	if status != 201 {
		t.Fatalf("create tree: %d %v", status, tr)
	}
	if got, want := gitIn(t, bare, "", "ls-tree", "-r", tr["sha"].(string)), "100755 blob "+b["sha"].(string)+"\tdir/b.txt"; got != want {
		t.Errorf("tree:\n%s\nwant\n%s", got, want)
	}
	if status, _ := call(t, s, "POST", "/repos/octo/hello/git/trees", map[string]any{"base_tree": tree, "tree": []any{
		map[string]any{"path": "missing.txt", "mode": "100644", "type": "blob", "sha": nil},
	}}); status != 422 {
		t.Errorf("deleting a path that does not exist: %d, want 422", status)
	}

	// A commit without author or committer by an installation token is signed; its payload and
	// signature make the object whose id GitHub answered.
	status, c := call(t, s, "POST", "/repos/octo/hello/git/commits", map[string]any{"message": "add b\n", "tree": tr["sha"], "parents": []string{root}})
	if status != 201 {
		t.Fatalf("create commit: %d %v", status, c)
	}
	v := c["verification"].(map[string]any)
	if v["verified"] != true || v["reason"] != "valid" {
		t.Errorf("verification %v, want a valid signature", v)
	}
	raw := gitIn(t, bare, "", "cat-file", "commit", c["sha"].(string))
	if !strings.Contains(raw, "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n") || !strings.Contains(raw, "committer github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>") {
		t.Errorf("commit object:\n%s", raw)
	}
	gitIn(t, bare, "", "fsck", "--strict")

	// Refs: only a fast-forward without force; a ref is created once.
	if status, r := call(t, s, "PATCH", "/repos/octo/hello/git/refs/heads/main", map[string]any{"sha": c["sha"], "force": false}); status != 200 {
		t.Fatalf("update ref: %d %v", status, r)
	}
	if status, r := call(t, s, "PATCH", "/repos/octo/hello/git/refs/heads/main", map[string]any{"sha": root, "force": false}); status != 422 || r["message"] != "Update is not a fast forward" {
		t.Errorf("non-fast-forward update: %d %v, want 422", status, r)
	}
	if status, _ := call(t, s, "GET", "/repos/octo/hello/git/ref/heads/main", nil); status != 200 {
		t.Errorf("get ref: %d", status)
	}
	if status, _ := call(t, s, "GET", "/repos/octo/hello/git/ref/heads/nope", nil); status != 404 {
		t.Errorf("get a missing ref: %d, want 404", status)
	}
	if status, r := call(t, s, "POST", "/repos/octo/hello/git/refs", map[string]any{"ref": "refs/heads/main", "sha": root}); status != 422 || r["message"] != "Reference already exists" {
		t.Errorf("create an existing ref: %d %v", status, r)
	}

	// A token without contents: write.
	s.SetTokenPermissions("contents=read")
	if status, _ := call(t, s, "POST", "/repos/octo/hello/git/blobs", map[string]any{"content": "x"}); status != 403 {
		t.Errorf("create a blob without contents: write: %d, want 403", status)
	}
}

func pathEnv() string { return os.Getenv("PATH") }
