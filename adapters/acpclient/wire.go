package acpclient

import (
	"encoding/json"
	"path"

	"github.com/hubdev/hub/adapters"
)

// Minimal ACP v1 wire types for the client side. Only the fields hub reads
// or writes are declared; unknown fields are ignored.

type initializeParams struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities clientCapabilities `json:"clientCapabilities"`
	ClientInfo         implementation     `json:"clientInfo"`
}

type clientCapabilities struct {
	FS       fsCapabilities `json:"fs"`
	Terminal bool           `json:"terminal"`
}

type fsCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`
	WriteTextFile bool `json:"writeTextFile"`
}

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities agentCapabilities `json:"agentCapabilities"`
	AuthMethods       []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"authMethods"`
	AgentInfo *implementation `json:"agentInfo"`
}

type agentCapabilities struct {
	LoadSession        bool `json:"loadSession"`
	PromptCapabilities struct {
		Image           bool `json:"image"`
		Audio           bool `json:"audio"`
		EmbeddedContext bool `json:"embeddedContext"`
	} `json:"promptCapabilities"`
	MCPCapabilities struct {
		HTTP bool `json:"http"`
		SSE  bool `json:"sse"`
	} `json:"mcpCapabilities"`
	SessionCapabilities struct {
		Resume json.RawMessage `json:"resume"`
		Close  json.RawMessage `json:"close"`
	} `json:"sessionCapabilities"`
}

func present(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }

type nameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type mcpServer struct {
	Type    string      `json:"type,omitempty"`
	Name    string      `json:"name"`
	Command string      `json:"command,omitempty"`
	Args    []string    `json:"args,omitempty"`
	Env     []nameValue `json:"env,omitempty"`
	URL     string      `json:"url,omitempty"`
	Headers []nameValue `json:"headers,omitempty"`
}

// MarshalJSON writes stdio servers with their required (possibly empty)
// args/env arrays and HTTP servers with their headers array.
func (m mcpServer) MarshalJSON() ([]byte, error) {
	if m.Type == "" {
		return json.Marshal(struct {
			Name    string      `json:"name"`
			Command string      `json:"command"`
			Args    []string    `json:"args"`
			Env     []nameValue `json:"env"`
		}{m.Name, m.Command, nonNilS(m.Args), nonNilNV(m.Env)})
	}
	return json.Marshal(struct {
		Type    string      `json:"type"`
		Name    string      `json:"name"`
		URL     string      `json:"url"`
		Headers []nameValue `json:"headers"`
	}{m.Type, m.Name, m.URL, nonNilNV(m.Headers)})
}

func nonNilS(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilNV(s []nameValue) []nameValue {
	if s == nil {
		return []nameValue{}
	}
	return s
}

type sessionParams struct {
	SessionID  string      `json:"sessionId,omitempty"`
	Cwd        string      `json:"cwd"`
	MCPServers []mcpServer `json:"mcpServers"`
}

type sessionResult struct {
	SessionID string `json:"sessionId"`
	Modes     *struct {
		CurrentModeID  string `json:"currentModeId"`
		AvailableModes []struct {
			ID          string `json:"id"`
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"availableModes"`
	} `json:"modes"`
	Models *struct {
		CurrentModelID  string `json:"currentModelId"`
		AvailableModels []struct {
			ModelID     string `json:"modelId"`
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"availableModels"`
	} `json:"models"`
	ConfigOptions []configOption `json:"configOptions"`
}

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
	var flat []struct {
		Value       string `json:"value"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Options     []struct {
			Value       string `json:"value"`
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"options"`
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

type contentBlock struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	Data     string    `json:"data,omitempty"`
	MimeType string    `json:"mimeType,omitempty"`
	URI      string    `json:"uri,omitempty"`
	Name     string    `json:"name,omitempty"`
	Resource *resource `json:"resource,omitempty"`
}

type resource struct {
	URI      string `json:"uri"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// toBlocks converts a hub prompt into ACP content blocks the agent accepts;
// blocks it cannot take are rendered as text.
func toBlocks(prompt []adapters.Content, caps agentCapabilities) []contentBlock {
	out := make([]contentBlock, 0, len(prompt))
	for _, c := range prompt {
		switch c.Type {
		case adapters.ContentImage, adapters.ContentAudio:
			ok := (c.Type == adapters.ContentImage && caps.PromptCapabilities.Image) ||
				(c.Type == adapters.ContentAudio && caps.PromptCapabilities.Audio)
			if ok {
				out = append(out, contentBlock{Type: string(c.Type), Data: c.Data, MimeType: c.MimeType})
			} else {
				out = append(out, contentBlock{Type: "text", Text: "[" + string(c.Type) + " omitted: the agent does not accept it]"})
			}
		case adapters.ContentResourceLink:
			name := c.Name
			if name == "" {
				name = path.Base(c.URI)
			}
			out = append(out, contentBlock{Type: "resource_link", URI: c.URI, Name: name, MimeType: c.MimeType})
		case adapters.ContentResource:
			if caps.PromptCapabilities.EmbeddedContext {
				r := &resource{URI: c.URI, MimeType: c.MimeType, Text: c.Text}
				if c.Text == "" {
					r.Blob = c.Data
				}
				out = append(out, contentBlock{Type: "resource", Resource: r})
			} else {
				out = append(out, contentBlock{Type: "text", Text: adapters.PromptText([]adapters.Content{c})})
			}
		default:
			out = append(out, contentBlock{Type: "text", Text: c.Text})
		}
	}
	return out
}

type permissionOutcome struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
}

type permissionResult struct {
	Outcome permissionOutcome `json:"outcome"`
}
