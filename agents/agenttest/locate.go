package agenttest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Agent is an agent CLI the harness can run.
type Agent string

// The agents.
const (
	Claude Agent = "claude" // Claude Code, @anthropic-ai/claude-code
	Codex  Agent = "codex"  // Codex CLI, @openai/codex
	// Copilot is GitHub Copilot CLI, @github/copilot.
	Copilot Agent = "copilot"
	// Cline is the Cline CLI, cline.
	Cline Agent = "cline"
	// Gemini is Gemini CLI, @google/gemini-cli (a node script: node must be on PATH).
	Gemini Agent = "gemini"
	// OpenCode is opencode-ai, whose native binary is its platform package's (opencode-ai's own
	// bin is a stub until its install script copies the binary over it).
	OpenCode Agent = "opencode"
	// Droid is Factory Droid, droid (its platform package @factory/cli-<os>-<arch> holds the
	// binary; the package's bin is a node launcher of it).
	Droid Agent = "droid"
)

// Agents lists them all.
var Agents = []Agent{Claude, Codex, Copilot, Cline, Gemini, OpenCode, Droid}

// known reports whether a is an agent the harness runs.
func known(a Agent) bool {
	for _, x := range Agents {
		if x == a {
			return true
		}
	}
	return false
}

// RequireEnv is the variable that, set to 1 (as .ci/run does), turns a missing agent CLI from a
// skipped test into a failed one, so that a broken install cannot pass CI with no end-to-end test.
const RequireEnv = "AGENT_HOOKS_REQUIRE_AGENTS"

// EnvVar is the variable that names the agent's binary explicitly: AGENT_HOOKS_CLAUDE,
// AGENT_HOOKS_CODEX.
func (a Agent) EnvVar() string { return "AGENT_HOOKS_" + strings.ToUpper(string(a)) }

// InstallHint tells a developer how to get the agent's CLI.
const InstallHint = "npm install --prefix .ci/agents --ignore-scripts --no-save"

// NotFoundError is an agent CLI that is not installed.
type NotFoundError struct {
	Agent  Agent
	Looked []string // where it was looked for
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s CLI not found (looked in %s); run %q or set %s", e.Agent, strings.Join(e.Looked, ", "), InstallHint, e.Agent.EnvVar())
}

// Locate finds the agent's binary: $AGENT_HOOKS_<AGENT> when set, else the platform binary that
// `npm install --prefix .ci/agents` installed under root (the repository; the platform packages hold
// the real binaries, even with --ignore-scripts), else the agent on $PATH. getenv reads the
// environment.
func Locate(a Agent, getenv func(string) string, root string) (string, error) {
	if p := getenv(a.EnvVar()); p != "" {
		if err := executable(a, p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", a.EnvVar(), p, err)
		}
		return p, nil
	}
	looked := []string{"$" + a.EnvVar()}
	if root != "" {
		nm := filepath.Join(root, ".ci", "agents", "node_modules")
		for _, p := range platformBinaries(a, nm, runtime.GOOS, runtime.GOARCH) {
			if executable(a, p) == nil {
				return p, nil
			}
		}
		looked = append(looked, nm)
	}
	looked = append(looked, "$PATH")
	if path := getenv("PATH"); path != "" {
		for _, dir := range filepath.SplitList(path) {
			p := filepath.Join(dir, string(a))
			if executable(a, p) == nil {
				return p, nil
			}
		}
	}
	return "", &NotFoundError{Agent: a, Looked: looked}
}

// stubSize bounds the size of the shell stub npm links as .bin/claude (.bin/opencode) when the
// install scripts did not run: the real binaries are hundreds of megabytes.
const stubSize = 1 << 20

// executable checks that p is a regular executable file that is not Claude's or OpenCode's
// install stub.
func executable(a Agent, p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	if (a == Claude || a == OpenCode) && fi.Size() < stubSize {
		return fmt.Errorf("%s is npm's stub, not the %s CLI (its install script did not run)", p, a)
	}
	return nil
}

// platformBinaries are where the agent's platform package puts its native binary under a
// node_modules folder, most likely first.
func platformBinaries(a Agent, nm, goos, goarch string) []string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[goarch]
	if arch == "" {
		return nil
	}
	switch a {
	case Claude:
		var out []string
		for _, suffix := range []string{"", "-musl"} {
			out = append(out, filepath.Join(nm, "@anthropic-ai", "claude-code-"+goos+"-"+arch+suffix, "claude"))
		}
		return out
	case Codex:
		cpu := map[string]string{"x64": "x86_64", "arm64": "aarch64"}[arch]
		triple := map[string]string{"linux": cpu + "-unknown-linux-musl", "darwin": cpu + "-apple-darwin"}[goos]
		if triple == "" {
			return nil
		}
		return []string{filepath.Join(nm, "@openai", "codex-"+goos+"-"+arch, "vendor", triple, "bin", "codex")}
	case Copilot:
		return []string{filepath.Join(nm, "@github", "copilot-"+goos+"-"+arch, "copilot")}
	case Cline:
		return []string{filepath.Join(nm, "@cline", "cli-"+goos+"-"+arch, "bin", "cline")}
	case Gemini:
		return []string{filepath.Join(nm, "@google", "gemini-cli", "bundle", "gemini.js")}
	case OpenCode:
		var out []string
		for _, suffix := range []string{"", "-baseline", "-musl", "-baseline-musl"} {
			out = append(out, filepath.Join(nm, "opencode-"+goos+"-"+arch+suffix, "bin", "opencode"))
		}
		return out
	case Droid:
		var out []string
		for _, suffix := range []string{"", "-baseline"} {
			out = append(out, filepath.Join(nm, "@factory", "cli-"+goos+"-"+arch+suffix, "bin", "droid"))
		}
		return out
	}
	return nil
}

// ModuleRoot is the nearest directory at or above dir holding go.mod: the repository, where
// .ci/agents lives.
func ModuleRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

var versions sync.Map // binary path -> version line (string) or error

// Version is the first line of `bin --version` (e.g. "2.1.197 (Claude Code)", "codex-cli
// 0.169.0", "0.61.0"), asked once per binary and process, in an empty temporary HOME with PATH path (the
// npm launchers need node).
func Version(bin, path string) (string, error) {
	if v, ok := versions.Load(bin); ok {
		if err, isErr := v.(error); isErr {
			return "", err
		}
		return v.(string), nil
	}
	v, err := version(bin, path)
	if err != nil {
		versions.Store(bin, err)
		return "", err
	}
	versions.Store(bin, v)
	return v, nil
}

func version(bin, path string) (string, error) {
	home, err := os.MkdirTemp("", "agenttest-version-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"HOME=" + home, "PATH=" + path, "DISABLE_AUTOUPDATER=1", "CODEX_HOME=" + filepath.Join(home, ".codex"), "GEMINI_CLI_NO_RELAUNCH=true"}
	cmd.Dir = home
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%s --version: %w: %s", bin, err, ee.Stderr)
		}
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line, nil
}
