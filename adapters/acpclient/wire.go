package acpclient

import (
	"cmp"
	"encoding/json"
	"path"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// sessionResult is schema.NewSessionResponse plus the unstable `models`
// field agents still send, with lenient config options.
type sessionResult struct {
	SessionID string                   `json:"sessionId"`
	Modes     *schema.SessionModeState `json:"modes"`
	Models    *struct {
		CurrentModelID  string `json:"currentModelId"`
		AvailableModels []struct {
			ModelID     string `json:"modelId"`
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"availableModels"`
	} `json:"models"`
	ConfigOptions []configOption `json:"configOptions"`
}

// configOption stays local: schema.SessionConfigOption rejects unknown option
// types, and one new option kind from an agent must not fail its session.
type configOption struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Category     string          `json:"category"`
	Type         string          `json:"type"`
	CurrentValue json.RawMessage `json:"currentValue"`
	Options      json.RawMessage `json:"options"`
}

// selectValues lists a select config option's values, groups flattened.
func (c configOption) selectValues() []adapters.Option {
	var flat []struct { // a value, or a group of them
		schema.SessionConfigSelectOption
		Options []schema.SessionConfigSelectOption `json:"options"`
	}
	_ = json.Unmarshal(c.Options, &flat)
	var out []adapters.Option
	for _, o := range flat {
		if o.Value != "" {
			out = append(out, adapters.Option{ID: o.Value, Name: o.Name, Description: o.Description})
		}
		for _, g := range o.Options {
			out = append(out, adapters.Option{ID: g.Value, Name: g.Name, Description: g.Description})
		}
	}
	return out
}

// toBlocks converts a hub prompt into ACP content blocks the agent accepts;
// blocks it cannot take are rendered as text.
func toBlocks(prompt []adapters.Content, caps schema.AgentCapabilities) []schema.ContentBlock {
	out := make([]schema.ContentBlock, 0, len(prompt))
	for _, c := range prompt {
		out = append(out, toBlock(c, caps.PromptCapabilities))
	}
	return out
}

func toBlock(c adapters.Content, caps schema.PromptCapabilities) schema.ContentBlock {
	switch {
	case c.Type == adapters.ContentImage && caps.Image, c.Type == adapters.ContentAudio && caps.Audio:
		return schema.ContentBlock{Type: string(c.Type), Data: c.Data, MimeType: c.MimeType}
	case c.Type == adapters.ContentImage, c.Type == adapters.ContentAudio:
		return schema.TextBlock("[" + string(c.Type) + " omitted: the agent does not accept it]")
	case c.Type == adapters.ContentResourceLink:
		return schema.ContentBlock{Type: "resource_link", URI: c.URI, Name: cmp.Or(c.Name, path.Base(c.URI)), MimeType: c.MimeType}
	case c.Type == adapters.ContentResource && caps.EmbeddedContext:
		r := &schema.ResourceContents{URI: c.URI, MimeType: c.MimeType, Text: c.Text}
		if c.Text == "" {
			r.Blob = c.Data
		}
		return schema.ContentBlock{Type: "resource", Resource: r}
	case c.Type == adapters.ContentResource:
		return schema.TextBlock(adapters.PromptText([]adapters.Content{c}))
	}
	return schema.TextBlock(c.Text)
}
