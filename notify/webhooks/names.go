// Package webhooks is the webhooks file of $AUTOAGENT_HOME (`agent-hooks notify setup`): its
// entries, read and rewritten in place, and the file as a configuration format whose entries
// become `webhook` hooks. It sends nothing (package notify does), so the program run on every
// tool call loads the file without linking an HTTP client.
package webhooks

// TypeName is the hook type the webhooks file's entries become (package notify runs it).
const TypeName = "webhook"

// The built-in body formats.
const (
	FormatJSON    = "json"
	FormatSlack   = "slack"
	FormatDiscord = "discord"
	FormatTeams   = "teams"
	// FormatPipelinesSlack is agent-pipelines' own Slack message (its hooks plan's
	// send_slack_notification): one attachment coloured good, or danger when the status is failed,
	// titled "Loop <session> <status>", with the fields Iterations and Duration (seconds). The
	// plan's webhooks.yaml entries named slack send it.
	FormatPipelinesSlack = "agent-pipelines-slack"
)

// Formats lists the body formats a webhook may use.
func Formats() []string {
	return []string{FormatSlack, FormatDiscord, FormatTeams, FormatJSON, FormatPipelinesSlack}
}

// ValidFormat reports whether f is a body format a webhook may use.
func ValidFormat(f string) bool {
	for _, k := range Formats() {
		if k == f {
			return true
		}
	}
	return false
}
