package claude

import (
	"encoding/json"
	"errors"

	"github.com/hubdev/hub/adapters"
)

// permission forwards a can_use_tool request to the turn's consumer and sends claude the
// answer. "Always" answers are remembered by hub's gate, never by claude: the rules
// claude suggests are wider (`Bash(echo:*)`, or acceptEdits after one edit) and would let
// it skip hub's gate from then on.
func (s *Session) permission(ev adapters.Event) {
	req, _ := ParseClaudeControlRequest(ev.Raw) // the decoder made ev of one
	if t := s.turn.Current(); t == nil || t.IsCancelled() {
		s.respond(req.RequestID, permissionResult(req, adapters.PermissionDecision{Cancelled: true}))
		return
	}
	if q, ok := questionOf(req); ok {
		s.emit(adapters.Event{Type: adapters.EventQuestion, Question: q})
		answerLater(s, req.RequestID, q.Answer(), func(a adapters.Answers) map[string]any { return askResult(req, q, a) })
		return
	}
	ev.Raw, ev.Source = nil, ""
	s.emit(ev)
	answerLater(s, req.RequestID, ev.Permission.Decision(), func(d adapters.PermissionDecision) map[string]any {
		return permissionResult(req, d)
	})
}

// answerLater answers control request id with result(v) once v arrives on ch, unless
// claude exits first.
func answerLater[T any](s *Session, id string, ch <-chan T, result func(T) map[string]any) {
	go func() {
		select {
		case v := <-ch:
			s.respond(id, result(v))
		case <-s.readDone:
		}
	}()
}

func permissionResult(req ClaudeControlRequest, d adapters.PermissionDecision) map[string]any {
	switch {
	case d.Cancelled:
		return map[string]any{"behavior": "deny", "message": "The user cancelled the turn.", "interrupt": true}
	case !d.Allowed():
		return map[string]any{"behavior": "deny", "message": "The user rejected this tool call."}
	}
	input := req.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	return map[string]any{"behavior": "allow", "updatedInput": input}
}

func (s *Session) respond(id string, result map[string]any) {
	b, _ := json.Marshal(map[string]any{"type": "control_response",
		"response": map[string]any{"subtype": "success", "request_id": id, "response": result}})
	if err := s.write(b); err != nil {
		s.a.log.Debug().Err(err).Str("request_id", id).Msg("answer claude control request")
	}
}

// onControl handles the decoder's control records; a request hub does not implement is
// answered with an error so claude does not wait.
func (s *Session) onControl(c ClaudeControl) {
	switch r := c.Response; {
	case c.Lifecycle != nil:
		s.lifecycle(*c.Lifecycle)
	case r != nil:
		var err error
		if r.Subtype == "error" {
			err = errors.New(r.Error)
		}
		s.replies.Answer(r.RequestID, r.Response, err)
	default:
		b, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{
			"subtype": "error", "request_id": c.Request.RequestID, "error": "hub does not support " + c.Request.Subtype}})
		if err := s.write(b); err != nil {
			s.a.log.Debug().Err(err).Msg("reject claude control request")
		}
	}
}
