package action_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/github/runnertest"
)

// The steps of action.yml, run in an emulated runner (github/runnertest) against a release server
// on 127.0.0.1: GitHub's release downloads (/<repo>/releases/download/<tag>/<file>) and the
// repository's tags over git smart HTTP (the real git http-backend), as a remote `uses:` sees them:
// the action in <runner>/_actions/<owner>/<repo>/<ref>, outside the workspace.

const (
	actionRepo = "autoagent/agent-hooks"
	fakeToken  = "ghs_emulatedRunnerToken0123456789abcdef"
	firstHook  = "FIRST-HOOK-RAN"
)

// releaseServer serves releases and the action repository's tags.
type releaseServer struct {
	url      string
	mu       sync.Mutex
	releases map[string]map[string][]byte // tag -> file -> content
	requests map[string]int               // path -> count
	commits  map[string]string            // tag -> commit
	status   map[string]int               // path -> the HTTP status it answers instead of its file
}

// answer makes the server answer requests for path with the HTTP status code (0: as before).
func (s *releaseServer) answer(path string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == 0 {
		delete(s.status, path)
	} else {
		s.status[path] = code
	}
}

func (s *releaseServer) count(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, c := range s.requests {
		if strings.HasPrefix(p, prefix) {
			n += c
		}
	}
	return n
}

// release is one release's archive for this machine, as GoReleaser names it, and its checksums.
// version is what the binary says it is.
type release struct {
	version string
	files   map[string][]byte
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// releaseBinaries builds agent-hooks, agent-hooks-full and agent-hooks-otel once for all tests, stamped as release
// 1.2.3 is, into one directory. Under -short they are built in the tests' own configuration (no
// -trimpath, the default CGO_ENABLED), whose compiled packages the other packages' tests share in
// the build cache: only the three main packages compile. Built as a release is, every package of
// the module compiles a second time.
func releaseBinaries(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agent-hooks-release-")
		if err != nil {
			binErr = err
			return
		}
		binDir = dir
		release, env := []string{"-trimpath"}, append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
		if testing.Short() {
			release, env = nil, os.Environ()
		}
		cmd := exec.Command("go", append(append([]string{"build"}, release...), "-o", dir+string(filepath.Separator),
			"-ldflags", "-X main.version=1.2.3 -X main.commit=0123456789abcdef0123456789abcdef01234567 -X main.date=2026-05-01T10:00:00Z",
			"./cmd/agent-hooks", "./cmd/agent-hooks-full", "./cmd/agent-hooks-otel")...)
		cmd.Dir = ".."
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}

// newRelease packs the binaries as GoReleaser does (agent-hooks_<os>_<arch>.tar.gz with
// agent-hooks, agent-hooks-full and agent-hooks-otel at its root) and writes
// agent-hooks_checksums.txt.
func newRelease(t testing.TB, version string) release {
	return packRelease(t, version, "agent-hooks", "agent-hooks-full", "agent-hooks-otel")
}

// packRelease is newRelease with only the named binaries in the archive.
func packRelease(t testing.TB, version string, binaries ...string) release {
	t.Helper()
	files := []tarFile{{"README.md", []byte("# agent-hooks\n")}}
	for _, name := range binaries {
		bin, err := os.ReadFile(filepath.Join(releaseBinaries(t), name))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, tarFile{name, bin})
	}
	archive := tarGz(t, files...)
	sum := sha256.Sum256(archive)
	sums := fmt.Sprintf("%s  agent-hooks_amd64.deb\n%s  %s\n", strings.Repeat("0", 64), hex.EncodeToString(sum[:]), archiveName)
	return release{version: version, files: map[string][]byte{archiveName: archive, "agent-hooks_checksums.txt": []byte(sums)}}
}

// archiveName is the name of the release archive for this machine.
var archiveName = fmt.Sprintf("agent-hooks_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)

type tarFile struct {
	name string
	data []byte
}

// tarGz packs files as GoReleaser does: at the archive's root, mode 0755 for the programs.
func tarGz(t testing.TB, files ...tarFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		mode := int64(0o755)
		if strings.HasSuffix(f.name, ".md") {
			mode = 0o644
		}
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: mode, Size: int64(len(f.data)), ModTime: time.Unix(1777000000, 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// wantShipper checks that agent-hooks-otel is next to the agent-hooks at bin, as agent-hooks
// looks for it: the shipper's own program, static, and it runs (shipping an empty spool).
func wantShipper(t *testing.T, bin string) {
	t.Helper()
	if bin == "" {
		t.Error("no agent-hooks path in the step's outputs")
		return
	}
	shipper := filepath.Join(filepath.Dir(bin), "agent-hooks-otel")
	info, err := buildinfo.ReadFile(shipper)
	if err != nil {
		t.Errorf("no agent-hooks-otel next to %s: %v", bin, err)
		return
	}
	if want := "github.com/autoagent/agent-hooks/cmd/agent-hooks-otel"; info.Path != want {
		t.Errorf("%s is %s, want %s", shipper, info.Path, want)
	}
	// Under -short the packed release is the tests' own build (releaseBinaries); GoReleaser's
	// archives and the source build are checked without -short.
	if cgo := buildSetting(info, "CGO_ENABLED"); cgo != "0" && !testing.Short() {
		t.Errorf("agent-hooks-otel built with CGO_ENABLED=%q, want 0", cgo)
	}
	out, err := exec.Command(shipper, "ship", "--home", t.TempDir()).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "shipped 0 batch(es)") {
		t.Errorf("%s ship on an empty spool: %v\n%s", shipper, err, out)
	}
}

// distRelease is the snapshot GoReleaser built in dir (AGENT_HOOKS_DIST, set by .ci/run): the
// real archives and checksums, so that the names action/install.sh expects are the ones
// .goreleaser.yaml makes.
func distRelease(t testing.TB, dir string) release {
	t.Helper()
	var meta struct{ Version string }
	b, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	r := release{version: meta.Version, files: map[string][]byte{}}
	for _, name := range []string{"agent-hooks_checksums.txt", fmt.Sprintf("agent-hooks_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)} {
		if r.files[name], err = os.ReadFile(filepath.Join(dir, name)); err != nil {
			t.Fatalf("GoReleaser's dist has no %s: %v", name, err)
		}
	}
	return r
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newReleaseServer starts the server with the action repository's history: v1.2.2, then v1.2.3
// (annotated) with the major tag v1 on the same commit, then v2.0.0 and v1.2.4, v9.9.9 (a tag
// without a release) and the branch main. releases are served by tag.
func newReleaseServer(t testing.TB, releases map[string]release) *releaseServer {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the emulated runner runs bash with POSIX paths")
	}
	for _, tool := range []string{"git", "bash", "curl", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	root := t.TempDir()
	work := filepath.Join(root, "work")
	git(t, root, "init", "-q", "-b", "main", work)
	s := &releaseServer{releases: map[string]map[string][]byte{}, requests: map[string]int{}, commits: map[string]string{}, status: map[string]int{}}
	commit := func(msg string, tags ...string) {
		git(t, work, "commit", "-q", "--allow-empty", "-m", msg)
		for _, tag := range tags {
			if tag == "v1.2.3" {
				git(t, work, "tag", "-a", "-m", "release "+tag, tag)
			} else {
				git(t, work, "tag", tag)
			}
			s.commits[tag] = git(t, work, "rev-parse", tag+"^{commit}")
		}
	}
	commit("one", "v1.2.2")
	commit("two", "v1.2.3", "v1")
	commit("three", "v2.0.0")
	commit("four", "v1.2.4")
	commit("five", "v9.9.9")
	git(t, root, "clone", "-q", "--bare", work, filepath.Join(root, actionRepo+".git"))
	for tag, r := range releases {
		s.releases[tag] = r.files
	}

	execPath := git(t, root, "--exec-path")
	backend := &cgi.Handler{
		Path: filepath.Join(execPath, "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path]++
		code := s.status[r.URL.Path]
		s.mu.Unlock()
		if code != 0 {
			http.Error(w, http.StatusText(code), code)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/"+actionRepo+".git/") {
			backend.ServeHTTP(w, r)
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, "/"+actionRepo+"/releases/download/")
		tag, file, _ := strings.Cut(rest, "/")
		s.mu.Lock()
		data, found := s.releases[tag][file]
		s.mu.Unlock()
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// actionCopy puts the action where the runner puts a remote action: <runner>/_actions/<repo>/<ref>.
// full copies the whole module (what a source build needs); otherwise only action.yml and action/.
func actionCopy(t testing.TB, runnerDir, ref string, full bool) string {
	t.Helper()
	dst := filepath.Join(runnerDir, "_actions", filepath.FromSlash(actionRepo), ref)
	var files []string
	if full {
		out, err := exec.Command("git", "-C", "..", "ls-files", "-co", "--exclude-standard").Output()
		if err != nil {
			t.Skipf("not a git checkout: %v", err)
		}
		files = strings.Fields(string(out))
	} else {
		files = []string{"action.yml", "action/install.sh"}
	}
	for _, f := range files {
		src := filepath.Join("..", f)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// runAction runs action.yml at ref on a fresh runner (new temp, tool cache and workspace, the
// shared cache store) for a PostExecutionEnd whose hook prints firstHook and the binary's version.
func runAction(t testing.TB, srv *releaseServer, store, ref string, full bool, extraEnv ...string) *runnertest.Result {
	t.Helper()
	return runJob(t, srv, runnerSetup{store: store}, ref, full, extraEnv...)
}

// runnerSetup is what a job of the action finds besides the action itself.
type runnerSetup struct {
	store     string // the actions/cache store, which outlives jobs
	toolCache string // RUNNER_TOOL_CACHE: "" for a fresh one (a GitHub-hosted runner), else one that outlives jobs (a self-hosted runner)
	// afterStep, if set, runs after each step of the action: what else writes to the machine meanwhile.
	afterStep func(runnertest.Step)
	// inputs, if set, are the action's inputs instead of a PostExecutionEnd with a payload.
	inputs map[string]string
}

// runJob is runAction on the runner setup.
func runJob(t testing.TB, srv *releaseServer, setup runnerSetup, ref string, full bool, extraEnv ...string) *runnertest.Result {
	t.Helper()
	store := setup.store
	if runtime.GOOS == "windows" {
		t.Skip("the emulated runner runs bash with POSIX paths")
	}
	machine := t.TempDir()
	ws := filepath.Join(machine, "work", "repo")
	for _, d := range []string{filepath.Join(ws, ".autoagent"), filepath.Join(machine, "temp"), filepath.Join(machine, "tool"), filepath.Join(machine, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := `{"hooks": {"PostExecutionEnd": [{"name": "first", "command": "echo ` + firstHook + ` issue {{issueNumber}}; \"$AGENT_HOOKS_BIN\" version"}]}}`
	if err := os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	goroot := strings.TrimSpace(string(must(exec.Command("go", "env", "GOROOT").Output())))
	goVersion := strings.TrimSpace(string(must(exec.Command("go", "env", "GOVERSION").Output())))
	actionDir := actionCopy(t, machine, ref, full)
	toolCache := setup.toolCache
	if toolCache == "" {
		toolCache = filepath.Join(machine, "tool")
	}
	inputs := setup.inputs
	if inputs == nil {
		inputs = map[string]string{"event": "PostExecutionEnd", "payload": `{"issueNumber": 42}`}
	}
	job := &runnertest.Job{
		ActionDir: actionDir,
		Inputs:    inputs,
		GitHub: map[string]string{
			"server_url": srv.url, "action_repository": actionRepo, "action_ref": ref,
			"workspace": ws, "repository": "octo/hello", "token": fakeToken,
		},
		// The PATH of this machine without its Go: the action must set Go up itself to build.
		Env: append([]string{"PATH=" + pathWithout(filepath.Join(goroot, "bin")), "HOME=" + filepath.Join(machine, "home"),
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}, extraEnv...),
		OS: map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS], Arch: map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH],
		Temp: filepath.Join(machine, "temp"), ToolCache: toolCache,
		Secrets:   []string{fakeToken},
		AfterStep: setup.afterStep,
		Uses: map[string]runnertest.Uses{
			"actions/cache@v4":    runnertest.Cache(store),
			"actions/setup-go@v5": runnertest.SetupGo(goroot, goVersion),
		},
	}
	// A step that hangs ends before the test's deadline, so that its log is shown.
	ctx := context.Background()
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline.Add(-30*time.Second))
			defer cancel()
		}
	}
	res, err := job.Run(ctx)
	if err != nil {
		if res != nil {
			t.Logf("log:\n%s", res.Log())
		}
		t.Fatalf("emulating action.yml: %v", err)
	}
	t.Cleanup(func() { makeWritable(machine) })
	if res.Failed && t.Failed() {
		t.Logf("log:\n%s", res.Log())
	}
	if strings.Contains(res.Log(), fakeToken) {
		t.Errorf("the token is in the log:\n%s", res.Log())
	}
	return res
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func pathWithout(dir string) string {
	var keep []string
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		if filepath.Clean(p) != filepath.Clean(dir) {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// makeWritable lets t.TempDir remove a Go module cache (its directories are read-only).
func makeWritable(dir string) {
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}

// toFirstHook is the time from the action's first step to the hook's first line.
func toFirstHook(t testing.TB, res *runnertest.Result) time.Duration {
	t.Helper()
	l, ok := res.FirstLine(firstHook + " issue 42")
	if !ok {
		t.Fatalf("the hook did not run:\n%s", res.Log())
	}
	return l.Time.Sub(res.Start)
}

func outcomes(res *runnertest.Result) map[string]string {
	m := map[string]string{}
	for _, s := range res.Steps {
		m[s.ID] = s.Outcome
	}
	return m
}

func wantOutcomes(t *testing.T, res *runnertest.Result, want map[string]string) {
	t.Helper()
	got := outcomes(res)
	for id, w := range want {
		if got[id] != w {
			t.Errorf("step %s: %s, want %s (all: %v)\n%s", id, got[id], w, got, res.Log())
		}
	}
}

func TestActionDownloadsTheRelease(t *testing.T) {
	t.Parallel()
	good := newRelease(t, "1.2.3")
	tampered := newRelease(t, "1.2.4")
	for name := range tampered.files {
		if strings.HasSuffix(name, ".tar.gz") {
			tampered.files[name] = append(bytes.Clone(tampered.files[name]), 0) // one byte more than the checksum says
		}
	}
	srv := newReleaseServer(t, map[string]release{"v1.2.2": packRelease(t, "1.2.2", "agent-hooks"), "v1.2.3": good, "v2.0.0": newRelease(t, "2.0.0"), "v1.2.4": tampered})
	store := t.TempDir()
	downloaded := map[string]string{"release": "success", "download": "success", "build": "skipped", "gocache": "skipped", "run": "success"}

	t.Run("major tag", func(t *testing.T) {
		res := runAction(t, srv, store, "v1", false)
		wantOutcomes(t, res, downloaded)
		if res.Outputs["decision"] != "approve" || res.Step("release").Outputs["tag"] != "v1.2.3" {
			t.Errorf("outputs %v, release step %v", res.Outputs, res.Step("release").Outputs)
		}
		if !strings.Contains(res.Log(), "agent-hooks v1.2.3\n") {
			t.Errorf("the hook did not run release 1.2.3:\n%s", res.Log())
		}
		if n := srv.count(fmt.Sprintf("/%s/releases/download/v1.2.3/agent-hooks_%s_%s.tar.gz", actionRepo, runtime.GOOS, runtime.GOARCH)); n != 1 {
			t.Errorf("archive downloaded %d times", n)
		}
		wantShipper(t, res.Step("download").Outputs["path"])
		t.Logf("emulated download path: the first hook ran %v after the action's first step", toFirstHook(t, res))
	})

	t.Run("from the tool cache on the next job", func(t *testing.T) {
		// A self-hosted runner keeps its tool cache between jobs; only the checksums are fetched.
		tool := t.TempDir()
		runJob(t, srv, runnerSetup{store: store, toolCache: tool}, "v1", false)
		sums, archive := srv.count(releaseFile("v1.2.3", checksumsName)), srv.count(releaseFile("v1.2.3", archiveName))
		res := runJob(t, srv, runnerSetup{store: store, toolCache: tool}, "v1", false)
		wantOutcomes(t, res, downloaded)
		if n := srv.count(releaseFile("v1.2.3", archiveName)) - archive; n != 0 {
			t.Errorf("%d downloads of the archive with it in the tool cache", n)
		}
		if n := srv.count(releaseFile("v1.2.3", checksumsName)) - sums; n != 1 {
			t.Errorf("the checksums were fetched %d times, want once: the cache is checked against them on every run", n)
		}
		if !strings.Contains(res.Log(), "v1.2.3 from the cache") {
			t.Errorf("not run from the cache:\n%s", res.Log())
		}
		wantGenuine(t, res, "1.2.3")
		wantShipper(t, res.Step("download").Outputs["path"])
		t.Logf("emulated tool-cache path: the first hook ran %v after the action's first step", toFirstHook(t, res))
	})

	t.Run("exact tag", func(t *testing.T) {
		before := srv.count("/" + actionRepo + ".git/")
		res := runAction(t, srv, t.TempDir(), "v1.2.3", false)
		wantOutcomes(t, res, downloaded)
		if n := srv.count("/"+actionRepo+".git/") - before; n != 0 {
			t.Errorf("a release tag needs no tag listing; made %d git requests", n)
		}
		toFirstHook(t, res)
	})

	t.Run("commit of a release", func(t *testing.T) {
		res := runAction(t, srv, t.TempDir(), srv.commits["v1.2.3"], false)
		wantOutcomes(t, res, downloaded)
		if tag := res.Step("release").Outputs["tag"]; tag != "v1.2.3" {
			t.Errorf("commit %s resolved to %q", srv.commits["v1.2.3"], tag)
		}
		toFirstHook(t, res)
	})

	t.Run("archive without the shipper", func(t *testing.T) {
		res := runAction(t, srv, t.TempDir(), "v1.2.2", false)
		wantOutcomes(t, res, map[string]string{"release": "success", "download": "failure", "build": "skipped", "run": "skipped"})
		var said bool
		for _, a := range res.Annotations {
			said = said || a.Level == "error" && strings.Contains(a.Message, "agent-hooks-otel")
		}
		if !said {
			t.Errorf("no error naming agent-hooks-otel: %+v\n%s", res.Annotations, res.Log())
		}
	})

	t.Run("checksum mismatch", func(t *testing.T) {
		tampStore := t.TempDir()
		res := runAction(t, srv, tampStore, "v1.2.4", false)
		wantOutcomes(t, res, map[string]string{"release": "success", "download": "failure", "build": "skipped", "run": "skipped"})
		if !res.Failed {
			t.Error("the step passed")
		}
		if _, ran := res.FirstLine(firstHook); ran {
			t.Errorf("a hook ran with an unverified binary:\n%s", res.Log())
		}
		var said bool
		for _, a := range res.Annotations {
			said = said || a.Level == "error" && strings.Contains(a.Message, "checksum mismatch") && strings.Contains(a.Message, "not installed")
		}
		if !said {
			t.Errorf("no checksum mismatch error: %+v", res.Annotations)
		}
		if entries, _ := os.ReadDir(tampStore); len(entries) != 0 {
			t.Errorf("a failed job saved a cache: %v", entries)
		}
	})
}

const (
	checksumsName = "agent-hooks_checksums.txt"
	planted       = "PLANTED-PROGRAM-RAN"
)

// plantedProgram is what an attacker leaves for the action to run: a program that says so and
// succeeds, as one would that only pretends to gate.
var plantedProgram = []byte("#!/bin/sh\necho " + planted + " \"$0\" \"$@\"\n")

// releaseFile is the URL path of a release's file on the release server.
// TestActionSetsUp: without an event the action only sets agent-hooks up, for a later step of
// the job (an agent's, whose hooks run agent-hooks hook <agent>): the release checked as ever, its
// folder on the PATH of the later steps, its path as an output; the version input picks the
// release, and a version that is no release's fails the step before anything is fetched.
func TestActionSetsUp(t *testing.T) {
	t.Parallel()
	srv := newReleaseServer(t, map[string]release{"v1.2.2": newRelease(t, "1.2.2"), "v1.2.3": newRelease(t, "1.2.3")})
	for _, tc := range []struct {
		name, version, want string
	}{
		{"the action's own release", "", "1.2.3"},
		{"the version input", "v1.2.2", "1.2.2"},
		{"the version input without its v", "1.2.2", "1.2.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inputs := map[string]string{}
			if tc.version != "" {
				inputs["version"] = tc.version
			}
			res := runJob(t, srv, runnerSetup{store: t.TempDir(), inputs: inputs}, "v1", false)
			wantOutcomes(t, res, map[string]string{"release": "success", "download": "success", "path": "success", "run": "skipped"})
			bin := res.Outputs["path"]
			if bin == "" || len(res.Paths) != 1 || res.Paths[0] != filepath.Dir(bin) {
				t.Fatalf("path output %q, GITHUB_PATH %q", bin, res.Paths)
			}
			for _, program := range []string{"agent-hooks", "agent-hooks-full", "agent-hooks-otel"} {
				if _, err := os.Stat(filepath.Join(res.Paths[0], program)); err != nil {
					t.Errorf("%s is not on the later steps' PATH: %v", program, err)
				}
			}
			// What a later step runs as agent-hooks, found on PATH as it would be.
			later := exec.Command("sh", "-c", "agent-hooks version")
			later.Env = []string{"PATH=" + res.Paths[0] + string(os.PathListSeparator) + os.Getenv("PATH")}
			out, err := later.CombinedOutput()
			// (Every test release holds the same programs: the tag says which release was installed.)
			if err != nil || !strings.HasPrefix(string(out), "agent-hooks v") {
				t.Errorf("agent-hooks version on the later PATH: %v\n%s", err, out)
			}
			if tag := res.Step("release").Outputs["tag"]; tag != "v"+tc.want {
				t.Errorf("installed release %q, want v%s", tag, tc.want)
			}
			if res.Outputs["decision"] != "" {
				t.Errorf("no event was fired, yet decision = %q", res.Outputs["decision"])
			}
		})
	}
	t.Run("a version that is no release's", func(t *testing.T) {
		before := srv.count("/" + actionRepo + "/releases/download/")
		res := runJob(t, srv, runnerSetup{store: t.TempDir(), inputs: map[string]string{"version": "latest; rm -rf /"}}, "v1", false)
		if !res.Failed || res.Step("release").Outcome != "failure" {
			t.Fatalf("the step did not fail:\n%s", res.Log())
		}
		if !strings.Contains(res.Log(), `version: want a release such as v1.2.3, got \"latest; rm -rf /\"`) &&
			!strings.Contains(res.Log(), "version: want a release such as v1.2.3") {
			t.Errorf("no reason:\n%s", res.Log())
		}
		if n := srv.count("/"+actionRepo+"/releases/download/") - before; n != 0 {
			t.Errorf("%d downloads for a bad version", n)
		}
	})
}

func releaseFile(tag, name string) string {
	return "/" + actionRepo + "/releases/download/" + tag + "/" + name
}

// wantGenuine checks that the job ran release version's own agent-hooks, that nothing planted
// ran, and that the agent-hooks at the path the download step gave and the programs next to it
// are the release's, byte for byte.
func wantGenuine(t *testing.T, res *runnertest.Result, version string) {
	t.Helper()
	wantGenuineRun(t, res, version)
	bin := res.Step("download").Outputs["path"]
	for _, name := range programs {
		want, err := os.ReadFile(filepath.Join(releaseBinaries(t), name))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(filepath.Dir(bin), name)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("the %s next to %s is not the release's (%d bytes, %v)", name, bin, len(got), err)
		}
	}
}

// wantGenuineRun checks the log only: the release's agent-hooks ran the hook, nothing planted ran.
func wantGenuineRun(t *testing.T, res *runnertest.Result, version string) {
	t.Helper()
	if _, ran := res.FirstLine(planted); ran {
		t.Errorf("a planted program ran:\n%s", res.Log())
	}
	if !strings.Contains(res.Log(), "agent-hooks v"+version+"\n") {
		t.Errorf("the hook did not run release %s:\n%s", version, res.Log())
	}
}

// programs are the release's programs, as its archive holds them.
var programs = []string{"agent-hooks", "agent-hooks-full", "agent-hooks-otel"}

// plant leaves in dir what an attacker would for the action to run: the programs (those named in
// genuine are the release's own, the others planted: the lean agent-hooks genuine and only
// agent-hooks-full, which runs the action's command, or only the shipper planted), the marker of a
// complete install, and an archive of the release's name and shape holding them with a checksums
// file that vouches for it.
func plant(t *testing.T, dir string, genuine ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var packed []tarFile
	for _, name := range programs {
		data := plantedProgram
		if slices.Contains(genuine, name) {
			var err error
			if data, err = os.ReadFile(filepath.Join(releaseBinaries(t), name)); err != nil {
				t.Fatal(err)
			}
		}
		files[name] = data
		packed = append(packed, tarFile{name, data})
	}
	archive := tarGz(t, packed...)
	sum := sha256.Sum256(archive)
	files[".complete"] = []byte(hex.EncodeToString(sum[:]) + "\n")
	files[archiveName] = archive
	files[checksumsName] = []byte(hex.EncodeToString(sum[:]) + "  " + archiveName + "\n")
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestActionVerifiesTheCacheOnEveryRun: what a cache holds runs only once checked against the
// release's checksums, fetched afresh on every run, and what runs is the copy that was checked.
// The attacker is the gated agent in an earlier job, which wrote to the runner's tool cache (a
// self-hosted runner keeps it between jobs, and may share it between runners) or to the directory
// actions/cache saves at the end of its job.
func TestActionVerifiesTheCacheOnEveryRun(t *testing.T) {
	t.Parallel()
	good := newRelease(t, "1.2.3")
	srv := newReleaseServer(t, map[string]release{"v1.2.3": good})
	// links plants in another folder and links the cache's files to it.
	links := func(t *testing.T, dir string) {
		elsewhere := t.TempDir()
		plant(t, elsewhere)
		for _, name := range append([]string{".complete", archiveName, checksumsName}, programs...) {
			os.Remove(filepath.Join(dir, name))
			if err := os.Symlink(filepath.Join(elsewhere, name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}

	for _, tt := range []struct {
		name string
		// tamper writes to the release's folder in the tool cache, dir, after a job filled it.
		tamper func(t *testing.T, dir string)
		// during: the tampering happens in the next job, right after its download step.
		during bool
		// linked: the release's folder is a link to one the attacker filled; the action must
		// neither use nor write through it, and replaces it with a folder of its own.
		linked bool
	}{
		{name: "programs planted with an archive and checksums", tamper: func(t *testing.T, dir string) { plant(t, dir) }},
		{name: "only the full program planted", tamper: func(t *testing.T, dir string) { plant(t, dir, "agent-hooks", "agent-hooks-otel") }},
		{name: "only the shipper planted", tamper: func(t *testing.T, dir string) { plant(t, dir, "agent-hooks", "agent-hooks-full") }},
		{name: "links to planted files", tamper: links},
		{name: "the folder a link", linked: true},
		{name: "swapped after the check", during: true, tamper: func(t *testing.T, dir string) { plant(t, dir) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := t.TempDir()
			first := runJob(t, srv, runnerSetup{store: t.TempDir(), toolCache: tool}, "v1.2.3", false)
			wantGenuine(t, first, "1.2.3")
			dir := first.Step("release").Outputs["dir"]
			var elsewhere string
			switch {
			case tt.linked:
				elsewhere = t.TempDir()
				plant(t, elsewhere)
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(elsewhere, dir); err != nil {
					t.Fatal(err)
				}
			case !tt.during:
				tt.tamper(t, dir)
			}
			downloads := srv.count(releaseFile("v1.2.3", archiveName))
			setup := runnerSetup{store: t.TempDir(), toolCache: tool}
			if tt.during {
				setup.afterStep = func(st runnertest.Step) {
					if st.ID == "download" {
						tt.tamper(t, dir)
					}
				}
			}
			res := runJob(t, srv, setup, "v1.2.3", false)
			wantOutcomes(t, res, map[string]string{"download": "success", "run": "success"})
			wantGenuine(t, res, "1.2.3")
			n := srv.count(releaseFile("v1.2.3", archiveName)) - downloads
			if tt.during {
				if n != 0 {
					t.Errorf("the archive was downloaded %d times with a genuine one in the cache", n)
				}
				return
			}
			if n != 1 {
				t.Errorf("the archive was downloaded %d times, want once: what the cache held is not the release", n)
			}
			var said bool
			for _, a := range res.Annotations {
				said = said || a.Level == "warning" && strings.Contains(a.Message, "cache") && strings.Contains(a.Message, "afresh")
			}
			if !said {
				t.Errorf("no warning that the cache was discarded: %+v", res.Annotations)
			}
			if tt.linked {
				// Nothing written through the link: the attacker's folder is as planted.
				if b, err := os.ReadFile(filepath.Join(elsewhere, archiveName)); err != nil || bytes.Equal(b, good.files[archiveName]) {
					t.Errorf("the action wrote the release through a link in the tool cache (%v)", err)
				}
				if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
					t.Errorf("the link in the tool cache is still there: %v", err)
				}
			}
			// The cache holds the release again, for the next job, and no program.
			if b, err := os.ReadFile(filepath.Join(dir, archiveName)); err != nil || !bytes.Equal(b, good.files[archiveName]) {
				t.Errorf("the tool cache was not repaired: %v", err)
			}
			for _, name := range append([]string{".complete"}, programs...) {
				if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
					t.Errorf("the tool cache still holds %s", name)
				}
			}
		})
	}

	t.Run("actions/cache saved after the agent wrote to it", func(t *testing.T) {
		// GitHub-hosted runners: a fresh tool cache every job, one actions/cache store. The agent
		// writes to the release's folder after the action ran, before the job's end saves it.
		store := t.TempDir()
		var dir string
		res := runJob(t, srv, runnerSetup{store: store, afterStep: func(st runnertest.Step) {
			switch st.ID {
			case "release":
				dir = st.Outputs["dir"]
			case "run":
				plant(t, dir)
			}
		}}, "v1.2.3", false)
		wantGenuineRun(t, res, "1.2.3")
		res = runJob(t, srv, runnerSetup{store: store}, "v1.2.3", false)
		wantOutcomes(t, res, map[string]string{"download": "success", "run": "success"})
		wantGenuine(t, res, "1.2.3")
	})

	t.Run("a copy from the cache that fails", func(t *testing.T) {
		// The copy out of the tool cache fails after it wrote (a disk error, a file that changes
		// under cp): what it left is not a checked archive, whatever it holds. Here it holds the
		// planted archive whole, and cp says it failed.
		tool := t.TempDir()
		first := runJob(t, srv, runnerSetup{store: t.TempDir(), toolCache: tool}, "v1.2.3", false)
		wantGenuine(t, first, "1.2.3")
		plant(t, first.Step("release").Outputs["dir"])
		realCp, err := exec.LookPath("cp")
		if err != nil {
			t.Skip(err)
		}
		bin := t.TempDir()
		script := "#!/bin/sh\n\"" + realCp + "\" \"$@\" || exit\ncase \"$1\" in \"" + tool + "\"/*) exit 1 ;; esac\n"
		if err := os.WriteFile(filepath.Join(bin, "cp"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		goroot := strings.TrimSpace(string(must(exec.Command("go", "env", "GOROOT").Output())))
		downloads := srv.count(releaseFile("v1.2.3", archiveName))
		res := runJob(t, srv, runnerSetup{store: t.TempDir(), toolCache: tool}, "v1.2.3", false,
			"PATH="+bin+string(os.PathListSeparator)+pathWithout(filepath.Join(goroot, "bin")))
		wantOutcomes(t, res, map[string]string{"download": "success", "run": "success"})
		wantGenuine(t, res, "1.2.3")
		if n := srv.count(releaseFile("v1.2.3", archiveName)) - downloads; n != 1 {
			t.Errorf("the archive was downloaded %d times, want once: the copy from the cache failed", n)
		}
		var said bool
		for _, a := range res.Annotations {
			said = said || a.Level == "warning" && strings.Contains(a.Message, "cannot copy") && strings.Contains(a.Message, "afresh")
		}
		if !said {
			t.Errorf("no warning that the copy failed: %+v", res.Annotations)
		}
	})

	t.Run("a tool cache shared by runners of other users", func(t *testing.T) {
		// A self-hosted machine's runners may run as different users and share one tool cache:
		// the archive one leaves is for all of them to read (each checks it on every run).
		res := runJob(t, srv, runnerSetup{store: t.TempDir(), toolCache: t.TempDir()}, "v1.2.3", false)
		wantGenuine(t, res, "1.2.3")
		st, err := os.Stat(filepath.Join(res.Step("release").Outputs["dir"], archiveName))
		if err != nil {
			t.Fatalf("no archive in the tool cache: %v", err)
		}
		if perm := st.Mode().Perm(); perm&0o044 != 0o044 {
			t.Errorf("the cached archive has mode %v: other runners' users cannot read it", perm)
		}
	})

	t.Run("checksums out of reach", func(t *testing.T) {
		// The cache cannot be checked: nothing runs.
		tool := t.TempDir()
		wantGenuine(t, runJob(t, srv, runnerSetup{store: t.TempDir(), toolCache: tool}, "v1.2.3", false), "1.2.3")
		srv.answer(releaseFile("v1.2.3", checksumsName), http.StatusForbidden)
		defer srv.answer(releaseFile("v1.2.3", checksumsName), 0)
		res := runJob(t, srv, runnerSetup{store: t.TempDir(), toolCache: tool}, "v1.2.3", false)
		wantOutcomes(t, res, map[string]string{"download": "failure", "build": "skipped", "run": "skipped"})
		if _, ran := res.FirstLine(firstHook); ran {
			t.Errorf("a hook ran with an unverified binary:\n%s", res.Log())
		}
		var said bool
		for _, a := range res.Annotations {
			said = said || a.Level == "error" && strings.Contains(a.Message, checksumsName) && strings.Contains(a.Message, "403")
		}
		if !said {
			t.Errorf("no error naming the checksums: %+v", res.Annotations)
		}
	})
}

// TestActionDownloadsGoReleasersSnapshot checks the names: .ci/run builds a GoReleaser snapshot
// and sets AGENT_HOOKS_DIST to its dist/, whose archive and checksums the action must find.
func TestActionDownloadsGoReleasersSnapshot(t *testing.T) {
	dist := os.Getenv("AGENT_HOOKS_DIST")
	if dist == "" {
		t.Skip("AGENT_HOOKS_DIST is not set (.ci/run sets it after goreleaser release --snapshot)")
	}
	r := distRelease(t, dist)
	tag := "v" + r.version
	srv := newReleaseServer(t, map[string]release{tag: r})
	res := runAction(t, srv, t.TempDir(), tag, false)
	wantOutcomes(t, res, map[string]string{"download": "success", "build": "skipped", "run": "success"})
	if !strings.Contains(res.Log(), "agent-hooks "+tag+"\n") {
		t.Errorf("the hook did not run the snapshot %s:\n%s", tag, res.Log())
	}
	wantShipper(t, res.Step("download").Outputs["path"])
}

// TestActionBuildsFromSourceWithoutARelease: a branch ref has no release, so the action sets up
// Go and builds its own source, with a build cache keyed in a step (not hashFiles, which sees only
// the workspace) that a later job restores; a release tag whose release is not published yet
// builds from source too. The job cross-compiles a project of its own (GOOS, GOARCH, GOFLAGS for
// every step): the binary must still be for the runner.
func TestActionBuildsFromSourceWithoutARelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agent-hooks with an empty build cache")
	}
	t.Parallel()
	srv := newReleaseServer(t, nil)
	store := t.TempDir()
	modcache := strings.TrimSpace(string(must(exec.Command("go", "env", "GOMODCACHE").Output())))
	jobEnv := []string{
		// Modules from this machine's module cache, as a proxy: tests reach only 127.0.0.1.
		"GOPROXY=file://" + filepath.ToSlash(filepath.Join(modcache, "cache", "download")), "GOSUMDB=off", "GOTOOLCHAIN=local",
		"GOOS=windows", "GOARCH=arm64", "GOFLAGS=-mod=vendor", "CGO_ENABLED=1",
	}
	built := map[string]string{"release": "success", "download": "skipped", "gocache": "success", "build": "success", "run": "success"}

	res := runAction(t, srv, store, "main", true, jobEnv...)
	wantOutcomes(t, res, built)
	if res.Outputs["decision"] != "approve" {
		t.Errorf("outputs %v", res.Outputs)
	}
	// Static, whatever the job says: a binary linked with the C library pays for the dynamic
	// loader on every start, and agent hosts start agent-hooks on every tool call.
	if info, err := buildinfo.ReadFile(res.Step("build").Outputs["path"]); err != nil {
		t.Errorf("the built binary: %v", err)
	} else if cgo := buildSetting(info, "CGO_ENABLED"); cgo != "0" {
		t.Errorf("the action builds agent-hooks with CGO_ENABLED=%q, want 0", cgo)
	}
	wantShipper(t, res.Step("build").Outputs["path"])
	key := res.Step("gocache").Outputs["key"]
	if !strings.HasPrefix(key, "agent-hooks-go-") || len(key) < len("agent-hooks-go-Linux-X64-go1-")+33 {
		t.Errorf("build cache key %q is not keyed by go.sum and the source", key)
	}
	t.Logf("emulated source build, empty cache: the first hook ran %v after the action's first step", toFirstHook(t, res))

	// The next runner restores the build cache; a tag without a published release builds too.
	res = runAction(t, srv, store, "v9.9.9", true, jobEnv...)
	wantOutcomes(t, res, map[string]string{"release": "success", "download": "success", "build": "success", "run": "success"})
	var restored string
	for _, s := range res.Steps {
		if k := s.Outputs["cache-matched-key"]; strings.HasPrefix(k, "agent-hooks-go-") {
			restored = k
		}
	}
	if restored == "" {
		t.Errorf("the Go build cache was not restored:\n%s", res.Log())
	}
	if !strings.Contains(res.Log(), "release v9.9.9 has no agent-hooks_checksums.txt") {
		t.Errorf("no notice that the release is missing:\n%s", res.Log())
	}
	t.Logf("emulated source build, restored cache: the first hook ran %v after the action's first step", toFirstHook(t, res))
}

// buildSetting is the value of one of the binary's build settings ("" when not recorded).
func buildSetting(info *buildinfo.BuildInfo, key string) string {
	for _, st := range info.Settings {
		if st.Key == key {
			return st.Value
		}
	}
	return ""
}

// BenchmarkActionFirstHook measures, on the emulated runner, the time from the action's first
// step to its hook's first line of output, per path: the release downloaded (a GitHub-hosted
// runner: a fresh tool cache), the release from the tool cache a self-hosted runner keeps (checked
// against the checksums, fetched afresh, on every run), a source build with an empty Go cache,
// and one with the cache restored. Reported as
// ms-to-first-hook (the run's ns/op includes the emulation's own setup). Run it with
// -benchtime=1x: a source build with an empty cache compiles everything.
//
//	go test ./action/ -run '^$' -bench ActionFirstHook -benchtime=1x
func BenchmarkActionFirstHook(b *testing.B) {
	srv := newReleaseServer(b, map[string]release{"v1.2.3": newRelease(b, "1.2.3")})
	modcache := strings.TrimSpace(string(must(exec.Command("go", "env", "GOMODCACHE").Output())))
	sourceEnv := []string{"GOPROXY=file://" + filepath.ToSlash(filepath.Join(modcache, "cache", "download")), "GOSUMDB=off", "GOTOOLCHAIN=local"}
	measure := func(b *testing.B, setup func() runnerSetup, ref string, full bool, env ...string) {
		var total time.Duration
		n := 0
		for b.Loop() {
			res := runJob(b, srv, setup(), ref, full, env...)
			total += toFirstHook(b, res)
			n++
		}
		b.ReportMetric(float64(total.Milliseconds())/float64(n), "ms-to-first-hook")
	}
	fresh := func() runnerSetup { return runnerSetup{store: b.TempDir()} }
	b.Run("download", func(b *testing.B) { measure(b, fresh, "v1", false) })
	b.Run("tool-cache", func(b *testing.B) {
		kept := runnerSetup{store: b.TempDir(), toolCache: b.TempDir()}
		runJob(b, srv, kept, "v1", false)
		measure(b, func() runnerSetup { return kept }, "v1", false)
	})
	b.Run("source-empty-cache", func(b *testing.B) { measure(b, fresh, "main", true, sourceEnv...) })
	b.Run("source-restored-cache", func(b *testing.B) {
		kept := runnerSetup{store: b.TempDir()}
		runJob(b, srv, kept, "main", true, sourceEnv...)
		measure(b, func() runnerSetup { return kept }, "main", true, sourceEnv...)
	})
}
