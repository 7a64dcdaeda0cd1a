package acpclient

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// specUnmapped are ACP update kinds hub leaves raw without a warning
// (replayed user turns, mode and config echoes).
var specUnmapped = []string{"acp:" + schema.UpdateUserMessageChunk, "acp:" + schema.UpdateCurrentMode, "acp:" + schema.UpdateConfigOption}

// unknownRecords warns about the records of a session that hub does not
// understand, naming the version the agent reported in initialize.
func unknownRecords(cfg Config, version func() string) *adapters.UnknownRecords {
	return adapters.NewUnknownRecords(cfg.Logger, cfg.Name, cfg.Caps.TestedVersions, adapters.UnknownOptions{
		Version: version,
		Quiet: func(source string) bool { // "_" methods are extensions any client may ignore
			return strings.HasPrefix(source, "acp:_") || slices.Contains(specUnmapped, source)
		}})
}

// methodEvent is the raw event of an agent-to-client method hub does not serve.
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
