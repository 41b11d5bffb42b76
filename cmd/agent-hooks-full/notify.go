package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/notify"
	"github.com/autoagent/agent-hooks/notify/webhooks"
)

// webhooksFile is $AUTOAGENT_HOME/webhooks.json ("" when no home can be found: the webhook type
// then reports that a named webhook is not configured).
func (a *app) webhooksFile() string {
	home, err := a.AutoagentHome()
	if err != nil {
		return ""
	}
	return webhooks.StorePath(home)
}

func (a *app) requireWebhooksFile() (string, error) {
	home, err := a.AutoagentHome()
	if err != nil {
		return "", err
	}
	return webhooks.StorePath(home), nil
}

func (a *app) readWebhooks() (*webhooks.Store, error) {
	path, err := a.requireWebhooksFile()
	if err != nil {
		return nil, err
	}
	return webhooks.ReadStore(path)
}

func (a *app) newNotifyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notify",
		Short: "Set up, list, remove and test webhook notifications",
		Long: `Webhook notifications tell people what the agent did: Slack, Discord and Teams incoming
webhooks, or any endpoint that takes JSON. "notify setup" stores a webhook in
$AUTOAGENT_HOME/webhooks.json (mode 0600; AUTOAGENT_HOME defaults to ~/.autoagent) with the events
it fires on; every run of those events then posts to it, after the project's and user's hooks.

A webhook URL is a secret: it is never printed, not by these commands, not in errors, not in
results. Keep it out of the repository: store it here, or give --url-env the name of an
environment variable that holds it when the hooks run.

A webhook can also be configured as a hook in config.json:
  {"type": "webhook", "format": "slack", "urlEnv": "SLACK_WEBHOOK_URL"}
  {"type": "webhook", "webhook": "slack", "title": "#{{issueNumber}} {{status}}"}`,
		Example: `  agent-hooks notify setup slack --url-env SLACK_WEBHOOK_URL
  agent-hooks notify setup discord --events SessionEnd,Error,Checkpoint < url.txt
  agent-hooks notify list
  agent-hooks notify test slack
  agent-hooks notify remove discord`,
	}
	cmd.AddCommand(a.newNotifySetupCmd(), a.newNotifyListCmd(), a.newNotifyRemoveCmd(), a.newNotifyTestCmd())
	return cmd
}

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

func (a *app) newNotifySetupCmd() *cobra.Command {
	var name, url, urlEnv, title string
	var events []string
	cmd := &cobra.Command{
		Use:   "setup <slack|discord|teams|json>",
		Short: "Store a webhook and the events it fires on",
		Long: `Store a webhook in $AUTOAGENT_HOME/webhooks.json (mode 0600), replacing one of the same
name. The body sent is the format's built-in template: the session, event, status, iterations,
duration and reason of the event.

The URL comes from --url, or is read from the environment variable named by --url-env each time
the webhook fires, or (with neither) from the first line of standard input, so that it stays out
of the shell history. It is never printed.

--events lists the events it fires on, canonical names or the seed systems' aliases (default
SessionEnd,Error).`,
		Example: `  agent-hooks notify setup slack --url-env SLACK_WEBHOOK_URL
  agent-hooks notify setup teams --events SessionEnd < teams-url.txt
  agent-hooks notify setup json --name audit --url https://example.test/hook --events PostExecutionEnd`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format := args[0]
			if !webhooks.ValidName(format) {
				// Most likely the URL itself, pasted where the format goes: never echo it.
				return fmt.Errorf("the argument is not a webhook format (want %s; it is not shown, as it may be a webhook URL: give the URL with --url, --url-env or on standard input)", strings.Join(webhooks.Formats(), ", "))
			}
			if name == "" {
				name = format
			}
			if !webhooks.ValidName(name) {
				return fmt.Errorf("--name: %q is not a valid name (letters, digits, '.', '_', '-')", name)
			}
			if url != "" && urlEnv != "" {
				return errors.New("give --url or --url-env, not both")
			}
			if urlEnv != "" && !envName().MatchString(urlEnv) {
				return fmt.Errorf("--url-env: %q is not an environment variable name", urlEnv)
			}
			if url == "" && urlEnv == "" {
				var err error
				if url, err = a.readSecretLine("webhook URL for " + name); err != nil {
					return err
				}
			}
			e := webhooks.Entry{Format: format, URL: webhooks.Secret(url), URLEnv: urlEnv, Events: splitList(events), Title: title}
			if len(e.Events) == 0 {
				e.Events = webhooks.DefaultEvents()
			}
			if err := e.Validate(); err != nil {
				return fmt.Errorf("webhook %s: %w", name, err)
			}
			path, err := a.requireWebhooksFile()
			if err != nil {
				return err
			}
			replaced := false
			err = webhooks.UpdateStore(path, func(s *webhooks.Store) error {
				_, replaced = s.Webhooks[name]
				s.Webhooks[name] = e
				return nil
			})
			if err != nil {
				return err
			}
			verb := "added"
			if replaced {
				verb = "replaced"
			}
			fmt.Fprintf(a.Stderr, "agent-hooks: %s webhook %s (%s, url %s) in %s; it fires on %s\n",
				verb, name, format, urlSource(e), path, strings.Join(e.Events, ", "))
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&name, "name", "", "name of the webhook (default the format)")
	fl.StringVar(&url, "url", "", "the webhook URL (a secret: prefer --url-env or standard input)")
	fl.StringVar(&urlEnv, "url-env", "", "environment variable that holds the URL when the webhook fires")
	fl.StringSliceVar(&events, "events", nil, "events to fire on, comma-separated (default SessionEnd,Error)")
	fl.StringVar(&title, "title", "", "message title template, e.g. \"{{status}}: #{{issueNumber}} {{issueTitle}}\" (default "+notify.DefaultTitle+")")
	return cmd
}

// readSecretLine reads one line from standard input. On a terminal it prompts on stderr and
// turns the echo off while the secret is typed.
func (a *app) readSecretLine(what string) (string, error) {
	var line string
	if isTerminal(a.Stdin) {
		fmt.Fprintf(a.Stderr, "%s (not shown as you type): ", what)
		line, _ = approval.ReadSecret(a.Stdin)
		fmt.Fprintln(a.Stderr)
	} else {
		line, _ = bufio.NewReader(a.Stdin).ReadString('\n') // a missing newline at EOF is fine
	}
	if line = strings.TrimSpace(line); line == "" {
		return "", fmt.Errorf("no %s: give --url, --url-env or the URL on standard input", what)
	}
	return line, nil
}

func splitList(items []string) []string {
	var out []string
	for _, it := range items {
		for _, s := range strings.Split(it, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// urlSource says where a webhook's URL comes from without showing it.
func urlSource(e webhooks.Entry) string {
	if e.URLEnv != "" {
		return "from $" + e.URLEnv
	}
	return "stored, hidden"
}

type webhookListing struct {
	Name   string   `json:"name"`
	Format string   `json:"format"`
	Events []string `json:"events"`
	URLEnv string   `json:"urlEnv,omitempty"`
	URLSet bool     `json:"urlSet"` // the URL is stored, or the variable is set now
	Title  string   `json:"title,omitempty"`
}

func (a *app) newNotifyListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stored webhooks (never their URLs)",
		Example: `  agent-hooks notify list
  agent-hooks notify list --json | jq -r '.[].name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.readWebhooks()
			if err != nil {
				return err
			}
			list := []webhookListing{}
			for _, n := range s.Names() {
				e := s.Webhooks[n]
				list = append(list, webhookListing{Name: n, Format: e.Format, Events: e.Events, URLEnv: e.URLEnv,
					URLSet: e.URL != "" || a.Getenv(e.URLEnv) != "", Title: e.Title})
			}
			if asJSON {
				return cli.WriteJSON(a.Stdout, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(a.Stderr, "agent-hooks: no webhooks (add one with agent-hooks notify setup slack|discord|teams|json)")
				return nil
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tFORMAT\tEVENTS\tURL")
			for _, l := range list {
				src := urlSource(s.Webhooks[l.Name])
				if l.URLEnv != "" && !l.URLSet {
					src += " (not set now)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.Name, l.Format, strings.Join(l.Events, ","), src)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func (a *app) newNotifyRemoveCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "remove <name>...",
		Aliases: []string{"rm"},
		Short:   "Remove stored webhooks",
		Example: "  agent-hooks notify remove slack",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := a.requireWebhooksFile()
			if err != nil {
				return err
			}
			err = webhooks.UpdateStore(path, func(s *webhooks.Store) error {
				for _, n := range args {
					if _, ok := s.Webhooks[n]; !ok {
						return unknownWebhook(s, n)
					}
					delete(s.Webhooks, n)
				}
				return nil
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stderr, "agent-hooks: removed webhook %s\n", strings.Join(args, ", "))
			return nil
		},
	}
}

func unknownWebhook(s *webhooks.Store, name string) error {
	if !webhooks.ValidName(name) {
		// Not a name, so perhaps a webhook URL given where its name belongs: never echo it.
		msg := "no such webhook (the argument is not a webhook name; it is not shown, as it may be a webhook URL)"
		if len(s.Names()) > 0 {
			msg += "; have: " + strings.Join(s.Names(), ", ")
		}
		return errors.New(msg)
	}
	msg := fmt.Sprintf("no webhook named %q", name)
	if sug := hooks.Suggest(name, s.Names()); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", sug)
	} else if len(s.Names()) > 0 {
		msg += " (have: " + strings.Join(s.Names(), ", ") + ")"
	}
	return errors.New(msg)
}

func (a *app) newNotifyTestCmd() *cobra.Command {
	var event string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "test [name...]",
		Short: "Send a test notification to stored webhooks",
		Long: `Send a test notification to the named webhooks (default all), with the same format,
retries and timeout as a real one, and report each delivery. Exit code 1 when any failed.`,
		Example: `  agent-hooks notify test
  agent-hooks notify test slack --event Error`,
		RunE: func(cmd *cobra.Command, args []string) error {
			canonical, err := hooks.ResolveEvent(event, nil)
			if err != nil {
				return fmt.Errorf("--event: %w", err)
			}
			s, err := a.readWebhooks()
			if err != nil {
				return err
			}
			names := args
			if len(names) == 0 {
				names = s.Names()
			}
			if len(names) == 0 {
				return errors.New("no webhooks to test (add one with agent-hooks notify setup)")
			}
			for _, n := range names {
				if _, ok := s.Webhooks[n]; !ok {
					return unknownWebhook(s, n)
				}
			}
			payload := hooks.Payload{"sessionId": "test", "status": "test", "reason": "a test notification from agent-hooks notify test"}
			failed := 0
			for _, n := range names {
				if err := a.testWebhook(cmd.Context(), n, s.Webhooks[n], canonical, payload, timeout); err != nil {
					failed++
					fmt.Fprintf(a.Stdout, "%s: failed: %v\n", n, err)
				}
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d webhooks failed", failed, len(names))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&event, "event", hooks.SessionEnd, "event the test notification reports")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "time allowed for each webhook, retries included")
	return cmd
}

func (a *app) testWebhook(ctx context.Context, name string, e webhooks.Entry, event string, p hooks.Payload, timeout time.Duration) error {
	url, err := e.Resolve(a.Getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := &notify.Sender{Retries: notify.DefaultRetries, Backoff: hooks.DefaultWebhookBackoff,
		RequestTimeout: hooks.DefaultWebhookRequestTimeout, UserAgent: "agent-hooks"}
	msg := notify.MessageFromPayload(event, p, e.Title)
	d, err := notify.Deliver(ctx, s, notify.Target{Name: name, Format: e.Format, URL: url}, msg)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.Stdout, "%s: delivered (%s, HTTP %d, %d attempt%s)\n", name, e.Format, d.StatusCode, d.Attempts, plural(d.Attempts))
	return err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
