package agenttest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// geminiPrefix is the path of the Gemini API's model methods: /v1beta/models/MODEL:ACTION.
const geminiPrefix = "/v1beta/models/"

// geminiRequest is the part of a generateContent request the fake reads.
type geminiRequest struct {
	Contents []struct {
		Role  string          `json:"role"`
		Parts []geminiRawPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type geminiRawPart struct {
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

func (r *geminiRequest) offersTools() bool {
	for _, t := range r.Tools {
		if len(t.FunctionDeclarations) > 0 {
			return true
		}
	}
	return false
}

// wantsJSON reports whether the request is one of Gemini CLI's side calls that want a JSON
// object of a schema (the model router's classifier, the next-speaker check).
func (r *geminiRequest) wantsJSON() bool {
	gc := r.GenerationConfig
	return gc.ResponseMimeType == "application/json" || len(gc.ResponseJSONSchema) > 0 || len(gc.ResponseSchema) > 0
}

// geminiToolResults are the functionResponse parts of a request: a response {"error": …} (a
// hook's refusal: "Tool execution blocked: <reason>") is an error, its content the error text;
// any other is the response's JSON.
func geminiToolResults(body json.RawMessage) []ToolResult {
	var req geminiRequest
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []ToolResult
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			fr := p.FunctionResponse
			if fr == nil {
				continue
			}
			tr := ToolResult{CallID: fr.ID, Content: string(fr.Response)}
			var resp map[string]json.RawMessage
			if json.Unmarshal(fr.Response, &resp) == nil {
				if e, ok := resp["error"]; ok {
					tr.IsError, tr.Content = true, textOf(e)
				} else if o, ok := resp["output"]; ok {
					tr.Content = textOf(o)
				}
			}
			out = append(out, tr)
		}
	}
	return out
}

// gemini answers POST /v1beta/models/MODEL:generateContent and :streamGenerateContent (SSE with
// alt=sse), and :countTokens.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request, body []byte) {
	model, action, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, geminiPrefix), ":")
	if action == "countTokens" {
		s.record(r, body, -1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"totalTokens":100}`)
		return
	}
	if action != "generateContent" && action != "streamGenerateContent" {
		s.fail(w, r, body, "no such Gemini method in the fake")
		return
	}
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, r, body, "generateContent request is not JSON: "+err.Error())
		return
	}
	var part obj
	if req.wantsJSON() {
		s.record(r, body, -1)
		schema := req.GenerationConfig.ResponseJSONSchema
		if len(schema) == 0 {
			schema = req.GenerationConfig.ResponseSchema
		}
		var sch any
		_ = json.Unmarshal(schema, &sch)
		text, _ := json.Marshal(synth(sch))
		part = obj{"text": string(text)}
	} else {
		turn := len(geminiToolResults(body))
		s.record(r, body, turn)
		st := s.step(turn, req.offersTools())
		switch {
		case st.Shell != "":
			part = obj{"functionCall": obj{"name": "run_shell_command", "args": obj{"command": st.Shell, "description": "Run the scripted command"}}}
		case st.Write != nil:
			part = obj{"functionCall": obj{"name": "write_file", "args": obj{"file_path": s.writePath(st.Write.Path), "content": st.Write.Content}}}
		case st.Tool != "":
			args := obj{}
			if len(st.Input) > 0 {
				_ = json.Unmarshal(st.Input, &args)
			}
			part = obj{"functionCall": obj{"name": st.Tool, "args": args}}
		default:
			part = obj{"text": st.Text}
		}
	}
	resp := obj{
		"candidates":    []obj{{"content": obj{"role": "model", "parts": []obj{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": obj{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  model,
	}
	if action == "streamGenerateContent" && r.URL.Query().Get("alt") == "sse" {
		b, _ := json.Marshal(resp)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if action == "streamGenerateContent" {
		json.NewEncoder(w).Encode([]obj{resp})
		return
	}
	json.NewEncoder(w).Encode(resp)
}

// synth is the least value a JSON schema (or a Gemini Schema) accepts: an enum's first value, a
// number's minimum (else 1), "fake" for a string, every property of an object.
func synth(schema any) any {
	m, ok := schema.(map[string]any)
	if !ok {
		return "fake"
	}
	if enum, ok := m["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ := ""
	switch t := m["type"].(type) {
	case string:
		typ = t
	case []any:
		for _, x := range t {
			if s, _ := x.(string); s != "" && !strings.EqualFold(s, "null") {
				typ = s
				break
			}
		}
	}
	if typ == "" {
		typ = "string"
		if _, ok := m["properties"]; ok {
			typ = "object"
		}
	}
	switch strings.ToLower(typ) {
	case "object":
		out := obj{}
		props, _ := m["properties"].(map[string]any)
		for k, v := range props {
			out[k] = synth(v)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		if min, ok := m["minimum"]; ok {
			return min
		}
		return 1
	case "boolean":
		return false
	}
	return "fake"
}

// GeminiUserSettings are the user settings of a run (HOME/.gemini/settings.json) when the test
// wrote none: API-key auth, so that GOOGLE_GEMINI_BASE_URL reaches the fake (without it Gemini
// CLI picks "gateway" auth, which headless mode refuses); no telemetry, usage statistics or
// update checks. A test that writes its own must select the same auth. (Gemini's system
// defaults file would leave the user's alone, but Gemini skips it under a world-writable /tmp.)
const GeminiUserSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}
}
`

// geminiEnv writes the run's user settings when there are none, and returns Gemini CLI's
// environment.
func (r *Run) geminiEnv() ([]string, error) {
	settings := filepath.Join(r.Home, ".gemini", "settings.json")
	src, err := os.ReadFile(settings)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(settings, []byte(GeminiUserSettings), 0o644); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		var s struct {
			Security struct {
				Auth struct {
					SelectedType string `json:"selectedType"`
				} `json:"auth"`
			} `json:"security"`
		}
		if json.Unmarshal(src, &s) != nil || s.Security.Auth.SelectedType != "gemini-api-key" {
			return nil, fmt.Errorf("agenttest: %s must select the auth \"gemini-api-key\" (security.auth.selectedType; see GeminiUserSettings), or Gemini CLI refuses to run", settings)
		}
	}
	return []string{
		"GOOGLE_GEMINI_BASE_URL=" + r.Server.URL,
		"GEMINI_API_KEY=" + fakeKey,
		// Headless mode refuses a folder not trusted; the project's hooks run only in a trusted one.
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		// One process: the CLI's relaunch of itself with more memory only costs time.
		"GEMINI_CLI_NO_RELAUNCH=true",
		"TERM=dumb",
	}, nil
}
