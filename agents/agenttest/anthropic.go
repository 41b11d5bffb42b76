package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// anthropicRequest is the part of a Messages API request the fake reads.
type anthropicRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// blocks returns a message's content blocks (none for plain string content).
func anthropicBlocks(content json.RawMessage) []anthropicBlock {
	var blocks []anthropicBlock
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	return blocks
}

func anthropicToolResults(body json.RawMessage) []ToolResult {
	var req anthropicRequest
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []ToolResult
	for _, m := range req.Messages {
		for _, b := range anthropicBlocks(m.Content) {
			if b.Type == "tool_result" {
				out = append(out, ToolResult{CallID: b.ToolUseID, Content: textOf(b.Content), IsError: b.IsError})
			}
		}
	}
	return out
}

// offers reports whether a Messages request offers the tool name.
func offers(tools []json.RawMessage, name string) bool {
	for _, t := range tools {
		var tool struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(t, &tool) == nil && tool.Name == name {
			return true
		}
	}
	return false
}

// anthropic answers POST /v1/messages as the Messages API does, streaming (SSE) or not.
func (s *Server) anthropic(w http.ResponseWriter, r *http.Request, body []byte) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, r, body, "messages request is not JSON: "+err.Error())
		return
	}
	turn := len(anthropicToolResults(body))
	s.record(r, body, turn)
	st := s.step(turn, len(req.Tools) > 0)

	id := fmt.Sprintf("msg_agenttest_%d", turn)
	usage := obj{"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	var block obj
	var input json.RawMessage
	stop := "tool_use"
	switch {
	case st.Shell != "":
		input, _ = json.Marshal(obj{"command": st.Shell, "description": "Run the scripted command"})
		block = obj{"type": "tool_use", "id": fmt.Sprintf("toolu_agenttest_%d", turn), "name": "Bash"}
		if offers(req.Tools, "bash") { // Copilot CLI
			block["name"] = "bash"
		}
		if offers(req.Tools, "Execute") { // Factory Droid, which refuses a call without its risk fields
			block["name"] = "Execute"
			input, _ = json.Marshal(obj{"command": st.Shell, "summary": "Run the scripted command",
				"riskLevelReason": "The scripted command of the test.", "riskLevel": "low"})
		}
	case st.Write != nil && offers(req.Tools, "create"): // Copilot CLI
		input, _ = json.Marshal(obj{"path": s.writePath(st.Write.Path), "file_text": st.Write.Content})
		block = obj{"type": "tool_use", "id": fmt.Sprintf("toolu_agenttest_%d", turn), "name": "create"}
	case st.Write != nil:
		input, _ = json.Marshal(obj{"file_path": s.writePath(st.Write.Path), "content": st.Write.Content})
		block = obj{"type": "tool_use", "id": fmt.Sprintf("toolu_agenttest_%d", turn), "name": "Write"}
		if offers(req.Tools, "Create") { // Factory Droid
			block["name"] = "Create"
		}
	case st.Tool != "":
		input = st.Input
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		block = obj{"type": "tool_use", "id": fmt.Sprintf("toolu_agenttest_%d", turn), "name": st.Tool}
	default:
		block = obj{"type": "text", "text": st.Text}
		stop = "end_turn"
	}
	if !req.Stream {
		if input != nil {
			block["input"] = input
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(obj{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": []obj{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sse(w, "message_start", obj{"type": "message_start", "message": obj{"id": id, "type": "message", "role": "assistant",
		"model": req.Model, "content": []obj{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	if input != nil {
		block["input"] = obj{}
		sse(w, "content_block_start", obj{"type": "content_block_start", "index": 0, "content_block": block})
		sse(w, "content_block_delta", obj{"type": "content_block_delta", "index": 0,
			"delta": obj{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		sse(w, "content_block_start", obj{"type": "content_block_start", "index": 0, "content_block": obj{"type": "text", "text": ""}})
		sse(w, "content_block_delta", obj{"type": "content_block_delta", "index": 0, "delta": obj{"type": "text_delta", "text": st.Text}})
	}
	sse(w, "content_block_stop", obj{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil}, "usage": obj{"output_tokens": 5}})
	sse(w, "message_stop", obj{"type": "message_stop"})
}
