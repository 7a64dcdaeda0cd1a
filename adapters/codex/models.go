package codex

import (
	"cmp"
	"context"
	"slices"

	"github.com/hubdev/hub/adapters"
)

// staticModels is the model list when app-server's model/list is missing
// (older CLIs, exec fallback) or does not answer in time.
var staticModels = []adapters.Option{{ID: "gpt-5.5", Name: "GPT-5.5"}, {ID: "gpt-5.5-mini", Name: "GPT-5.5 mini"}}

// modelCatalog is what model/list reported, plus the model codex resolved
// for a thread (its config.toml's, which the catalog may lack).
type modelCatalog struct {
	models []adapters.Option
	// efforts are the reasoning efforts each model takes, and its default.
	efforts   map[string][]adapters.Option
	defEffort map[string]string
	def       string // the catalog's isDefault entry
	current   string // the model of the last thread/start
}

type modelListResult struct {
	Data []struct {
		ID          string `json:"id"`
		Model       string `json:"model"`
		DisplayName string `json:"displayName"`
		Description string `json:"description"`
		Hidden      bool   `json:"hidden"`
		IsDefault   bool   `json:"isDefault"`
		Efforts     []struct {
			ReasoningEffort string `json:"reasoningEffort"`
			Description     string `json:"description"`
		} `json:"supportedReasoningEfforts"`
		DefaultEffort string `json:"defaultReasoningEffort"`
	} `json:"data"`
}

// listModels records app-server's visible models for Capabilities, within
// ModelListTimeout; an empty or missing list keeps the previous one.
func (s *appSession) listModels(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, s.a.ModelListTimeout)
	defer cancel()
	var r modelListResult
	if err := s.call(ctx, "model/list", map[string]any{}, &r); err != nil {
		s.a.log.Debug().Err(err).Msg("codex model/list unavailable; keeping the static model list")
		return
	}
	c := modelCatalog{efforts: map[string][]adapters.Option{}, defEffort: map[string]string{}}
	for _, m := range r.Data {
		id := cmp.Or(m.Model, m.ID)
		if m.Hidden || id == "" || slices.ContainsFunc(c.models, func(o adapters.Option) bool { return o.ID == id }) {
			continue
		}
		c.models = append(c.models, adapters.Option{ID: id, Name: cmp.Or(m.DisplayName, id), Description: m.Description})
		if m.IsDefault {
			c.def = id
		}
		for _, e := range m.Efforts {
			c.efforts[id] = append(c.efforts[id], adapters.Option{ID: e.ReasoningEffort, Name: e.ReasoningEffort, Description: e.Description})
		}
		c.defEffort[id] = m.DefaultEffort
	}
	if len(c.models) == 0 {
		return
	}
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	c.current = s.a.catalog.current
	s.a.catalog = c
}

// models returns the model choices and the default: the app-server catalog
// when one was listed, else the static list; configured extras appended.
func (a *Adapter) models() ([]adapters.Option, string) {
	a.mu.Lock()
	c := a.catalog
	a.mu.Unlock()
	models, def := slices.Clone(staticModels), a.cfg.Model
	if len(c.models) > 0 {
		models = slices.Clone(c.models)
		def = cmp.Or(a.cfg.Model, c.current, c.def)
		if !slices.ContainsFunc(models, func(o adapters.Option) bool { return o.ID == def }) {
			models = append([]adapters.Option{{ID: def, Name: def}}, models...)
		}
	}
	extra, _ := a.cfg.Options["models"].([]any)
	for _, m := range extra {
		s, ok := m.(string)
		if ok && !slices.ContainsFunc(models, func(o adapters.Option) bool { return o.ID == s }) {
			models = append(models, adapters.Option{ID: s, Name: s})
		}
	}
	return models, def
}
