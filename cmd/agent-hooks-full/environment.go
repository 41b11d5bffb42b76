package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/autoagent/agent-hooks/agents/all"
)

// environment is every variable agent-hooks reads, for `agent-hooks help environment`.
var environment = []struct{ name, meaning string }{
	{"AUTOAGENT_HOME", "the home of agent-hooks' own files: the user's config.json, sessions/, webhooks.json, telemetry/ (default ~/.autoagent)"},
	{"AUTOAGENT_SESSION_ID", "the session `run` fires in (else the workspace's active session, else a new one)"},
	{"AGENT_HOOKS_DISABLE", "1 (or any value but 0/false) skips every hook and rule, except the managed layer's and the protection of the configuration"},
	{"AGENT_HOOKS_SKIP", "a comma-separated list of hook or rule names (or types) to skip, except the managed layer's"},
	{"AGENT_HOOKS_MANAGED_CONFIG", "the managed layer's file (default /etc/agent-hooks/config.json; macOS /Library/Application Support/agent-hooks/config.json; Windows %ProgramData%\\agent-hooks\\config.json)"},
	{"GITHUB_WORKSPACE", "the workspace, when --workspace is not given (as in GitHub Actions)"},
	{"GITHUB_TOKEN, GH_TOKEN", "the token of the GitHub built-ins (reviews, comments, approvals, commits through the API)"},
	{"GH_HOST, GITHUB_SERVER_URL, GITHUB_API_URL", "the GitHub host (GitHub Enterprise Server)"},
	{"GITHUB_ACTIONS, GITHUB_*, RUNNER_*", "GitHub Actions: the event, repository, ref, run and the runner's files (agent-hooks action)"},
	{"CI", "set: a local approval never prompts on the terminal (it waits for agent-hooks approvals approve|reject)"},
	{"TERM", "dumb: no status line for a long wait (an approval, a push) even when standard error is a terminal"},
	{"HOME, USERPROFILE", "the user's home (~): the user's and agents' settings"},
	{"XDG_CONFIG_HOME", "the user's configuration folder of agent-pipelines and babysitter hooks (default ~/.config)"},
	{"CLAUDE_PLUGIN_ROOT", "the babysitter plugin Claude Code installed"},
	{"FRESHER_HOOKS_ENABLED, FRESHER_HOOK_TIMEOUT, FRESHER_MODE", "fresher's own switches, as fresher reads them"},
	{"OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "where telemetry is sent (OTLP/HTTP), under the \"telemetry\" configuration"},
	{"OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_SDK_DISABLED", "the OpenTelemetry settings agent-hooks honours"},
	{"TRACEPARENT", "an incoming trace: the event's span is its child"},
	{"SSH_AUTH_SOCK, SSH_KNOWN_HOSTS", "pushes over ssh (git-push, session push)"},
}

// printEnvironment prints the environment table.
func printEnvironment(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "Environment variables agent-hooks reads:")
	for _, v := range environment {
		fmt.Fprintf(bw, "\n  %s\n      %s\n", v.name, v.meaning)
	}
	for _, ag := range all.Agents() {
		for _, v := range ag.Settings().Vars {
			fmt.Fprintf(bw, "\n  %s\n      %s\n", v[0], v[1])
		}
	}
	fmt.Fprintln(bw, "\nHooks get the event's payload in AUTOAGENT_PAYLOAD (and on stdin), and AGENT_HOOKS_HOOK_ID.")
	return bw.Flush()
}
