package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"
)

// openaiRequest is the part of a Responses API request the fake reads.
type openaiRequest struct {
	Model string            `json:"model"`
	Tools []json.RawMessage `json:"tools"`
	Input []struct {
		Type   string          `json:"type"`
		Role   string          `json:"role"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	} `json:"input"`
}

func openaiToolResults(body json.RawMessage) []ToolResult {
	var req openaiRequest
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []ToolResult
	for _, it := range req.Input {
		switch it.Type {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			out = append(out, ToolResult{CallID: it.CallID, Content: textOf(it.Output)})
		}
	}
	return out
}

// patchPath is a Write step's path as apply_patch wants it: relative to the agent's cwd.
func (s *Server) patchPath(p string) string {
	if s.Dir != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(s.Dir, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// addFilePatch is an apply_patch patch creating path with content.
func addFilePatch(path, content string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Add File: " + path + "\n")
	for _, line := range strings.SplitAfter(content, "\n") {
		if line == "" {
			continue
		}
		b.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// openai answers POST /v1/responses as the Responses API does when streaming (SSE): the
// minimal event sequence Codex accepts, no deltas.
func (s *Server) openai(w http.ResponseWriter, r *http.Request, body []byte) {
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, r, body, "responses request is not JSON: "+err.Error())
		return
	}
	turn := len(openaiToolResults(body))
	s.record(r, body, turn)
	st := s.step(turn, len(req.Tools) > 0)

	callID := fmt.Sprintf("call_agenttest_%d", turn)
	var item obj
	switch {
	case st.Shell != "":
		args, _ := json.Marshal(obj{"cmd": st.Shell})
		item = obj{"type": "function_call", "id": fmt.Sprintf("fc_agenttest_%d", turn), "status": "completed",
			"call_id": callID, "name": "exec_command", "arguments": string(args)}
	case st.Write != nil:
		item = obj{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_agenttest_%d", turn), "status": "completed",
			"call_id": callID, "name": "apply_patch", "input": addFilePatch(s.patchPath(st.Write.Path), st.Write.Content)}
	case st.Tool != "":
		args := string(st.Input)
		if args == "" {
			args = "{}"
		}
		item = obj{"type": "function_call", "id": fmt.Sprintf("fc_agenttest_%d", turn), "status": "completed",
			"call_id": callID, "name": st.Tool, "arguments": args}
	default:
		item = obj{"type": "message", "id": fmt.Sprintf("msg_agenttest_%d", turn), "role": "assistant", "status": "completed",
			"content": []obj{{"type": "output_text", "text": st.Text, "annotations": []any{}}}}
	}
	created := time.Now().Unix()
	id := fmt.Sprintf("resp_agenttest_%d", turn)
	usage := obj{"input_tokens": 10, "input_tokens_details": obj{"cached_tokens": 0}, "output_tokens": 5,
		"output_tokens_details": obj{"reasoning_tokens": 0}, "total_tokens": 15}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	seq := 0
	event := func(name string, data obj) {
		data["type"] = name
		data["sequence_number"] = seq
		seq++
		sse(w, name, data)
	}
	event("response.created", obj{"response": obj{"id": id, "object": "response", "created_at": created,
		"status": "in_progress", "model": req.Model, "output": []obj{}}})
	event("response.output_item.added", obj{"output_index": 0, "item": item})
	event("response.output_item.done", obj{"output_index": 0, "item": item})
	event("response.completed", obj{"response": obj{"id": id, "object": "response", "created_at": created,
		"status": "completed", "model": req.Model, "output": []obj{item}, "usage": usage}})
}
