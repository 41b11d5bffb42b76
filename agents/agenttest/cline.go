package agenttest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// clineEnv keeps Cline on 127.0.0.1: its telemetry and feature-flag calls go to a proxy on a
// closed loopback port (the opt-out in its settings, written by Setup, stops the rest), and its
// hub daemon listens on a port of the run's own, so that runs side by side do not share one.
func (r *Run) clineEnv() []string {
	if r.hubPort == 0 {
		r.hubPort = freePort()
	}
	return []string{"TERM=dumb",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost",
		"CLINE_HUB_PORT=" + strconv.Itoa(r.hubPort),
	}
}

// freePort is a TCP port free on 127.0.0.1 just now.
func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Setup prepares what the agent needs before its run: for Cline, its telemetry opt-out and its
// provider (the fake, as an OpenAI-compatible API), stored in Home by `cline auth`; for Droid,
// its settings file of the run (droidSettings).
func (r *Run) Setup(ctx context.Context) error {
	if r.Agent == Droid {
		return r.writeDroidSettings()
	}
	if r.Agent != Cline {
		return nil
	}
	settings := filepath.Join(r.Home, ".cline", "data", "settings")
	if err := os.MkdirAll(settings, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(settings, "global-settings.json"), []byte(`{"telemetryOptOut": true, "autoUpdateEnabled": false}`+"\n"), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, r.Bin, "auth", "-p", "openai-compatible", "-k", fakeKey,
		"-m", defaultString(r.Model, DefaultClineModel), "-b", r.Server.URL)
	cmd.Dir = r.Dir
	cmd.Env = append([]string{"HOME=" + r.Home, "PATH=" + r.Path}, r.clineEnv()...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cline auth: %w: %s", err, out.Bytes())
	}
	return nil
}

// Cleanup ends what the agent left running after its run: the hub daemon every Cline run
// starts, detached, which would outlive the test (it is found by its command line, which names
// the run's directory and hub port).
func (r *Run) Cleanup() {
	if r.Agent != Cline || r.hubPort == 0 {
		return
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if !slices.Contains(args, "--cline-hub-daemon") || !follows(args, "--cwd", r.Dir) || !follows(args, "--port", strconv.Itoa(r.hubPort)) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			if proc, err := os.FindProcess(pid); err == nil {
				_ = proc.Signal(syscall.SIGTERM) // /proc is Linux's: nothing gets here elsewhere
			}
		}
	}
}

// follows reports whether value follows flag in args.
func follows(args []string, flag, value string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag && args[i+1] == value {
			return true
		}
	}
	return false
}
