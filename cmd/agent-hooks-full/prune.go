package main

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/sessions"
	"github.com/spf13/cobra"
)

func (a *app) newSessionPruneCmd() *cobra.Command {
	var olderThan string
	var dry, asJSON bool
	cmd := &cobra.Command{
		Use:   "prune --older-than DURATION",
		Short: "Remove the sessions that ended long ago",
		Long: `Remove the sessions that ended more than --older-than ago (a Go duration, or days: 30d):
their record, audit trail, noted head, the formats' per-session state, and the entry that maps
their agent's session id to them. An active session is never removed, nor the current one, nor
one a process is firing an event in, nor one still to push to a remote; those are reported as
kept. An active session idle past "sessions": {"idleEnd"} is ended first (as session list ends it),
and pruned if its last event is old enough. A session that has no end time ended at its last
activity.

--dry-run removes nothing and says what would be removed. Each session is decided again and
removed under the sessions folder's lock, from its record as it is then: one resumed, made
current or firing an event meanwhile is kept.`,
		Example: `  agent-hooks session prune --older-than 30d --dry-run
  agent-hooks session prune --older-than 720h
  agent-hooks session prune --older-than 7d --json | jq -r '.removed[].id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("older-than") {
				return errors.New("--older-than: say how long ago a session must have ended to be removed (e.g. 30d)")
			}
			age, err := parseAge(olderThan)
			if err != nil {
				return fmt.Errorf("--older-than: %w", err)
			}
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			res, err := r.PruneSessions(age, dry)
			if res != nil {
				a.reportProblems(res.Problems)
				a.reportProblems(res.Failed)
			}
			if err != nil {
				return err
			}
			if err := a.printPruned(res, dry, asJSON, olderThan); err != nil {
				return err
			}
			if len(res.Failed) > 0 {
				return &cli.SilentError{Code: cli.ExitFailure} // each failure was said on stderr
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&olderThan, "older-than", "", "remove the sessions that ended longer ago than this (30d, 12h, 90m)")
	fl.BoolVar(&dry, "dry-run", false, "remove nothing; print what would be removed")
	fl.BoolVar(&asJSON, "json", false, `print {"dryRun", "removed": [{"id", "status", "ended", "files"}], "kept": [{"id", "reason"}], "endedIdle"}`)
	return cmd
}

// printPruned prints what prune removed (or, dry, would remove), ended and kept; --json: one
// object.
func (a *app) printPruned(res *sessions.PruneResult, dry, asJSON bool, olderThan string) error {
	removed, kept, ended := res.Removed, res.Kept, res.EndedIdle
	if asJSON {
		doc := struct {
			DryRun    bool                 `json:"dryRun"`
			Removed   []sessions.Pruned    `json:"removed"`
			Kept      []sessions.PruneKept `json:"kept"`
			EndedIdle []string             `json:"endedIdle"`
		}{dry, removed, kept, ended}
		if doc.Removed == nil {
			doc.Removed = []sessions.Pruned{}
		}
		if doc.Kept == nil {
			doc.Kept = []sessions.PruneKept{}
		}
		if doc.EndedIdle == nil {
			doc.EndedIdle = []string{}
		}
		return cli.WriteJSON(a.Stdout, doc)
	}
	w := bufio.NewWriter(a.Stdout)
	verb, endVerb := "removed", "ended as idle"
	if dry {
		verb, endVerb = "would remove", "would end as idle"
	}
	for _, id := range ended {
		fmt.Fprintf(w, "%s %s\n", endVerb, id)
	}
	for _, p := range removed {
		fmt.Fprintf(w, "%s %s (%s, ended %s, %d file(s))\n", verb, p.ID, p.Status, sessTime(p.Ended), len(p.Files))
	}
	for _, k := range kept {
		fmt.Fprintf(w, "kept %s: %s\n", k.ID, k.Reason)
	}
	fmt.Fprintf(w, "%s %d session(s) that ended more than %s ago\n", verb, len(removed), olderThan)
	return w.Flush()
}

// parseAge reads a duration as Go writes them (720h, 90m) or a number of days (30d).
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 || n > 100000 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (30d, 720h, 90m)", s)
	}
	return d, nil
}
