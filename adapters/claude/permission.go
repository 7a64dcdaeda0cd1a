package claude

import (
	"encoding/json"
	"errors"

	"github.com/hubdev/hub/adapters"
)

// permission forwards a can_use_tool request to the turn's consumer and
// sends claude the answer. "Always" answers are remembered by the consumer
// (scoped per command) and by claude itself through its suggested rules.
func (s *Session) permission(ev adapters.Event) {
	req, ok := ParseClaudeControlRequest(ev.Raw)
	if !ok {
		return
	}
	s.mu.Lock()
	idle := s.turn == nil || s.cancelled
	s.mu.Unlock()
	if idle {
		s.answer(req, adapters.PermissionDecision{Cancelled: true})
		return
	}
	if req.ToolName == askTool {
		if q, ok := questionOf(req); ok {
			s.ask(req, q)
			return
		}
	}
	ev.Raw, ev.Source = nil, ""
	s.emit(ev)
	go func() {
		var d adapters.PermissionDecision
		select {
		case d = <-ev.Permission.Decision():
		case <-s.readDone:
			return
		}
		s.answer(req, d)
	}()
}

// answer writes the control_response for a can_use_tool request.
func (s *Session) answer(req ClaudeControlRequest, d adapters.PermissionDecision) {
	var result map[string]any
	switch {
	case d.Allowed():
		input := req.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		result = map[string]any{"behavior": "allow", "updatedInput": input}
		if d.Kind == adapters.AllowAlways && len(req.Suggestions) > 0 && string(req.Suggestions) != "null" {
			result["updatedPermissions"] = req.Suggestions
		}
	case d.Cancelled:
		result = map[string]any{"behavior": "deny", "message": "The user cancelled the turn.", "interrupt": true}
	default:
		result = map[string]any{"behavior": "deny", "message": "The user rejected this tool call."}
	}
	s.respond(req.RequestID, result)
}

func (s *Session) respond(id string, result map[string]any) {
	b, _ := json.Marshal(map[string]any{"type": "control_response",
		"response": map[string]any{"subtype": "success", "request_id": id, "response": result}})
	if err := s.write(b); err != nil {
		s.a.log.Debug().Err(err).Str("request_id", id).Msg("answer claude control request")
	}
}

// onControl handles the decoder's control records: responses to hub's own
// requests, and requests hub does not implement (answered with an error so
// claude does not wait).
func (s *Session) onControl(c ClaudeControl) {
	if c.Lifecycle != nil {
		s.lifecycle(*c.Lifecycle)
		return
	}
	if c.Response != nil {
		s.controlResponse(c.Response)
		return
	}
	b, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "error", "request_id": c.Request.RequestID, "error": "hub does not support " + c.Request.Subtype}})
	if err := s.write(b); err != nil {
		s.a.log.Debug().Err(err).Msg("reject claude control request")
	}
}

func (s *Session) controlResponse(raw []byte) {
	var r struct {
		Response struct {
			Subtype   string          `json:"subtype"`
			RequestID string          `json:"request_id"`
			Error     string          `json:"error"`
			Response  json.RawMessage `json:"response"`
		} `json:"response"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return
	}
	s.mu.Lock()
	reply := s.pending[r.Response.RequestID]
	delete(s.pending, r.Response.RequestID)
	s.mu.Unlock()
	if reply == nil {
		return
	}
	var err error
	if r.Response.Subtype == "error" {
		err = errors.New(r.Response.Error)
	}
	reply(r.Response.Response, err)
}
