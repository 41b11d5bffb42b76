// Command agent-hooks runs the lifecycle hooks of autonomous coding agents. It is the lean
// program agents start on every tool call: it runs `hook <agent>`, `run <event>` and `version`
// itself and hands everything else to agent-hooks-full, installed beside it (internal/cli).
package main

import (
	"os"

	"github.com/autoagent/agent-hooks/internal/cli"
)

// Stamped by the release build (.goreleaser.yaml): see cli.Stamp.
var version, commit, date string

func main() { os.Exit(cli.RunLean(cli.Stamp{Version: version, Commit: commit, Date: date})) }
