// Package acptest reads recorded ACP streams for tests: the golden tests
// of the ACP agents (gemini, qoder, e2e) decode a recording line by line.
package acptest

import (
	"bytes"
	"cmp"
	"encoding/json"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// Lines reads a recorded ACP stream, every message the agent wrote,
// through the decoder's entry points a session uses: updates and
// permission requests as they come, the prompt's answer as the turn's end;
// a session/new answer names the session, and the rest is raw.
type Lines struct{ D *acpclient.ACPDecoder }

func (a Lines) Decode(line []byte) []adapters.Event {
	var m struct {
		Method         string
		Params, Result json.RawMessage
		Error          *jsonrpc.Error
	}
	var p struct{ Update json.RawMessage }
	var r struct{ StopReason, SessionID string }
	switch line = bytes.TrimSpace(line); {
	case len(line) == 0:
		return nil
	case adapters.Unmarshal(line, &m) != nil:
		return []adapters.Event{adapters.RawEvent("acp:invalid", line)}
	case m.Method == "session/update" && adapters.Unmarshal(m.Params, &p) == nil && len(p.Update) > 0:
		return a.D.DecodeUpdate(p.Update)
	case m.Method == "session/request_permission":
		if pr, err := a.D.DecodePermission(m.Params); err == nil {
			return []adapters.Event{{Type: adapters.EventPermission, Permission: pr}}
		}
	case m.Method != "":
	case m.Error != nil:
		return a.D.EndTurn(adapters.Failure(acpclient.ACPError(m.Error.Code, m.Error.Message, m.Error.Data)))
	case adapters.Unmarshal(m.Result, &r) != nil:
	case r.StopReason != "":
		return a.D.EndTurn(a.D.ResultEvents(m.Result))
	case r.SessionID != "":
		return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: r.SessionID}}}
	}
	return []adapters.Event{adapters.RawEvent("acp:"+cmp.Or(m.Method, "response"), line)}
}
