package acpclient

import (
	"encoding/json"
	"strings"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// specUnmapped are ACP update kinds hub knows and deliberately leaves raw
// (replayed user turns, mode and config echoes); they are not news to warn
// about.
var specUnmapped = map[string]bool{
	"acp:" + schema.UpdateUserMessageChunk: true,
	"acp:" + schema.UpdateCurrentMode:      true,
	"acp:" + schema.UpdateConfigOption:     true,
}

// newUnknownRecords warns about records hub does not understand, naming the
// version the agent reported in initialize (version reads it).
func newUnknownRecords(log zerolog.Logger, agent, tested string, version func() string) *adapters.UnknownRecords {
	return adapters.NewUnknownRecords(log, agent, tested, adapters.UnknownOptions{Version: version,
		Quiet: func(source string) bool { return strings.HasPrefix(source, "acp:_") }}) // "_" methods are extensions any client may ignore
}

func (s *Session) agentVersion() string { s.mu.Lock(); defer s.mu.Unlock(); return s.version }

// noteUnknown warns about the raw events among evs that are news.
func noteUnknown(u *adapters.UnknownRecords, evs []adapters.Event) {
	for _, ev := range evs {
		if ev.Type == adapters.EventRaw && !specUnmapped[ev.Source] {
			u.Note(ev.Source)
		}
	}
}

// methodEvent is the raw event for an agent-to-client method hub does not
// serve.
func methodEvent(method string, params json.RawMessage) adapters.Event {
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	raw, _ := json.Marshal(struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}{method, params})
	return adapters.Event{Type: adapters.EventRaw, Source: "acp:" + method, Raw: raw}
}
