package openai

import (
	"reflect"
	"testing"

	"github.com/hubdev/hub/internal/config"
)

// A profile's fields win over its preset's, field by field; what it does
// not set comes from the preset, and streaming stays on unless turned off.
func TestResolveProfile_ConfigOverPreset(t *testing.T) {
	no, temp := false, 0.2
	tests := []struct {
		name string
		pc   config.ProviderConfig
		want Profile
	}{
		{"preset alone", config.ProviderConfig{Preset: "openai"}, Profile{Name: "p", BaseURL: "https://api.openai.com/v1",
			Model: "gpt-4.1", APIKeyEnv: "OPENAI_API_KEY", MaxTokensField: "max_completion_tokens", Vision: true,
			ContextWindow: 1000000, Stream: true, JSONSchema: true}},
		{"profile wins", config.ProviderConfig{Preset: "openai", Model: "m", Vision: &no, Stream: &no, JSONSchema: &no,
			ContextWindow: 5, Temperature: &temp, OmitToolChoice: true, Headers: map[string]string{"X": "1"}},
			Profile{Name: "p", BaseURL: "https://api.openai.com/v1", Model: "m", APIKeyEnv: "OPENAI_API_KEY",
				MaxTokensField: "max_completion_tokens", ContextWindow: 5, Temperature: &temp, OmitToolChoice: true,
				Headers: map[string]string{"X": "1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveProfile("p", tt.pc)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v (%v)\nwant %+v", got, err, tt.want)
			}
		})
	}
	if p, _ := ResolveProfile("p", config.ProviderConfig{Preset: "ollama"}); !p.Local {
		t.Error("a local preset's profile needs no key")
	}
}
