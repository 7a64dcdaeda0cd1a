package acpclient

import (
	"bytes"
	"encoding/json"
	"flag"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodeACP decodes a whole newline-separated ACP stream.
func DecodeACP(data []byte) []adapters.Event {
	return decodeLines(NewACPDecoder(), data)
}

// decodeLines feeds data to d a line at a time, newline kept, as a
// session's reader does.
func decodeLines(d adapters.LineDecoder, data []byte) (evs []adapters.Event) {
	for line := range bytes.Lines(data) {
		evs = append(evs, d.Decode(line)...)
	}
	return evs
}

// NewACPDecoder returns a decoder for one recorded ACP session stream.
func NewACPDecoder() lineDecoder { return lineDecoder{&ACPDecoder{}} }

// lineDecoder reads a recorded ACP stream, every message the agent wrote,
// through the decoder's entry points a Session uses: updates and
// permission requests as they come, the prompt's answer as the turn's end;
// a session/new answer names the session, and the rest is raw.
type lineDecoder struct{ *ACPDecoder }

// acpMessage is any JSON-RPC message on the wire.
type acpMessage struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// Decode decodes one JSON-RPC message line written by the agent.
func (d lineDecoder) Decode(line []byte) []adapters.Event {
	return d.settle(adapters.DecodeJSON(line, "acp:invalid", d.message))
}

func (d lineDecoder) message(m *acpMessage, line []byte) []adapters.Event {
	switch {
	case m.Method == "session/update":
		if update := updateOf(m.Params); len(update) > 0 {
			return d.decodeUpdate(update)
		}
		return []adapters.Event{adapters.RawEvent("acp:session/update", line)}
	case m.Method == "session/request_permission":
		pr, err := d.DecodePermission(m.Params)
		if err != nil {
			return []adapters.Event{adapters.RawEvent("acp:session/request_permission", line)}
		}
		return []adapters.Event{{Type: adapters.EventPermission, Permission: pr}}
	case m.Method != "":
		return []adapters.Event{adapters.RawEvent("acp:"+m.Method, line)}
	case m.Error != nil:
		return adapters.Failure(ACPError(m.Error.Code, m.Error.Message, m.Error.Data))
	}
	var r struct {
		StopReason string `json:"stopReason"`
		SessionID  string `json:"sessionId"`
	}
	switch {
	case adapters.Unmarshal(m.Result, &r) != nil:
	case r.StopReason != "":
		return d.ResultEvents(m.Result)
	case r.SessionID != "":
		return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: r.SessionID}}}
	}
	return []adapters.Event{adapters.RawEvent("acp:response", line)}
}
