package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// chatRequest is the part of an OpenAI chat/completions request the fake reads (Cline's
// openai-compatible provider).
type chatRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
}

func chatToolResults(body json.RawMessage) []ToolResult {
	var req chatRequest
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []ToolResult
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, ToolResult{CallID: m.ToolCallID, Content: textOf(m.Content)})
		}
	}
	return out
}

// chat answers POST /chat/completions (Cline's openai-compatible base URL has no /v1) as the Chat Completions API
// does, streaming (SSE, with a usage chunk, which Cline waits for) or not. A Shell step calls
// OpenCode's bash where the request offers it, else Cline's run_commands; a Write step
// OpenCode's write, else Cline's apply_patch.
func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, r, body, "chat/completions request is not JSON: "+err.Error())
		return
	}
	turn := len(chatToolResults(body))
	s.record(r, body, turn)
	st := s.step(turn, len(req.Tools) > 0)

	var name string
	var args any
	offered := func(tool string) bool {
		for _, t := range req.Tools {
			if t.Function.Name == tool {
				return true
			}
		}
		return false
	}
	switch {
	case st.Shell != "" && offered("bash"): // OpenCode
		name, args = "bash", obj{"command": st.Shell, "description": "Run the scripted command"}
	case st.Shell != "":
		name, args = "run_commands", obj{"commands": []string{st.Shell}}
	case st.Write != nil && offered("write"): // OpenCode
		name, args = "write", obj{"filePath": s.writePath(st.Write.Path), "content": st.Write.Content}
	case st.Write != nil:
		name, args = "apply_patch", obj{"input": addFilePatch(s.patchPath(st.Write.Path), st.Write.Content)}
	case st.Tool != "":
		name, args = st.Tool, json.RawMessage(st.Input)
		if len(st.Input) == 0 {
			args = obj{}
		}
	}
	msg := obj{"role": "assistant", "content": st.Text}
	finish := "stop"
	if name != "" {
		a, _ := json.Marshal(args)
		msg = obj{"role": "assistant", "content": nil, "tool_calls": []obj{{"id": fmt.Sprintf("call_agenttest_%d", turn),
			"type": "function", "function": obj{"name": name, "arguments": string(a)}}}}
		finish = "tool_calls"
	}
	id := fmt.Sprintf("chatcmpl-agenttest-%d", turn)
	created := time.Now().Unix()
	usage := obj{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(obj{"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []obj{{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	chunk := func(choices []obj, extra obj) {
		c := obj{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "choices": choices}
		for k, v := range extra {
			c[k] = v
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	delta := obj{"role": "assistant", "content": st.Text}
	if name != "" {
		tc := msg["tool_calls"].([]obj)[0]
		tc["index"] = 0
		delta = obj{"role": "assistant", "tool_calls": []obj{tc}}
	}
	chunk([]obj{{"index": 0, "delta": delta, "finish_reason": nil}}, nil)
	chunk([]obj{{"index": 0, "delta": obj{}, "finish_reason": finish}}, nil)
	chunk([]obj{}, obj{"usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
