package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHelpEnvironmentNamesEveryVariable: every variable the program reads by name (outside tests
// and the test harnesses) is in `agent-hooks help environment`.
func TestHelpEnvironmentNamesEveryVariable(t *testing.T) {
	var help bytes.Buffer
	if err := printEnvironment(&help); err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`(?:getenv|Getenv|LookupEnv)\("([A-Z][A-Z0-9_]*)"\)`)
	// Read by agent-hooks but not its interface: the process's own search path, Go's runtime,
	// git's configuration switches (set for the git CLI agent-hooks starts), test hooks.
	internal := regexp.MustCompile(`^(PATH|GODEBUG|GORACE|WORK|GIT_CONFIG_.*|GIT_ATTR_NOSYSTEM|INPUT_.*|.*_TEST_.*|AGENT_HOOKS_(TEST|REQUIRE|DIST|BENCH|PARALLEL)_?.*)$`)
	root := filepath.Join("..", "..")
	seen := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules", ".ci", "agenttest", "githubtest", "runnertest", "gittest", "hooktest", "seedtest", "bench":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range read.FindAllSubmatch(src, -1) {
			seen[string(m[1])] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Families written as PREFIX_* cover their members.
	var families []string
	for _, f := range regexp.MustCompile(`\b([A-Z]+_)\*`).FindAllStringSubmatch(help.String(), -1) {
		families = append(families, f[1])
	}
	for name, path := range seen {
		if internal.MatchString(name) {
			continue
		}
		covered := false
		for _, f := range families {
			covered = covered || strings.HasPrefix(name, f)
		}
		if !covered && !strings.Contains(help.String(), name) {
			t.Errorf("%s reads %s, which agent-hooks help environment does not name", path, name)
		}
	}
}
