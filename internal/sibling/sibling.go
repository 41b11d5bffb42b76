// Package sibling finds one of agent-hooks' programs the way each finds the others: installed
// next to the running executable (every archive, package and the Action put them together),
// else on PATH.
package sibling

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Find is the path of program name next to executable, else on PATH; "" when neither has it.
func Find(executable, name string) string { return find(executable, name, runtime.GOOS) }

// file is name's file name on goos: with .exe on Windows, where the release and go install put
// it so (exec.LookPath adds the suffix itself; a sibling's path must have it).
func file(name, goos string) string {
	if goos == "windows" {
		return name + ".exe"
	}
	return name
}

func find(executable, name, goos string) string {
	if executable != "" {
		p := filepath.Join(filepath.Dir(executable), file(name, goos))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}
