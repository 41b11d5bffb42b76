package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/autoagent/agent-hooks/internal/telemetry"
	"github.com/autoagent/agent-hooks/runner"
)

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	s, err := c.Compile("config.schema.json")
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return s
}

// exampleConfigs finds every native config under testdata/ (and the docs' examples), including
// those embedded in testscript archives.
func exampleConfigs(t *testing.T) map[string][]byte {
	t.Helper()
	found := map[string][]byte{}
	root := filepath.Join("..", "testdata")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return nil
		case filepath.Base(path) == "config.json" && filepath.Base(filepath.Dir(path)) == ".autoagent":
			b, err := os.ReadFile(path)
			found[path] = b
			return err
		case strings.HasSuffix(path, ".txt") && strings.Contains(path, "script"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for name, body := range txtarConfigs(b) {
				found[path+":"+name] = body
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The starter configuration agent-hooks init writes.
	starter := filepath.Join("..", "cmd", "agent-hooks-full", "starter", "config.json")
	b, err := os.ReadFile(starter)
	if err != nil {
		t.Fatal(err)
	}
	found[starter] = b
	return found
}

// txtarConfigs returns the .autoagent/config.json files of a txtar archive.
func txtarConfigs(archive []byte) map[string][]byte {
	out := map[string][]byte{}
	var name string
	var body []string
	flush := func() {
		if strings.HasSuffix(name, ".autoagent/config.json") {
			out[name] = []byte(strings.Join(body, "\n"))
		}
	}
	for _, line := range strings.Split(string(archive), "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			flush()
			name, body = strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --"), nil
			continue
		}
		body = append(body, line)
	}
	flush()
	return out
}

func TestExampleConfigsMatchSchema(t *testing.T) {
	s := compile(t)
	configs := exampleConfigs(t)
	if len(configs) == 0 {
		t.Fatal("no example configs found")
	}
	checked := 0
	for name, body := range configs {
		if strings.Contains(name, "invalid") || strings.Contains(name, "_error") {
			continue // scripts about bad configs
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			continue // deliberately malformed
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s does not match the schema:\n%v", name, err)
		}
		checked++
	}
	t.Logf("validated %d example configs", checked)
}

func TestSchemaRejectsMistakes(t *testing.T) {
	s := compile(t)
	bad := []string{
		`{"hooks": {"Stop": [{"type": "command"}]}}`,
		`{"hooks": {"Stop": [{"command": "x", "timeout": "60 seconds"}]}}`,
		`{"hooks": {"Stop": [{"command": "x", "timeout": -1}]}}`,
		`{"hooks": {"Stop": [{"type": "webhook", "url": "https://x.test", "backoffMs": "soon"}]}}`,
		`{"hooks": {"Stop": [{"type": "git-comit"}]}}`,
		`{"hooks": {"9Stop": []}}`,
		`{"stopBlockLimit": -1}`,
		`{"hooks": {"Stop": [{"command": "x", "blockign": true}]}}`,
		`{"hooks": {"PostExecutionEnd": [{"type": "git-push", "remote": "origin", "mesage": "x"}]}}`,
		`{"hooks": {"Stop": [{"type": "webhook", "format": "irc"}]}}`,
		`{"hooks": {"PreToolUse": [{"command": "x", "tools": ["Bash"]}]}}`,
		`{"telemetry": {"endpiont": "http://localhost:4318"}}`,
		`{"telemetry": {"endpoint": "localhost:4318"}}`,
		`{"telemetry": {"headers": {"x-api-key": 42}}}`,
		`{"telemetry": {"enabled": "yes"}}`,
		`{"sessions": {"push": "true"}}`,
		`{"sessions": {"pushh": true}}`,
		`{"hooks": {"ApprovalRequired": [{"type": "approval", "provider": "callback", "url": "https://x.test", "method": "GET"}]}}`,
		`{"hooks": {"ApprovalRequired": [{"type": "approval", "provider": "input", "responseVar": "A-B"}]}}`,
		`{"sessions": {"pushTimeout": "soon"}}`,
		`{"sessions": {"idleTimeout": -1}}`,
	}
	for _, b := range bad {
		var v any
		if err := json.Unmarshal([]byte(b), &v); err != nil {
			t.Fatal(err)
		}
		if s.Validate(v) == nil {
			t.Errorf("schema accepts %s", b)
		}
	}
}

// TestSchemaAcceptsDurations: every duration option takes milliseconds or a Go duration string.
func TestSchemaAcceptsDurations(t *testing.T) {
	s := compile(t)
	for _, b := range []string{
		`{"hooks": {"Stop": [{"command": "x", "timeout": 1500}]}}`,
		`{"hooks": {"Stop": [{"command": "x", "timeout": "60s"}]}}`,
		`{"hooks": {"Stop": [{"command": "x", "timeout": "1m30s"}]}}`,
		`{"hooks": {"Stop": [{"type": "approval", "provider": "github", "pollInterval": "15s"}]}}`,
		`{"hooks": {"Stop": [{"type": "approval", "provider": "http-poll", "url": "https://x.test", "successWhen": ".ok", "interval": "250ms"}]}}`,
		`{"hooks": {"Stop": [{"type": "webhook", "url": "https://x.test", "backoffMs": "1.5s", "requestTimeout": 5000}]}}`,
		`{"hooks": {"ApprovalRequired": [{"type": "approval", "provider": "callback", "url": "${HOOK}", "method": "PUT", "listen": "127.0.0.1:8765", "publicUrl": "https://relay.test", "body": {"text": "{{approveUrl}}"}, "responseVar": "ANSWER", "timeout": "24h"}]}}`,
		`{"hooks": {"ApprovalRequired": [{"type": "approval", "provider": "input", "file": "answer", "stdin": true, "responseVar": "ANSWER", "timeout": "1h"}]}}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(b), &v); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("schema rejects %s: %v", b, err)
		}
	}
}

// TestSchemaHasTheKeysAgentHooksReads: the "telemetry" and "sessions" objects of the schema list
// exactly the keys agent-hooks decodes (it refuses any other), so that an editor completes what
// works and flags what would fail.
func TestSchemaHasTheKeysAgentHooksReads(t *testing.T) {
	b, err := os.ReadFile("config.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for key, v := range map[string]any{"telemetry": telemetry.Config{}, "sessions": runner.SessionsConfig{}} {
		var want []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			want = append(want, name)
		}
		var got []string
		for name := range doc.Properties[key].Properties {
			got = append(got, name)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("schema %s keys = %v, agent-hooks reads %v", key, got, want)
		}
	}
}

// TestSchemaAcceptsTelemetryAndSessions: the documented forms of both keys.
func TestSchemaAcceptsTelemetryAndSessions(t *testing.T) {
	s := compile(t)
	for _, b := range []string{
		`{"telemetry": {"endpoint": "http://localhost:4318"}}`,
		`{"telemetry": {"enabled": false}}`,
		`{"telemetry": {"tracesEndpoint": "https://otel.example.com/v1/traces", "logsEndpoint": "https://otel.example.com/v1/logs", "headers": {"x-api-key": "k"}, "serviceName": "ci-agents", "resourceAttributes": {"team": "infra"}}}`,
		`{"sessions": {"push": true}}`,
		`{"sessions": {"push": true, "remote": "audit"}}`,
		`{"sessions": {"push": true, "connectTimeout": "5s", "idleTimeout": 30000, "pushTimeout": "1m"}}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(b), &v); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("schema rejects %s: %v", b, err)
		}
	}
}
