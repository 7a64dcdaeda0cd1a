package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
)

func TestRegister_EnvProfilesAndPresets(t *testing.T) {
	cfg := &config.Config{Providers: map[string]config.ProviderConfig{
		"work":  {Preset: "openrouter", Model: "x/y"},
		"local": {BaseURL: "http://127.0.0.1:9/v1", Model: "m"},
	}, Agents: map[string]config.AgentConfig{"vllm": {Disabled: true}}}
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_MODEL": "qwen", "GROQ_API_KEY": "k"}
	r := adapters.NewRegistry()
	r.Register(New(Profile{Name: "ollama", BaseURL: "http://mine"}, Options{})) // a preset never replaces it
	Register(r, cfg, Options{Logger: zerolog.Nop()}, func(k string) string { return env[k] })
	if o, _ := r.Get("ollama"); o.(*Adapter).profile.BaseURL != "http://mine" {
		t.Errorf("the ollama preset replaced the adapter registered before it")
	}
	names := strings.Join(r.Names(), ",")
	for _, want := range []string{"openai", "work", "local", "ollama", "lmstudio", "llamacpp", "groq"} {
		if !strings.Contains(names, want) {
			t.Errorf("missing %s in %s", want, names)
		}
	}
	for _, absent := range []string{"vllm", "together", "azure"} {
		if strings.Contains(names, absent) {
			t.Errorf("unexpected %s in %s", absent, names)
		}
	}
	a, _ := r.Get("openai")
	p := a.(*Adapter).profile
	if p.BaseURL != "http://127.0.0.1:1/v1" || p.Model != "qwen" || !p.Local {
		t.Errorf("openai profile %+v", p)
	}
	w, _ := r.Get("work")
	if wp := w.(*Adapter).profile; wp.BaseURL != "https://openrouter.ai/api/v1" || wp.Model != "x/y" || wp.APIKeyEnv != "OPENROUTER_API_KEY" {
		t.Errorf("work profile %+v", wp)
	}
}

// json_schema: the hosted presets that take response_format json_schema
// say so, a profile may say it for its own endpoint, and a custom
// OPENAI_BASE_URL is not assumed to take it.
func TestProfile_JSONSchema(t *testing.T) {
	yes := true
	tests := []struct {
		name string
		get  func() (Profile, error)
		want bool
	}{
		{"openai preset", func() (Profile, error) { return ResolveProfile("openai", config.ProviderConfig{}) }, true},
		{"ollama preset", func() (Profile, error) { return ResolveProfile("ollama", config.ProviderConfig{}) }, false},
		{"profile says so", func() (Profile, error) {
			return ResolveProfile("vllm", config.ProviderConfig{JSONSchema: &yes})
		}, true},
		{"custom OPENAI_BASE_URL", func() (Profile, error) {
			return EnvProfile(nil, func(k string) string { return map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}[k] })
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.get()
			if err != nil || p.JSONSchema != tt.want {
				t.Fatalf("JSONSchema %v (%v), want %v", p.JSONSchema, err, tt.want)
			}
			if a := New(p, Options{}); a.Capabilities().OutputSchema != tt.want {
				t.Errorf("Capabilities.OutputSchema %v, want %v", a.Capabilities().OutputSchema, tt.want)
			}
		})
	}
}

func TestProfile_AzureAndQuirks(t *testing.T) {
	var got http.Header
	var gotURL string
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, gotURL = r.Header.Clone(), r.URL.String()
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}]}`))
	}))
	defer srv.Close()
	p, err := ResolveProfile("az", config.ProviderConfig{Preset: "azure", BaseURL: "https://x.openai.azure.com/openai/deployments/d", MaxTokens: 100, OmitToolChoice: true})
	if err != nil {
		t.Fatal(err)
	}
	p.APIKey = "secret"
	// Send the Azure-shaped request to the local server.
	tr := &rewrite{to: srv.URL}
	s, err := New(p, Options{HTTPClient: &http.Client{Transport: tr}}).Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, _ := fixture.Prompt(context.Background(), s, adapters.TextPrompt("x"))
	for range ch {
	}
	if got.Get("api-key") != "secret" || got.Get("Authorization") != "" || !strings.Contains(gotURL, "api-version=2024-10-21") {
		t.Errorf("azure auth: headers %v url %s", got, gotURL)
	}
	if body["max_completion_tokens"] != float64(100) || body["tool_choice"] != nil || body["max_tokens"] != nil {
		t.Errorf("quirks: %v", body)
	}
}

type rewrite struct{ to string }

func (r *rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	u := *req.URL
	u.Scheme, u.Host = "http", strings.TrimPrefix(r.to, "http://")
	req2 := req.Clone(req.Context())
	req2.URL = &u
	return http.DefaultTransport.RoundTrip(req2)
}

// fakeEditor records calls and serves fs and terminal methods.
type fakeEditor struct {
	mu    sync.Mutex
	files map[string]string
	calls []string
}

func (f *fakeEditor) CanReadFile() bool  { return true }
func (f *fakeEditor) CanWriteFile() bool { return true }
func (f *fakeEditor) CanTerminal() bool  { return true }
func (f *fakeEditor) ReadTextFile(_ context.Context, path string, _, _ int) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "fs/read_text_file")
	return f.files[path], nil
}
func (f *fakeEditor) WriteTextFile(_ context.Context, path, content string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "fs/write_text_file")
	f.files[path] = content
	return nil
}
func (f *fakeEditor) Call(_ context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, method)
	switch method {
	case "terminal/create":
		return json.RawMessage(`{"terminalId":"term1"}`), nil
	case "terminal/wait_for_exit":
		return json.RawMessage(`{"exitCode":0}`), nil
	case "terminal/output":
		return json.RawMessage(`{"output":"from editor","truncated":false}`), nil
	}
	return json.RawMessage(`null`), nil
}

func TestSession_UsesEditorFSAndTerminal(t *testing.T) {
	srv := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"n.txt","content":"hi"}`}}},
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"ls"}`}}},
		mockllm.OpenAITurn{Text: "done"},
	)
	defer srv.Close()
	root := t.TempDir()
	ed := &fakeEditor{files: map[string]string{}}
	s, err := New(Profile{Name: "t", BaseURL: srv.URL, Model: "m", Local: true, Stream: true}, Options{}).
		Start(context.Background(), adapters.SessionOptions{Cwd: root, Editor: ed, Permission: newGate(t, root).answer(allowOnce).ask})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, _ := fixture.Prompt(context.Background(), s, adapters.TextPrompt("go"))
	evs, stop := drain(t, ch)
	real, _ := filepath.EvalSymlinks(root)
	if stop != adapters.StopEndTurn || ed.files[filepath.Join(real, "n.txt")] != "hi" {
		t.Fatalf("stop=%s files=%v", stop, ed.files)
	}
	if _, err := os.Stat(filepath.Join(root, "n.txt")); err == nil {
		t.Fatal("wrote locally despite editor fs")
	}
	calls := strings.Join(ed.calls, ",")
	if !strings.Contains(calls, "fs/write_text_file") || !strings.Contains(calls, "terminal/create,terminal/wait_for_exit,terminal/output,terminal/release") {
		t.Fatalf("calls %s", calls)
	}
	sawTerminal := false
	for _, e := range evs {
		if e.Tool != nil && len(e.Tool.Content) > 0 && e.Tool.Content[0].TerminalID == "term1" {
			sawTerminal = true
		}
	}
	if !sawTerminal {
		t.Fatal("no terminal content in tool updates")
	}
}
