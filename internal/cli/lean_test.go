package cli

import (
	"reflect"
	"strconv"
	"testing"
	"time"
)

// TestLeanCommandLines: the lean program runs a command line only when it reads it exactly as the
// full program's flag parser does; any other it hands over, for the full program to run or to
// say what is wrong with it.
func TestLeanCommandLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		lean bool
	}{
		{[]string{"hook", "claude"}, true},
		{[]string{"hook", "claude", "--timeout", "60", "--event=preToolUse"}, true},
		{[]string{"hook", "--timeout=60", "claude"}, true},
		{[]string{"run", "Stop", "--payload", "-", "--data", "a=1", "--data=b=2", "--json"}, true},
		{[]string{"version"}, true},
		{[]string{"version", "--json"}, true},
		{[]string{"--version"}, true},
		{[]string{"-v"}, true},
		{nil, false},
		{[]string{"hook"}, false},
		{[]string{"hook", "claude", "codex"}, false},
		{[]string{"hook", "claude", "-h"}, false},
		{[]string{"hook", "claude", "--help"}, false},
		{[]string{"hook", "claude", "--timeout"}, false},
		{[]string{"hook", "claude", "--timeout", "--event", "x"}, false},
		{[]string{"hook", "claude", "--verbose"}, false},
		{[]string{"hook", "claude", "--", "x"}, false},
		{[]string{"run", "Stop", "--json=false"}, false},
		{[]string{"version", "extra"}, false},
		{[]string{"session", "list"}, false},
		{[]string{"--version", "x"}, false},
		{[]string{"help"}, false},
	} {
		cmd, why := leanCommand(tc.args)
		if (cmd != nil) != tc.lean {
			t.Errorf("%q: lean %v, want %v (%v)", tc.args, cmd != nil, tc.lean, why)
		}
		if cmd == nil && why == nil {
			t.Errorf("%q: handed over without a reason", tc.args)
		}
	}
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	var f RunFlags
	pos, ok := parseFlags([]string{"--payload", "-", "Stop", "--data", "a=1", "--data=b=c=d", "--config=", "--json"},
		map[string]*string{"payload": &f.Payload, "config": &f.Config}, map[string]*[]string{"data": &f.Data}, map[string]*bool{"json": &f.JSON})
	want := RunFlags{Payload: "-", Data: []string{"a=1", "b=c=d"}, JSON: true}
	if !ok || !reflect.DeepEqual(pos, []string{"Stop"}) || !reflect.DeepEqual(f, want) {
		t.Errorf("got %q %v %+v, want [Stop] %+v", pos, ok, f, want)
	}
}

// TestTakeHandOff: the full program handed a command counts the agent's time from the lean
// program's start, hides the hand-off from the hooks' environment, and refuses a command from a
// lean program of another release.
func TestTakeHandOff(t *testing.T) {
	t.Parallel()
	start := time.Now()
	earlier := start.Add(-300 * time.Millisecond)
	for _, tc := range []struct {
		version string
		problem bool
	}{{"v1.2.3", false}, {"v1.2.2", true}} {
		env := map[string]string{envHandOffStart: strconv.FormatInt(earlier.UnixNano(), 10), envHandOffVersion: tc.version}
		a := &App{
			Getenv:  func(k string) string { return env[k] },
			Environ: []string{"HOME=/h", envHandOffStart + "=" + env[envHandOffStart], envHandOffVersion + "=" + tc.version},
			Start:   start, Version: VersionInfo{Version: "v1.2.3"},
		}
		a.takeHandOff()
		if !a.Start.Equal(time.Unix(0, earlier.UnixNano())) {
			t.Errorf("%s: start %v, want the lean program's %v", tc.version, a.Start, earlier)
		}
		if !reflect.DeepEqual(a.Environ, []string{"HOME=/h"}) {
			t.Errorf("%s: the hooks' environment is %q", tc.version, a.Environ)
		}
		if (a.HandOffProblem != nil) != tc.problem {
			t.Errorf("%s: problem %v, want %v", tc.version, a.HandOffProblem, tc.problem)
		}
	}
}
