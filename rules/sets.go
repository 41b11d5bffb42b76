package rules

import (
	"embed"
	"path"
	"strings"
)

//go:embed sets/*.json
var setFiles embed.FS

// Set is a built-in rule set a configuration includes by name ("ruleSets": ["secrets"]): rules in
// the "rules" syntax, each named "<set>/<rule>".
type Set struct {
	Name  string
	Rules []byte
}

// Sets are the built-in rule sets: "secrets" (dotenv files, private keys, the user's credential
// stores), "destructive" (deleting, re-moding or destroying files outside the workspace,
// formatting disks, writing devices) and "git-safety" (skipping the repository's hooks, force
// pushes, deleting remote refs).
func Sets() []Set {
	entries, err := setFiles.ReadDir("sets")
	if err != nil {
		panic(err) // embedded at build time
	}
	out := make([]Set, 0, len(entries))
	for _, e := range entries {
		b, err := setFiles.ReadFile(path.Join("sets", e.Name()))
		if err != nil {
			panic(err)
		}
		out = append(out, Set{Name: strings.TrimSuffix(e.Name(), ".json"), Rules: b})
	}
	return out
}
