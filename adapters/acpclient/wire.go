package acpclient

import (
	"cmp"
	"encoding/json"
	"path"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// The ACP wire types come from package acp; only what differs on the client
// side is declared here.

// sessionResult is schema.NewSessionResponse plus the unstable `models` field
// agents still send, with lenient config options.
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

// selectValues lists the option values of a select config option,
// flattening groups.
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
		switch c.Type {
		case adapters.ContentImage, adapters.ContentAudio:
			ok := (c.Type == adapters.ContentImage && caps.PromptCapabilities.Image) ||
				(c.Type == adapters.ContentAudio && caps.PromptCapabilities.Audio)
			if ok {
				out = append(out, schema.ContentBlock{Type: string(c.Type), Data: c.Data, MimeType: c.MimeType})
			} else {
				out = append(out, schema.ContentBlock{Type: "text", Text: "[" + string(c.Type) + " omitted: the agent does not accept it]"})
			}
		case adapters.ContentResourceLink:
			name := cmp.Or(c.Name, path.Base(c.URI))
			out = append(out, schema.ContentBlock{Type: "resource_link", URI: c.URI, Name: name, MimeType: c.MimeType})
		case adapters.ContentResource:
			if caps.PromptCapabilities.EmbeddedContext {
				r := &schema.ResourceContents{URI: c.URI, MimeType: c.MimeType, Text: c.Text}
				if c.Text == "" {
					r.Blob = c.Data
				}
				out = append(out, schema.ContentBlock{Type: "resource", Resource: r})
			} else {
				out = append(out, schema.ContentBlock{Type: "text", Text: adapters.PromptText([]adapters.Content{c})})
			}
		default:
			out = append(out, schema.ContentBlock{Type: "text", Text: c.Text})
		}
	}
	return out
}
