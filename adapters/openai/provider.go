package openai

import (
	"cmp"
	_ "embed"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/hubdev/hub/internal/config"
)

//go:embed presets.toml
var presetsTOML string

// Profile is a resolved OpenAI-compatible endpoint.
type Profile struct {
	Name      string
	BaseURL   string
	Model     string
	APIKeyEnv string
	APIKey    string // overrides APIKeyEnv
	Headers   map[string]string

	OmitTemperature bool
	OmitToolChoice  bool
	MaxTokensField  string
	MaxTokens       int
	Temperature     *float64
	Vision          bool
	ContextWindow   int
	MaxTurnRequests int
	Stream          bool
	AzureAPIVersion string
	JSONSchema      bool // the endpoint takes response_format json_schema
	Local           bool // needs no API key
}

type presetData struct {
	config.ProviderConfig
	Local bool `toml:"local"`
}

var presets = func() map[string]presetData {
	var m map[string]presetData
	if _, err := toml.Decode(presetsTOML, &m); err != nil {
		panic(fmt.Sprintf("openai: presets.toml: %v", err))
	}
	return m
}()

func PresetNames() []string { return slices.Sorted(maps.Keys(presets)) }

// PresetOf names the shipped preset a profile starts from: pc.Preset, else
// name when it is a preset, else "".
func PresetOf(name string, pc config.ProviderConfig) string {
	if _, ok := presets[name]; ok && pc.Preset == "" {
		return name
	}
	return pc.Preset
}

// ResolveProfile merges a config profile over its preset (PresetOf) and
// fills defaults.
func ResolveProfile(name string, pc config.ProviderConfig) (Profile, error) {
	base := PresetOf(name, pc)
	local := false
	if base != "" {
		pd, ok := presets[base]
		if !ok {
			return Profile{}, fmt.Errorf("providers.%s: unknown preset %q (known: %s)", name, base, strings.Join(PresetNames(), ", "))
		}
		pc, local = pc.Over(pd.ProviderConfig), pd.Local
	}
	// A negative number is unset, and streaming is on unless pc turns it off.
	p := Profile{Name: name, BaseURL: pc.BaseURL, Model: pc.Model, APIKeyEnv: pc.APIKeyEnv, Headers: pc.Headers,
		OmitTemperature: pc.OmitTemperature, OmitToolChoice: pc.OmitToolChoice, MaxTokensField: pc.MaxTokensField,
		MaxTokens: max(pc.MaxTokens, 0), Temperature: pc.Temperature, Vision: pc.Vision != nil && *pc.Vision,
		ContextWindow: max(pc.ContextWindow, 0), MaxTurnRequests: max(pc.MaxTurnRequests, 0),
		Stream: pc.Stream == nil || *pc.Stream, AzureAPIVersion: pc.AzureAPIVersion,
		JSONSchema: pc.JSONSchema != nil && *pc.JSONSchema, Local: local}
	if p.BaseURL == "" {
		return Profile{}, fmt.Errorf("providers.%s: base_url is required", name)
	}
	if _, err := url.Parse(p.BaseURL); err != nil {
		return Profile{}, fmt.Errorf("providers.%s: base_url: %w", name, err)
	}
	if isAzure(p.BaseURL) && p.AzureAPIVersion == "" {
		p.AzureAPIVersion = presets["azure"].AzureAPIVersion
	}
	return p, nil
}

// EnvProfile is the "openai" agent: the openai preset overridden by
// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL, then by a
// [providers.openai] profile when the config has one.
func EnvProfile(cfg *config.Config, getenv func(string) string) (Profile, error) {
	var pc config.ProviderConfig
	if cfg != nil {
		pc = cfg.Providers["openai"]
	}
	pc.BaseURL = cmp.Or(pc.BaseURL, getenv("OPENAI_BASE_URL"))
	pc.Model = cmp.Or(pc.Model, getenv("OPENAI_MODEL"))
	p, err := ResolveProfile("openai", pc)
	if err != nil {
		return Profile{}, err
	}
	if p.BaseURL != presets["openai"].BaseURL {
		// A custom endpoint (often a local server) may need no key, and
		// compatible servers mostly know max_tokens only, and not all
		// take response_format json_schema.
		p.Local, p.MaxTokensField = true, pc.MaxTokensField
		p.JSONSchema = pc.JSONSchema != nil && *pc.JSONSchema
	}
	return p, nil
}

func (p Profile) key() string { return cmp.Or(p.APIKey, os.Getenv(p.APIKeyEnv)) }

// window is the context window the loop compacts within and reports.
func (p Profile) window() int { return cmp.Or(max(p.ContextWindow, 0), DefaultContextWindow) }

func isAzure(base string) bool {
	u, err := url.Parse(base)
	return err == nil && (strings.HasSuffix(u.Hostname(), ".openai.azure.com") || strings.HasSuffix(u.Hostname(), ".cognitiveservices.azure.com"))
}

// Endpoint returns the URL for path ("/chat/completions", "/models").
func (p Profile) Endpoint(path string) string {
	u := strings.TrimRight(p.BaseURL, "/") + path
	if isAzure(p.BaseURL) && p.AzureAPIVersion != "" {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + "api-version=" + url.QueryEscape(p.AzureAPIVersion)
	}
	return u
}

func (p Profile) Authorize(req *http.Request) {
	if k := p.key(); k != "" {
		if isAzure(p.BaseURL) {
			req.Header.Set("api-key", k)
		} else {
			req.Header.Set("Authorization", "Bearer "+k)
		}
	}
	for k, v := range p.Headers {
		req.Header.Set(k, os.ExpandEnv(v))
	}
}
