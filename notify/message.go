package notify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/notify/webhooks"
)

// Message is what a notification says: the agent-pipelines seed's fields.
type Message struct {
	Title      string // one line; rendered from the hook's "title" template
	Session    string
	Event      string
	Status     string // running, completed, failed, blocked, …
	Iterations string // a count, as text ("" when the payload has none)
	Duration   string // e.g. "1m30s" ("" when the payload has none)
	Reason     string
	// Name is the session's name as the seed loops give it (the payload's session, else its
	// sessionName, else the session id: agent-pipelines' ${SESSION}).
	Name string
	// Seconds is the duration in seconds, as agent-pipelines' LOOP_DURATION gives it ("120").
	Seconds string
}

// PipelinesSlackTitle is the title of webhooks.FormatPipelinesSlack when the hook sets none: the plan's
// "Loop $session $status".
const PipelinesSlackTitle = "Loop {{name}} {{status}}"

// DefaultTitle is the title template of a webhook that sets none.
const DefaultTitle = "agent-hooks: {{event}} in session {{session}} ({{status}})"

// MessageFromPayload reads the seed's fields from an event payload:
//
//   - session: sessionId
//   - event: the event being fired
//   - status: status; else success (true: completed, false: failed); else failed on Error,
//     completed on SessionEnd, running otherwise
//   - iterations: iterations, else iteration, else currentIteration
//   - duration: duration, durationMs or totalDuration (milliseconds: the AutoAgent and babysitter
//     payloads' duration, and what session end sends), durationSeconds (seconds), or
//     metadata.totalDuration (milliseconds); a string is used as written
//   - reason: reason, else error, else errorMessage
//   - name: the session's name (seedfmt.SessionName: session, else sessionName, else sessionId)
//   - seconds: the duration in seconds: agent-pipelines' LOOP_DURATION (durationSeconds, else
//     duration in milliseconds divided by 1000), else the other keys of duration
//
// title is a message template: {{key}} is replaced by the payload value verbatim, and {{session}},
// {{event}}, {{status}}, {{iterations}}, {{duration}}, {{reason}}, {{name}}, {{seconds}} by the
// fields above.
func MessageFromPayload(event string, p hooks.Payload, title string) Message {
	m := Message{
		Session: str(p, "sessionId"),
		Event:   event,
		Status:  str(p, "status"),
		Reason:  first(p, "reason", "error", "errorMessage"),
	}
	if m.Status == "" {
		switch ok, isBool := lookup(p, "success").(bool); {
		case isBool && ok:
			m.Status = "completed"
		case isBool:
			m.Status = "failed"
		case event == hooks.Error:
			m.Status = "failed"
		case event == hooks.SessionEnd:
			m.Status = "completed"
		default:
			m.Status = "running"
		}
	}
	m.Iterations = first(p, "iterations", "iteration", "currentIteration")
	m.Duration = duration(p)
	m.Name = seedfmt.SessionName(p, m.Session)
	m.Seconds = seconds(p)
	if title == "" {
		title = DefaultTitle
	}
	fields := hooks.Payload{}
	for k, v := range p {
		fields[k] = v
	}
	for k, v := range map[string]string{
		"session": m.Session, "event": m.Event, "status": m.Status,
		"iterations": m.Iterations, "duration": m.Duration, "reason": m.Reason,
		"name": m.Name, "seconds": m.Seconds,
	} {
		fields[k] = v
	}
	m.Title = strings.TrimSpace(template.ExpandMessage(title, fields))
	return m
}

func lookup(p hooks.Payload, path string) any {
	v, _ := template.Lookup(p, path)
	return v
}

func str(p hooks.Payload, path string) string { return template.FormatValue(lookup(p, path)) }

func first(p hooks.Payload, paths ...string) string {
	for _, k := range paths {
		if s := str(p, k); s != "" {
			return s
		}
	}
	return ""
}

// duration renders the payload's duration; numbers are milliseconds, or seconds for durationSeconds.
func duration(p hooks.Payload) string {
	d, text, ok := durationOf(p)
	if !ok {
		return text
	}
	switch {
	case d >= time.Minute:
		d = d.Round(time.Second)
	case d >= time.Second:
		d = d.Round(100 * time.Millisecond)
	default:
		d = d.Round(time.Millisecond)
	}
	return d.String()
}

// seconds is the payload's duration in seconds: agent-pipelines' LOOP_DURATION where the payload
// has its keys (durationSeconds, duration in milliseconds), else the other duration keys.
func seconds(p hooks.Payload) string {
	for _, v := range seedfmt.Table {
		if s, ok := v.Value(p); ok && v.Loop == "LOOP_DURATION" {
			return s
		}
	}
	d, text, ok := durationOf(p)
	if !ok {
		return text
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// durationOf reads the payload's duration: ok with a number, else the text written ("" for none).
func durationOf(p hooks.Payload) (d time.Duration, text string, ok bool) {
	for _, k := range []struct {
		path string
		unit time.Duration
	}{
		{"duration", time.Millisecond}, {"durationSeconds", time.Second},
		{"durationMs", time.Millisecond}, {"totalDuration", time.Millisecond},
		{"metadata.totalDuration", time.Millisecond},
	} {
		v := lookup(p, k.path)
		if v == nil {
			continue
		}
		n, ok := number(v)
		if !ok {
			return 0, template.FormatValue(v), false
		}
		return time.Duration(n * float64(k.unit)), "", true
	}
	return 0, "", false
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// field is one labelled value of a message, in display order.
type field struct {
	name, value string
	short       bool
}

func (m Message) fields() []field {
	all := []field{
		{"Session", m.Session, true},
		{"Event", m.Event, true},
		{"Status", m.Status, true},
		{"Iterations", m.Iterations, true},
		{"Duration", m.Duration, true},
		{"Reason", m.Reason, false},
	}
	out := all[:0]
	for _, f := range all {
		if f.value != "" { // chat services reject empty field values
			out = append(out, f)
		}
	}
	return out
}

// tone is how a status looks: good, warning or danger.
func (m Message) tone() string {
	switch strings.ToLower(m.Status) {
	case "failed", "failure", "error", "errored", "interrupted", "timeout", "aborted":
		return "danger"
	case "blocked", "rejected", "skipped", "warning":
		return "warning"
	}
	return "good"
}

// Body renders the request body a webhook of the given format sends.
func (m Message) Body(format string) ([]byte, error) {
	var v any
	switch format {
	case webhooks.FormatSlack:
		v = m.slack()
	case webhooks.FormatDiscord:
		v = m.discord()
	case webhooks.FormatTeams:
		v = m.teams()
	case webhooks.FormatJSON:
		v = m.json()
	case webhooks.FormatPipelinesSlack:
		v = m.pipelinesSlack()
	default:
		return nil, fmt.Errorf("unknown webhook format %q (known: %s)", format, strings.Join(webhooks.Formats(), ", "))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s body: %w", format, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

type slackField struct {
	Title string `json:"title"`
	Value string `json:"value"`
	Short bool   `json:"short"`
}

type slackAttachment struct {
	Color    string       `json:"color"`
	Fallback string       `json:"fallback"`
	Title    string       `json:"title"`
	Fields   []slackField `json:"fields"`
}

type slackBody struct {
	Text        string            `json:"text"`
	Attachments []slackAttachment `json:"attachments"`
}

// slack is an incoming-webhook message with one coloured attachment (the seed's template).
func (m Message) slack() slackBody {
	a := slackAttachment{Color: m.tone(), Fallback: m.Title, Title: m.Title, Fields: []slackField{}}
	for _, f := range m.fields() {
		a.Fields = append(a.Fields, slackField{Title: f.name, Value: f.value, Short: f.short})
	}
	return slackBody{Text: m.Title, Attachments: []slackAttachment{a}}
}

type pipelinesSlackAttachment struct {
	Color  string       `json:"color"`
	Title  string       `json:"title"`
	Fields []slackField `json:"fields"`
}

type pipelinesSlackBody struct {
	Attachments []pipelinesSlackAttachment `json:"attachments"`
}

// pipelinesSlack is agent-pipelines' send_slack_notification, field for field: its colour is
// danger only for the status failed, and the values are sent as the plan's shell sends them, an
// empty one included.
func (m Message) pipelinesSlack() pipelinesSlackBody {
	color := "good"
	if m.Status == "failed" {
		color = "danger"
	}
	return pipelinesSlackBody{Attachments: []pipelinesSlackAttachment{{
		Color: color, Title: m.Title,
		Fields: []slackField{{Title: "Iterations", Value: m.Iterations, Short: true}, {Title: "Duration", Value: m.Seconds, Short: true}},
	}}}
}

type discordField struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Inline bool   `json:"inline"`
}

type discordEmbed struct {
	Title  string         `json:"title"`
	Color  int            `json:"color"`
	Fields []discordField `json:"fields"`
}

type discordBody struct {
	Content string         `json:"content"`
	Embeds  []discordEmbed `json:"embeds"`
}

var discordColors = map[string]int{"good": 0x2ECC71, "warning": 0xE67E22, "danger": 0xE74C3C}

// discord is an execute-webhook request with one embed.
func (m Message) discord() discordBody {
	e := discordEmbed{Title: truncate(m.Title, 256), Color: discordColors[m.tone()], Fields: []discordField{}}
	for _, f := range m.fields() {
		e.Fields = append(e.Fields, discordField{Name: f.name, Value: truncate(f.value, 1024), Inline: f.short})
	}
	return discordBody{Content: truncate(m.Title, 2000), Embeds: []discordEmbed{e}}
}

type teamsFact struct {
	Title string `json:"title"`
	Value string `json:"value"`
}

type teamsElement struct {
	Type   string      `json:"type"`
	Text   string      `json:"text,omitempty"`
	Weight string      `json:"weight,omitempty"`
	Size   string      `json:"size,omitempty"`
	Color  string      `json:"color,omitempty"`
	Wrap   bool        `json:"wrap,omitempty"`
	Facts  []teamsFact `json:"facts,omitempty"`
}

type teamsCard struct {
	Schema  string         `json:"$schema"`
	Type    string         `json:"type"`
	Version string         `json:"version"`
	Body    []teamsElement `json:"body"`
}

type teamsAttachment struct {
	ContentType string    `json:"contentType"`
	Content     teamsCard `json:"content"`
}

type teamsBody struct {
	Type        string            `json:"type"`
	Attachments []teamsAttachment `json:"attachments"`
}

var teamsColors = map[string]string{"good": "Good", "warning": "Warning", "danger": "Attention"}

// teams is a message with one Adaptive Card, the shape Teams Workflows webhooks ("When a Teams
// webhook request is received") accept; the retired Office 365 connectors' MessageCard is not.
func (m Message) teams() teamsBody {
	facts := teamsElement{Type: "FactSet", Facts: []teamsFact{}}
	for _, f := range m.fields() {
		facts.Facts = append(facts.Facts, teamsFact{Title: f.name, Value: f.value})
	}
	title := teamsElement{Type: "TextBlock", Text: m.Title, Weight: "Bolder", Size: "Medium", Color: teamsColors[m.tone()], Wrap: true}
	card := teamsCard{
		Schema: "http://adaptivecards.io/schemas/adaptive-card.json", Type: "AdaptiveCard", Version: "1.4",
		Body: []teamsElement{title, facts},
	}
	return teamsBody{Type: "message", Attachments: []teamsAttachment{{ContentType: "application/vnd.microsoft.card.adaptive", Content: card}}}
}

type jsonBody struct {
	Title      string `json:"title"`
	Session    string `json:"session"`
	Event      string `json:"event"`
	Status     string `json:"status"`
	Iterations *int64 `json:"iterations,omitempty"`
	Duration   string `json:"duration,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// json is the plain format: the fields as a flat object, for services of one's own.
func (m Message) json() jsonBody {
	b := jsonBody{Title: m.Title, Session: m.Session, Event: m.Event, Status: m.Status, Duration: m.Duration, Reason: m.Reason}
	if n, err := strconv.ParseInt(m.Iterations, 10, 64); err == nil {
		b.Iterations = &n
	}
	return b
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
