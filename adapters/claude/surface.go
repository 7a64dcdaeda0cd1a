package claude

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/trace"
)

var _ adapters.Surfacer = (*Session)(nil)

// initResponse is what hub uses of claude's answer to initialize, the control request
// each session sends first: its slash commands, models and permission mode.
type initResponse struct {
	Commands []struct {
		Name         string `json:"name"`
		Description  string `json:"description"`
		ArgumentHint string `json:"argumentHint"`
	} `json:"commands"`
	Models []struct {
		Value                 string   `json:"value"`
		DisplayName           string   `json:"displayName"`
		Description           string   `json:"description"`
		SupportedEffortLevels []string `json:"supportedEffortLevels"`
	} `json:"models"`
	CurrentPermissionMode string `json:"current_permission_mode"`
}

// modes are claude's permission modes, named as claude-agent-acp names them.
var modes = []adapters.Option{
	{ID: "default", Name: "Default", Description: "Ask before edits and commands"},
	{ID: "acceptEdits", Name: "Accept Edits", Description: "Edit files without asking"},
	{ID: "plan", Name: "Plan Mode", Description: "Plan without changing anything"},
	{ID: "bypassPermissions", Name: "Bypass Permissions", Description: "Never ask (refused as root unless IS_SANDBOX=1)"},
}

// sendInitialize asks claude for its surface; the answer arrives on the reader goroutine.
func (s *Session) sendInitialize() {
	if err := s.control(map[string]any{"subtype": "initialize"}, s.onInit); err != nil {
		s.onInit(nil, err)
	}
}

// onInit keeps claude's initialize answer (or why there is none) for Surface.
func (s *Session) onInit(res json.RawMessage, err error) {
	var r initResponse
	if err == nil {
		err = json.Unmarshal(res, &r)
	}
	if err != nil {
		err = fmt.Errorf("claude: initialize: %w", err)
	}
	s.initOnce.Do(func() {
		s.init, s.initErr = r, err
		s.start.Mark(trace.Handshake)
		close(s.initDone)
	})
}

func (s *Session) Surface(ctx context.Context) (adapters.Surface, error) {
	select {
	case <-s.initDone:
	case <-ctx.Done():
		return adapters.Surface{}, ctx.Err()
	}
	if s.initErr != nil {
		return adapters.Surface{}, s.initErr
	}
	return surfaceOf(s.init, s.opts), nil
}

// surfaceOf maps claude's answer; the current values are the session's, else claude's.
func surfaceOf(r initResponse, opts adapters.SessionOptions) adapters.Surface {
	var sur adapters.Surface
	for _, c := range r.Commands {
		sur.Commands = append(sur.Commands, adapters.Command{Name: c.Name, Description: c.Description, InputHint: c.ArgumentHint})
	}
	model := adapters.ConfigOption{ID: adapters.OptionModel, Name: "Model", Category: "model", Value: cmp.Or(opts.Model, "default")}
	var efforts []string
	for _, m := range r.Models {
		model.Choices = append(model.Choices, adapters.Option{ID: m.Value, Name: cmp.Or(m.DisplayName, m.Value), Description: m.Description})
		if m.Value == model.Value {
			efforts = m.SupportedEffortLevels
		}
	}
	if len(model.Choices) > 0 {
		model.OfferValue()
		sur.Options = append(sur.Options, model)
	}
	mode := adapters.ConfigOption{ID: adapters.OptionMode, Name: "Mode", Category: "mode",
		Value: cmp.Or(opts.Mode, r.CurrentPermissionMode, "default"), Choices: modes}
	mode.OfferValue()
	sur.Options = append(sur.Options, mode)
	if len(efforts) > 0 {
		effort := adapters.ConfigOption{ID: adapters.OptionEffort, Name: "Effort", Category: "thought_level",
			Value: cmp.Or(opts.Options[adapters.OptionEffort], "default"), Choices: []adapters.Option{{ID: "default", Name: "Default"}}}
		for _, e := range efforts {
			effort.Choices = append(effort.Choices, adapters.Option{ID: e, Name: e})
		}
		sur.Options = append(sur.Options, effort)
	}
	return sur
}
