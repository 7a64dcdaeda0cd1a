package detect_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hubdev/hub/adapters/agentspec"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/detect"
	"github.com/hubdev/hub/internal/config"
)

// modelsServer answers GET /v1/models and counts requests.
func modelsServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/v1/models" {
			http.NotFound(rw, r)
			return
		}
		_, _ = rw.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// --probe asks an azure resource for its models as the native loop asks
// it for completions: the api-version parameter and the api-key header,
// not a bearer token, so doctor and the loop cannot disagree.
func TestRun_AzureProbeAsTheLoopAsks(t *testing.T) {
	var got atomic.Pointer[http.Request]
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		got.Store(r.Clone(r.Context()))
		if r.Header.Get("api-key") != "azkey" || r.URL.Query().Get("api-version") == "" {
			rw.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = rw.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(srv.Close)
	w := newWorld(t)
	w.routes["res.openai.azure.com"] = srv.Listener.Addr().String()
	w.cfg.Providers["azure"] = config.ProviderConfig{BaseURL: "https://res.openai.azure.com/openai/deployments/d1", Model: "gpt"}
	w.env["AZURE_OPENAI_API_KEY"] = "azkey"
	a := find(t, w.run(func(o *detect.Options) { o.Probe = true }), "azure")
	r := got.Load()
	if r == nil {
		t.Fatalf("no request reached the resource: %+v %+v", a, a.Endpoint)
	}
	if r.URL.Path != "/openai/deployments/d1/models" || r.Header.Get("api-key") != "azkey" || r.Header.Get("Authorization") != "" ||
		!strings.HasPrefix(r.URL.RawQuery, "api-version=") {
		t.Fatalf("probe sent %s %s headers %v", r.Method, r.URL, r.Header)
	}
	if !a.Ready || !a.Endpoint.Reachable || a.Fix != "" {
		t.Fatalf("azure %+v %+v", a, a.Endpoint)
	}
}

func TestRun_NativePresetsAllReported(t *testing.T) {
	w := newWorld(t)
	r := w.run(nil)
	for _, n := range openai.PresetNames() {
		a := find(t, r, n)
		if a.Kind != "native" || a.Endpoint == nil || a.Endpoint.Preset != n || a.Endpoint.Configured {
			t.Errorf("%s: %+v %+v", n, a, a.Endpoint)
		}
	}
}

func TestRun_NativePresetStates(t *testing.T) {
	cases := []struct {
		name    string
		agent   string
		setup   func(w *world, srvHost string)
		probe   bool
		ready   bool
		auth    string
		base    string
		keyEnv  string
		probed  bool
		reach   bool
		fix     string
		hits    int32
		cfgured bool
	}{
		{name: "keyed without key", agent: "groq", setup: func(*world, string) {}, auth: agentspec.AuthNone,
			base: "https://api.groq.com/openai/v1", keyEnv: "GROQ_API_KEY", fix: "no API key: set GROQ_API_KEY"},
		{name: "keyed without key is not probed", agent: "together", setup: func(*world, string) {}, probe: true, auth: agentspec.AuthNone,
			base: "https://api.together.xyz/v1", keyEnv: "TOGETHER_API_KEY", fix: "set TOGETHER_API_KEY"},
		{name: "keyed with key", agent: "groq", setup: func(w *world, _ string) { w.env["GROQ_API_KEY"] = "gsk" },
			ready: true, auth: agentspec.AuthAPIKey, base: "https://api.groq.com/openai/v1", keyEnv: "GROQ_API_KEY"},
		{name: "keyed with key probed", agent: "openrouter", setup: func(w *world, host string) {
			w.env["OPENROUTER_API_KEY"] = "k"
			w.routes["openrouter.ai"] = host
		}, probe: true, auth: agentspec.AuthAPIKey, base: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY",
			probed: true, reach: true, ready: true, hits: 0 /* path /api/v1/models: 404 still reachable */},
		{name: "local without probe stays offline", agent: "ollama", setup: func(w *world, host string) { w.routes["localhost:11434"] = host },
			ready: true, auth: agentspec.AuthNotRequired, base: "http://localhost:11434/v1"},
		{name: "local up", agent: "ollama", setup: func(w *world, host string) { w.routes["localhost:11434"] = host }, probe: true,
			ready: true, auth: agentspec.AuthNotRequired, base: "http://localhost:11434/v1", probed: true, reach: true, hits: 1},
		{name: "local down", agent: "lmstudio", setup: func(*world, string) {}, probe: true,
			auth: agentspec.AuthNotRequired, base: "http://localhost:1234/v1", probed: true, fix: "does not answer: is the server running?"},
		{name: "azure needs a base_url", agent: "azure", setup: func(*world, string) {}, auth: agentspec.AuthUnknown,
			keyEnv: "AZURE_OPENAI_API_KEY", fix: "[providers.azure] base_url"},
		{name: "configured profile from a preset", agent: "work", setup: func(w *world, _ string) {
			w.cfg.Providers["work"] = config.ProviderConfig{Preset: "groq", Model: "m"}
			w.env["GROQ_API_KEY"] = "gsk"
		}, ready: true, auth: agentspec.AuthAPIKey, base: "https://api.groq.com/openai/v1", keyEnv: "GROQ_API_KEY", cfgured: true},
		{name: "configured profile with unknown preset", agent: "bad", setup: func(w *world, _ string) {
			w.cfg.Providers["bad"] = config.ProviderConfig{Preset: "nope"}
		}, auth: agentspec.AuthUnknown, fix: `unknown preset "nope"`, cfgured: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, hits := modelsServer(t)
			w := newWorld(t)
			c.setup(w, strings.TrimPrefix(srv.URL, "http://"))
			a := find(t, w.run(func(o *detect.Options) { o.Agents, o.Probe = []string{c.agent}, c.probe }), c.agent)
			ep := a.Endpoint
			if a.Ready != c.ready || a.Auth.State != c.auth || ep == nil || ep.BaseURL != c.base || ep.KeyEnv != c.keyEnv ||
				ep.Probed != c.probed || ep.Reachable != c.reach || ep.Configured != c.cfgured {
				t.Fatalf("got %+v\nendpoint %+v", a, ep)
			}
			if !strings.Contains(a.Fix, c.fix) || (c.fix == "") != (a.Fix == "") {
				t.Errorf("fix %q, want %q", a.Fix, c.fix)
			}
			if c.hits > 0 && hits.Load() != c.hits || !c.probe && hits.Load() != 0 {
				t.Errorf("server hit %d times", hits.Load())
			}
		})
	}
}

func TestRun_NativePresetDisabledAndCacheKey(t *testing.T) {
	w := newWorld(t)
	w.cfg.Agents["vllm"] = config.AgentConfig{Disabled: true}
	r := w.run(nil)
	for _, a := range r.Agents {
		if a.Name == "vllm" {
			t.Fatal("disabled preset reported")
		}
	}
	if r := w.run(nil); !r.Cached {
		t.Fatal("second run not cached")
	}
	w.env["TOGETHER_API_KEY"] = "k"
	if r := w.run(nil); r.Cached || !find(t, r, "together").Ready {
		t.Fatal("setting a preset's key did not invalidate the cache")
	}
	if r := w.run(func(o *detect.Options) { o.Probe = true }); r.Cached {
		t.Fatal("--probe served the cache")
	}
}

func TestFormat_FoldsUnusedPresets(t *testing.T) {
	srv, _ := modelsServer(t)
	w := newWorld(t)
	w.env["GROQ_API_KEY"] = "gsk"
	w.routes["localhost:8000"] = strings.TrimPrefix(srv.URL, "http://")
	render := func(mod func(*detect.Options)) string {
		var b strings.Builder
		detect.Format(&b, w.run(mod), false)
		return b.String()
	}
	out := render(nil)
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 80 && !strings.HasPrefix(l, "  endpoint:") && !strings.HasPrefix(l, "  fix:") {
			t.Errorf("line wider than 80: %q", l)
		}
	}
	for _, want := range []string{
		"groq         ready", "  endpoint: https://api.groq.com/openai/v1 (not checked; --probe)",
		"native presets without API key (set it to enable): gemini-openai GEMINI_API_KEY,",
		"together TOGETHER_API_KEY", "local servers (not checked; --probe): llamacpp localhost:8080,",
		"native presets needing config (hub doctor --agent NAME): azure",
		"openai       not ready",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, row := range []string{"\ntogether ", "\nollama ", "\nazure "} {
		if strings.Contains(out, row) {
			t.Errorf("unused preset has a row %q:\n%s", row, out)
		}
	}
	probed := render(func(o *detect.Options) { o.Probe = true })
	if !strings.Contains(probed, "vllm         ready") || !strings.Contains(probed, "(answers 200 OK)") ||
		!strings.Contains(probed, "local servers not answering: llamacpp localhost:8080, lmstudio localhost:1234,") {
		t.Errorf("probed output:\n%s", probed)
	}
	single := render(func(o *detect.Options) { o.Agents = []string{"together"} })
	if !strings.Contains(single, "together     not ready") || !strings.Contains(single, "fix: no API key: set TOGETHER_API_KEY") {
		t.Errorf("--agent together output:\n%s", single)
	}
}

// Doctor says "not sandboxed" for the native loop when the host's sandbox
// tool is missing, and "off" when [sandbox] turns it off; never nothing.
func TestRun_NativeSandboxLine(t *testing.T) {
	for _, tc := range []struct {
		name, mode, path, want string
	}{
		{"no sandbox tool on PATH", "", "empty", "not sandboxed"},
		{"mode off", "off", "empty", "off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if runtime.GOOS == "darwin" && tc.mode == "" {
				t.Skip("sandbox-exec is found by its absolute path")
			}
			t.Setenv("PATH", t.TempDir())
			w := newWorld(t)
			w.cfg.Sandbox.Mode = tc.mode
			r := w.run(nil)
			if !strings.HasPrefix(r.NativeSandbox, tc.want) {
				t.Errorf("NativeSandbox = %q; want it to start %q", r.NativeSandbox, tc.want)
			}
			var out strings.Builder
			detect.Format(&out, r, false)
			if !strings.Contains(out.String(), "native loop sandbox: "+tc.want) {
				t.Errorf("doctor output lacks the sandbox line:\n%s", out.String())
			}
		})
	}
}
