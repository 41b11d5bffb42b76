package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/notify/webhooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// completionScan is how many of the newest sessions a completion of session ids offers.
const completionScan = 100

// registerCompletions gives the commands' arguments and flags their values for shell completion
// (`agent-hooks completion bash|zsh|fish|powershell`): event names with their aliases, session
// ids, approval ids, webhook names and formats, --status values. Files and directories complete
// where a flag takes one.
func (a *app) registerCompletions(root *cobra.Command) {
	cmd := func(path string) *cobra.Command {
		c, rest, err := root.Find(strings.Fields(path))
		if err != nil || len(rest) > 0 {
			panic(fmt.Sprintf("completion for %q: no such command", path)) // a programming error, caught by every test
		}
		return c
	}
	args := func(path string, f cobra.CompletionFunc) { cmd(path).ValidArgsFunction = f }
	flagOn := func(c *cobra.Command, name string, f cobra.CompletionFunc) {
		if err := c.RegisterFlagCompletionFunc(name, f); err != nil {
			panic(fmt.Sprintf("completion for %s --%s: %v", c.CommandPath(), name, err))
		}
	}
	flag := func(path, name string, f cobra.CompletionFunc) { flagOn(cmd(path), name, f) }

	args("run", firstArg(a.completeEvents))
	flag("run", "session", a.completeSessions(nil))
	flag("run", "payload", fileExt("json"))
	flag("run", "config", fileExt("json"))

	active := onlyStatus(sessions.StatusActive)
	args("session end", firstArg(a.completeSessions(active)))
	flag("session end", "session", a.completeSessions(active))
	flag("session end", "status", fixedValues(
		cobra.CompletionWithDesc(string(sessions.StatusCompleted), "the work is done"),
		cobra.CompletionWithDesc(string(sessions.StatusInterrupted), "stopped; session resume carries it on"),
		cobra.CompletionWithDesc(string(sessions.StatusFailed), "the run failed")))
	args("session show", firstArg(a.completeSessions(nil)))
	args("session resume", firstArg(a.completeSessions(onlyStatus(sessions.StatusInterrupted, sessions.StatusActive))))

	args("approvals show", firstArg(a.completeApprovals(false)))
	args("approvals approve", firstArg(a.completeApprovals(true)))
	args("approvals reject", firstArg(a.completeApprovals(true)))

	args("notify setup", firstArg(fixedValues(webhooks.Formats()...)))
	flag("notify setup", "events", a.completeEventList)
	args("notify remove", a.completeWebhooks)
	args("notify test", a.completeWebhooks)
	flag("notify test", "event", a.completeEvents)

	args("config set-auto-commit", firstArg(fixedValues("true", "false")))
	args("config set-auto-push", firstArg(fixedValues("true", "false")))

	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("workspace") != nil {
			flagOn(c, "workspace", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return nil, cobra.ShellCompDirectiveFilterDirs
			})
		}
		if c.Flags().Lookup("loop") != nil {
			flagOn(c, "loop", fileExt("yaml", "yml"))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// firstArg offers f's values for the first positional argument only.
func firstArg(f cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, have []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(have) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return f(cmd, have, toComplete)
	}
}

// fileExt completes the names of files with one of the extensions (and directories).
func fileExt(ext ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return ext, cobra.ShellCompDirectiveFilterFileExt
	}
}

// fixedValues completes from a list of values (cobra.CompletionWithDesc adds a description).
func fixedValues(values ...cobra.Completion) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// eventCompletions are the canonical events, their aliases and the workspace's custom events,
// each with what it is. A configuration that does not load still completes the built-in names.
func (a *app) eventCompletions(cmd *cobra.Command) []cobra.Completion {
	var out []cobra.Completion
	for _, ev := range hooks.CanonicalEvents() {
		desc := "cannot block"
		if hooks.CanBlock(ev) {
			desc = "can block"
		}
		out = append(out, cobra.CompletionWithDesc(ev, desc))
		for _, alias := range hooks.Aliases(ev) {
			out = append(out, cobra.CompletionWithDesc(alias, "alias of "+ev))
		}
	}
	workspace, loop := "", ""
	if f := cmd.Flags().Lookup("workspace"); f != nil {
		workspace = f.Value.String()
	}
	if f := cmd.Flags().Lookup("loop"); f != nil {
		loop = f.Value.String()
	}
	if r, err := a.newRunner(); err == nil {
		if env, err := r.LoadEnv(workspace, loop); err == nil {
			if cfg, err := hooks.Load(a.Registry(), env); err == nil {
				for _, ev := range cfg.CustomEvents {
					out = append(out, cobra.CompletionWithDesc(ev, "custom event"))
				}
			}
		}
	}
	return out
}

// completeEvents completes an event name (the argument of run, notify test --event).
func (a *app) completeEvents(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return a.eventCompletions(cmd), cobra.ShellCompDirectiveNoFileComp
}

// completeEventList completes the last name of a comma-separated list of events (--events).
func (a *app) completeEventList(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	prefix := ""
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		prefix = toComplete[:i+1]
	}
	var out []cobra.Completion
	for _, c := range a.eventCompletions(cmd) {
		out = append(out, prefix+c)
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// onlyStatus keeps the sessions of the given statuses.
func onlyStatus(statuses ...sessions.Status) func(*sessions.Session) bool {
	return func(s *sessions.Session) bool { return slices.Contains(statuses, s.Status) }
}

// completeSessions completes a session id from the newest sessions that keep satisfies (nil:
// all), described by status, start time and workspace.
func (a *app) completeSessions(keep func(*sessions.Session) bool) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		r, err := a.newRunner()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, _, err := r.Store().List(completionScan)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, s := range list {
			if keep == nil || keep(s) {
				out = append(out, cobra.CompletionWithDesc(s.ID, fmt.Sprintf("%s, started %s, %s", s.Status, sessTime(s.StartTime), s.Workspace)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeApprovals completes an approval id (pendingOnly: only the requests still waiting),
// described by state, event and message.
func (a *app) completeApprovals(pendingOnly bool) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		store, err := a.approvalStore()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, _, err := store.List()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		now := time.Now()
		var out []cobra.Completion
		for _, r := range list {
			state := r.StateAt(now)
			if pendingOnly && state != approval.StatePending {
				continue
			}
			out = append(out, cobra.CompletionWithDesc(r.ID, fmt.Sprintf("%s, %s: %s", state, r.Event, approval.Printable(sessLine(r.Message)))))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeWebhooks completes the names of stored webhooks not already given.
func (a *app) completeWebhooks(_ *cobra.Command, have []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	store, err := a.readWebhooks()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, n := range store.Names() {
		if !slices.Contains(have, n) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
