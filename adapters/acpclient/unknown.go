package acpclient

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp"
	"github.com/hubdev/hub/adapters"
)

// specUnmapped are ACP update kinds hub knows and deliberately leaves raw
// (replayed user turns, mode and config echoes); they are not news to warn
// about.
var specUnmapped = map[string]bool{
	"acp:" + acp.UpdateUserMessageChunk: true,
	"acp:" + acp.UpdateCurrentMode:      true,
	"acp:" + acp.UpdateConfigOption:     true,
}

// unknownRecords warns the first time a session meets each record type hub
// does not understand, naming the agent's version (and the version the
// adapter was tested with) so a user can tell an untested upgrade from a hub
// bug; repeats stay quiet so logs do not flood.
type unknownRecords struct {
	log    zerolog.Logger
	agent  string
	tested string

	mu      sync.Mutex
	version string
	seen    map[string]bool
}

func newUnknownRecords(log zerolog.Logger, agent, tested string) *unknownRecords {
	return &unknownRecords{log: log, agent: agent, tested: tested, seen: map[string]bool{}}
}

// setVersion records initialize's agentInfo.version.
func (u *unknownRecords) setVersion(info *acp.Implementation) {
	if info == nil {
		return
	}
	u.mu.Lock()
	u.version = info.Version
	u.mu.Unlock()
}

// noteEvents warns about the raw events among evs.
func (u *unknownRecords) noteEvents(evs []adapters.Event) {
	for _, ev := range evs {
		if ev.Type == adapters.EventRaw && !specUnmapped[ev.Source] {
			u.note(ev.Source)
		}
	}
}

// note logs source (a raw event's record type) once per session.
func (u *unknownRecords) note(source string) {
	u.mu.Lock()
	first := !u.seen[source]
	u.seen[source] = true
	v := u.version
	u.mu.Unlock()
	if !first {
		return
	}
	if v == "" {
		v = "unknown"
	}
	about := u.agent + " " + v
	if u.tested != "" {
		about += ", tested with " + u.tested
	}
	e := u.log.Warn()
	if strings.HasPrefix(source, "acp:_") {
		e = u.log.Debug() // "_" methods are ACP extensions any client may ignore
	}
	e.Str("agent", u.agent).Str("record", source).Str("agent_version", v).Str("tested", u.tested).
		Msgf("%s sent %s, which hub does not understand (%s); passing it on raw", u.agent, source, about)
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
