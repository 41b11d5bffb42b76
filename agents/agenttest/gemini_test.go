package agenttest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

const (
	geminiTurn0 = `{"contents":[{"role":"user","parts":[{"text":"do it"}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`
	geminiTurn1 = `{"contents":[{"role":"user","parts":[{"text":"do it"}]},
		{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"error":"Tool execution blocked: no"}}}]}],
		"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`
	geminiRouter = `{"contents":[{"role":"user","parts":[{"text":"classify"}]}],"generationConfig":{"responseMimeType":"application/json",
		"responseJsonSchema":{"type":"object","properties":{"complexity_reasoning":{"type":"string"},"complexity_score":{"type":"integer","minimum":1,"maximum":100},"model":{"enum":["flash","pro"]}}}}}`
)

func postGemini(t *testing.T, srv *Server, action, body string) string {
	t.Helper()
	resp, err := http.Post(srv.URL+"/v1beta/models/gemini-x:"+action, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %s %s", action, resp.Status, b)
	}
	return string(b)
}

// The Gemini fake answers the scripted call, then "done" once the call's result is back; a side
// call wanting JSON gets a value of its schema and is no model turn; the model's tool results
// are read back with a refusal as an error.
func TestGeminiFake(t *testing.T) {
	srv := newServer(t, Shell("echo hi > out.txt"))
	got := postGemini(t, srv, "streamGenerateContent?alt=sse", geminiTurn0)
	if !strings.HasPrefix(got, "data: ") || !strings.Contains(got, `"functionCall":{"args":{"command":"echo hi \u003e out.txt","description":"Run the scripted command"},"name":"run_shell_command"}`) {
		t.Errorf("turn 0: %s", got)
	}
	if got := postGemini(t, srv, "streamGenerateContent?alt=sse", geminiTurn1); !strings.Contains(got, `"text":"done"`) {
		t.Errorf("turn 1: %s", got)
	}
	var router struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(postGemini(t, srv, "generateContent", geminiRouter)), &router); err != nil {
		t.Fatal(err)
	}
	var value map[string]any
	if err := json.Unmarshal([]byte(router.Candidates[0].Content.Parts[0].Text), &value); err != nil {
		t.Fatal(err)
	}
	if value["complexity_score"] != float64(1) || value["model"] != "flash" || value["complexity_reasoning"] != "fake" {
		t.Errorf("router answer %v", value)
	}
	if n := len(srv.ModelRequests()); n != 2 {
		t.Errorf("%d model requests, want 2 (the router call is none)", n)
	}
	results := srv.ToolResults()
	if len(results) != 1 || !results[0].IsError || results[0].Content != "Tool execution blocked: no" || results[0].CallID != "c1" {
		t.Errorf("tool results %+v", results)
	}
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
}

// A Gemini run gets API-key auth in the user settings it is given, or says what is missing.
func TestGeminiRunSettings(t *testing.T) {
	srv := newServer(t)
	home := t.TempDir()
	r := &Run{Agent: Gemini, Bin: "gemini", Server: srv, Dir: t.TempDir(), Home: home}
	args, env, err := r.Argv()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(args, " ") != "--output-format json --yolo -p do it" || !strings.Contains(strings.Join(env, "\n"), "GOOGLE_GEMINI_BASE_URL="+srv.URL) {
		t.Errorf("args %q env %q", args, env)
	}
	writeFile(t, home+"/.gemini/settings.json", []byte(`{"hooks": {}}`))
	if _, _, err := r.Argv(); err == nil || !strings.Contains(err.Error(), "gemini-api-key") {
		t.Errorf("user settings without the auth: %v", err)
	}
}
