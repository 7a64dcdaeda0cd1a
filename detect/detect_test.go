package detect_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/agentspec"
	"github.com/hubdev/hub/adapters/all"
	"github.com/hubdev/hub/detect"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// world is a temp HOME plus a PATH dir of fake agent binaries.
type world struct {
	t     testing.TB
	home  string
	bin   string
	cache string
	env   map[string]string
	cfg   *config.Config
	// routes sends requests for a host:port (a preset's local server) to
	// a test server; other hosts but 127.0.0.1 fail without network.
	routes map[string]string
}

// testTransport keeps probes off the network: only loopback test servers
// answer.
type testTransport struct{ routes map[string]string }

func (tt testTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if to, ok := tt.routes[req.URL.Host]; ok {
		req = req.Clone(req.Context())
		req.URL.Scheme, req.URL.Host = "http", to
	} else if !strings.HasPrefix(req.URL.Host, "127.0.0.1:") {
		return nil, errors.New("test: no network to " + req.URL.Host)
	}
	return http.DefaultTransport.RoundTrip(req)
}

func newWorld(t testing.TB) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{t: t, home: filepath.Join(root, "home"), bin: filepath.Join(root, "bin"), cache: filepath.Join(root, "cache"),
		cfg:    &config.Config{Agents: map[string]config.AgentConfig{}, Providers: map[string]config.ProviderConfig{}},
		routes: map[string]string{}}
	for _, d := range []string{w.home, w.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = map[string]string{"HOME": w.home, "PATH": strings.Join([]string{w.bin, "/usr/bin", "/bin"}, string(os.PathListSeparator))}
	if runtime.GOOS == "windows" { // what a .cmd shim needs to start
		w.env["PATH"] = w.bin
		for _, k := range []string{"SystemRoot", "ComSpec", "PATHEXT"} {
			w.env[k] = os.Getenv(k)
		}
	}
	return w
}

// fake installs in dir a program called name doing proctest's ops (the
// test binary under that name), told what to do by the world's env.
func (w *world) fake(dir, name string, ops ...string) string {
	w.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	p, env := proctest.Fake(w.t, dir, name, ops...)
	if k, v, ok := strings.Cut(env, "="); ok {
		w.env[k] = v
	}
	return p
}

func (w *world) agent(name, versionOut string) string {
	return w.fake(w.bin, name, "out:"+versionOut+"\n")
}

func (w *world) file(rel, content string) string {
	w.t.Helper()
	p := filepath.Join(w.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		w.t.Fatal(err)
	}
	return p
}

func (w *world) options() detect.Options {
	env := make([]string, 0, len(w.env))
	for k, v := range w.env {
		env = append(env, k+"="+v)
	}
	return detect.Options{Config: w.cfg, Specs: all.DoctorSpecs(), Env: env, CacheDir: w.cache, Timeout: 2 * time.Second,
		HTTP: &http.Client{Transport: testTransport{w.routes}}}
}

func (w *world) run(mod func(*detect.Options)) *detect.Report {
	w.t.Helper()
	o := w.options()
	if mod != nil {
		mod(&o)
	}
	r, err := detect.Run(context.Background(), o)
	if err != nil {
		w.t.Fatal(err)
	}
	return r
}

func find(t *testing.T, r *detect.Report, name string) detect.Agent {
	t.Helper()
	for _, a := range r.Agents {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no %s in report", name)
	return detect.Agent{}
}

func TestRun_AgentStates(t *testing.T) {
	cases := []struct {
		name      string
		agent     string
		setup     func(w *world)
		ready     bool
		installed bool
		version   string
		vstatus   string
		auth      string
		source    string // suffix of Auth.Source
		warn      string
		fix       string
	}{
		{name: "missing", agent: "claude", setup: func(*world) {}, fix: "npm install -g @anthropic-ai/claude-code", auth: agentspec.AuthNone},
		{name: "installed without auth", agent: "claude", setup: func(w *world) { w.agent("claude", "2.1.330 (Claude Code)") },
			installed: true, version: "2.1.330", vstatus: "ok", auth: agentspec.AuthNone, fix: "not logged in: run `claude`"},
		{name: "api key", agent: "claude", setup: func(w *world) { w.agent("claude", "2.1.330 (Claude Code)"); w.env["ANTHROPIC_API_KEY"] = "sk" },
			ready: true, installed: true, version: "2.1.330", vstatus: "ok", auth: agentspec.AuthAPIKey, source: "ANTHROPIC_API_KEY"},
		{name: "subscription", agent: "claude", setup: func(w *world) {
			w.agent("claude", "2.1.330 (Claude Code)")
			w.file(".claude/.credentials.json", `{"claudeAiOauth":{}}`)
		}, ready: true, installed: true, version: "2.1.330", vstatus: "ok", auth: agentspec.AuthSubscription, source: ".credentials.json"},
		{name: "api key beside subscription warns about billing", agent: "claude", setup: func(w *world) {
			w.agent("claude", "2.1.330 (Claude Code)")
			w.file(".claude/.credentials.json", `{}`)
			w.env["ANTHROPIC_API_KEY"] = "sk"
		}, ready: true, installed: true, version: "2.1.330", vstatus: "ok", auth: agentspec.AuthAPIKey, source: "ANTHROPIC_API_KEY", warn: "bills this key instead of your subscription"},
		{name: "claude config dir env", agent: "claude", setup: func(w *world) {
			w.agent("claude", "2.1.330 (Claude Code)")
			w.env["CLAUDE_CONFIG_DIR"] = w.home + "/alt"
			w.file("alt/.credentials.json", `{}`)
		}, ready: true, installed: true, version: "2.1.330", vstatus: "ok", auth: agentspec.AuthSubscription, source: "alt/.credentials.json"},
		{name: "codex too old", agent: "codex", setup: func(w *world) {
			w.agent("codex", "codex-cli 0.50.0")
			w.file(".codex/auth.json", `{"auth_mode":"apikey","OPENAI_API_KEY":"sk"}`)
		}, installed: true, version: "0.50.0", vstatus: "too_old", auth: agentspec.AuthAPIKey, source: "auth.json", fix: "older than tested"},
		{name: "codex chatgpt with OPENAI_API_KEY warns", agent: "codex", setup: func(w *world) {
			w.agent("codex", "codex-cli 0.169.0")
			w.file(".codex/auth.json", `{"tokens":{"id_token":"x"}}`)
			w.env["OPENAI_API_KEY"] = "sk"
		}, ready: true, installed: true, version: "0.169.0", vstatus: "ok", auth: agentspec.AuthSubscription, warn: "OPENAI_API_KEY is set beside a ChatGPT login"},
		{name: "codex not logged in", agent: "codex", setup: func(w *world) { w.agent("codex", "codex-cli 0.169.0") },
			installed: true, version: "0.169.0", vstatus: "ok", auth: agentspec.AuthNone, fix: "codex login"},
		{name: "gemini oauth plus key warns", agent: "gemini", setup: func(w *world) {
			w.agent("gemini", "0.61.0")
			w.file(".gemini/oauth_creds.json", `{}`)
			w.env["GEMINI_API_KEY"] = "k"
		}, ready: true, installed: true, version: "0.61.0", vstatus: "ok", auth: agentspec.AuthAPIKey, source: "GEMINI_API_KEY", warn: "beside a Google login"},
		{name: "gemini newer than tested still ready", agent: "gemini", setup: func(w *world) {
			w.agent("gemini", "1.2.0")
			w.file(".gemini/oauth_creds.json", `{}`)
		}, ready: true, installed: true, version: "1.2.0", vstatus: "newer_than_tested", auth: agentspec.AuthSubscription, warn: "version 1.2.0 is newer than hub was tested with (>=0.50.0 <1.0.0)"},
		{name: "codex CODEX_API_KEY beside ChatGPT warns", agent: "codex", setup: func(w *world) {
			w.agent("codex", "codex-cli 0.169.0")
			w.file(".codex/auth.json", `{"tokens":{"id_token":"x"}}`)
			w.env["CODEX_API_KEY"] = "sk"
		}, ready: true, installed: true, version: "0.169.0", vstatus: "ok", auth: agentspec.AuthAPIKey, source: "CODEX_API_KEY", warn: "codex bills the key instead of your ChatGPT plan"},
		{name: "codex custom provider with its key", agent: "codex", setup: func(w *world) {
			w.agent("codex", "codex-cli 0.169.0")
			w.file(".codex/config.toml", "model_provider = \"azure\"\n[model_providers.azure]\nenv_key = \"AZURE_OPENAI_API_KEY\"\n")
			w.env["AZURE_OPENAI_API_KEY"] = "k"
		}, ready: true, installed: true, version: "0.169.0", vstatus: "ok", auth: agentspec.AuthAPIKey, source: "AZURE_OPENAI_API_KEY"},
		{name: "codex custom provider without its key", agent: "codex", setup: func(w *world) {
			w.agent("codex", "codex-cli 0.169.0")
			w.file(".codex/config.toml", "model_provider = \"azure\"\n[model_providers.azure]\nenv_key = \"AZURE_OPENAI_API_KEY\"\n")
		}, installed: true, version: "0.169.0", vstatus: "ok", auth: agentspec.AuthNone, source: "AZURE_OPENAI_API_KEY", fix: "no API key: set AZURE_OPENAI_API_KEY"},
		{name: "codex keyless local provider", agent: "codex", setup: func(w *world) {
			w.agent("codex", "codex-cli 0.169.0")
			w.file(".codex/config.toml", "model_provider = \"mock\"\n[model_providers.mock]\nbase_url = \"http://127.0.0.1:9/v1\"\n")
		}, ready: true, installed: true, version: "0.169.0", vstatus: "ok", auth: agentspec.AuthNotRequired, source: "(model_provider mock)"},
		{name: "codex oss provider", agent: "codex", setup: func(w *world) {
			w.agent("codex", "codex-cli 0.169.0")
			w.file(".codex/config.toml", "model_provider = \"oss\"\n")
		}, ready: true, installed: true, version: "0.169.0", vstatus: "ok", auth: agentspec.AuthNotRequired, source: "(model_provider oss)"},
		{name: "claude apiKeyHelper", agent: "claude", setup: func(w *world) {
			w.agent("claude", "2.1.330 (Claude Code)")
			w.file(".claude/settings.json", `{"apiKeyHelper":"~/bin/get-key"}`)
		}, ready: true, installed: true, version: "2.1.330", vstatus: "ok", auth: agentspec.AuthAPIKey, source: "settings.json (apiKeyHelper)"},
		{name: "pi oauth login is a subscription", agent: "pi", setup: func(w *world) {
			w.agent("pi", "0.73.1")
			w.file(".pi/agent/auth.json", `{"anthropic":{"type":"oauth","refresh":"r"}}`)
		}, ready: true, installed: true, version: "0.73.1", vstatus: "ok", auth: agentspec.AuthSubscription, source: "auth.json"},
		{name: "pi stored key", agent: "pi", setup: func(w *world) {
			w.agent("pi", "0.73.1")
			w.file(".pi/agent/auth.json", `{"openai":{"type":"api_key","key":"sk"}}`)
		}, ready: true, installed: true, version: "0.73.1", vstatus: "ok", auth: agentspec.AuthAPIKey, source: "auth.json"},
		{name: "qodercli token", agent: "qodercli", setup: func(w *world) { w.agent("qodercli", "1.1.52"); w.env["QODER_PERSONAL_ACCESS_TOKEN"] = "t" },
			ready: true, installed: true, version: "1.1.52", vstatus: "ok", auth: agentspec.AuthAPIKey},
		{name: "qodercli login", agent: "qodercli", setup: func(w *world) { w.agent("qodercli", "1.1.52"); w.file(".qoder/.auth/creds", "x") },
			ready: true, installed: true, version: "1.1.52", vstatus: "ok", auth: agentspec.AuthLoggedIn},
		{name: "qodercli run but never logged in", agent: "qodercli", setup: func(w *world) {
			w.agent("qodercli", "1.1.52")
			w.file(".qoder/.auth/machine_id", "0f6c1c2e-5d1b-4c1e-9d7e-2f4b3a1c9e77")
			w.file(".qoder/.auth/.credential-transaction", "")
		}, installed: true, version: "1.1.52", vstatus: "ok", auth: agentspec.AuthNone, fix: "qodercli login"},
		{name: "pi auth.json", agent: "pi", setup: func(w *world) { w.agent("pi", "0.73.1"); w.file(".pi/agent/auth.json", `{"anthropic":{}}`) },
			ready: true, installed: true, version: "0.73.1", vstatus: "ok", auth: agentspec.AuthLoggedIn},
		{name: "login shell fallback", agent: "pi", setup: func(w *world) {
			skipNoLoginShell(w.t)
			hidden := filepath.Join(w.home, ".nvm", "bin")
			w.fake(hidden, "pi", "out:0.73.1\n")
			w.env["SHELL"], w.env["FAKE_LOGIN_PATH"] = w.fake(filepath.Join(w.home, "sh"), "fakesh", "helper:loginsh"), hidden
			w.env["OPENAI_API_KEY"] = "sk"
		}, installed: true, version: "0.73.1", vstatus: "ok", auth: agentspec.AuthAPIKey, warn: "only on your login shell's PATH", fix: "add "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			c.setup(w)
			a := find(t, w.run(func(o *detect.Options) { o.Agents = []string{c.agent} }), c.agent)
			if a.Ready != c.ready || a.Installed != c.installed || a.Version != c.version || a.VersionStatus != c.vstatus || a.Auth.State != c.auth {
				t.Fatalf("got %+v", a)
			}
			if !strings.HasSuffix(a.Auth.Source, filepath.FromSlash(c.source)) {
				t.Errorf("auth source %q, want suffix %q", a.Auth.Source, c.source)
			}
			if c.warn != "" && !strings.Contains(strings.Join(a.Warnings, "\n"), c.warn) {
				t.Errorf("warnings %q lack %q", a.Warnings, c.warn)
			}
			if c.warn == "" && len(a.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", a.Warnings)
			}
			if !strings.Contains(a.Fix, c.fix) || (c.fix == "") != (a.Fix == "") {
				t.Errorf("fix %q, want %q", a.Fix, c.fix)
			}
			if a.ConfigDir == "" || a.SkillsDir == "" {
				t.Errorf("dirs not reported: %+v", a)
			}
		})
	}
}

func TestRun_HangingVersionTimesOutAlone(t *testing.T) {
	if underWine() {
		t.Skip("under Wine a .cmd started beside another program holds that program's output pipe " +
			"(a hanging .exe does not), so the other probe never sees its output end")
	}
	w := newWorld(t)
	w.fake(w.bin, "gemini", "hang")
	w.agent("claude", "2.1.330 (Claude Code)")
	// Long enough for claude's probe on a loaded machine: the test is that
	// gemini's hang (30 s, far past it) ends in a timeout of its own, not
	// how soon.
	timeout := 3 * time.Second
	r := w.run(func(o *detect.Options) { o.Timeout = timeout })
	g := find(t, r, "gemini")
	if g.VersionStatus != "timeout" || g.Ready || !strings.Contains(g.Fix, "did not answer") {
		t.Fatalf("gemini %+v", g)
	}
	if c := find(t, r, "claude"); c.Version != "2.1.330" {
		t.Fatalf("claude not probed: %+v", c)
	}
}

func TestRun_CacheHitAndInvalidation(t *testing.T) {
	w := newWorld(t)
	p := w.agent("codex", "codex-cli 0.169.0")
	if r := w.run(nil); r.Cached {
		t.Fatal("first run cached")
	}
	if r := w.run(nil); !r.Cached || find(t, r, "codex").Version != "0.169.0" {
		t.Fatal("second run not served from cache")
	}
	if r := w.run(func(o *detect.Options) { o.Refresh = true }); r.Cached {
		t.Fatal("--refresh served the cache")
	}
	// Upgrading the binary writes a new file (its mtime changes): a copy of
	// the one a new fake links to (every fake links to the test binary).
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	newer := w.fake(t.TempDir(), filepath.Base(p), "out:codex-cli 0.170.0\n")
	if data, err := os.ReadFile(newer); err != nil || os.WriteFile(p, data, 0o755) != nil {
		t.Fatalf("upgrade: %v", err)
	}
	if r := w.run(nil); r.Cached || find(t, r, "codex").Version != "0.170.0" {
		t.Fatal("binary change did not invalidate the cache")
	}
	w.file(".codex/auth.json", `{"tokens":{}}`)
	if r := w.run(nil); r.Cached || find(t, r, "codex").Auth.State != agentspec.AuthSubscription {
		t.Fatal("login did not invalidate the cache")
	}
	w.env["CODEX_API_KEY"] = "x"
	if r := w.run(nil); r.Cached {
		t.Fatal("env change did not invalidate the cache")
	}
	// A key only an agent's own config names (codex env_key) counts too.
	w.run(nil)
	w.env["MY_PROVIDER_API_KEY"] = "k"
	if r := w.run(nil); r.Cached {
		t.Fatal("a new *_KEY variable did not invalidate the cache")
	}
	if r := w.run(func(o *detect.Options) { o.Now = func() time.Time { return time.Now().Add(time.Hour) } }); r.Cached {
		t.Fatal("expired cache served")
	}
}

func TestRun_CacheKeepsOneReportPerOptionSet(t *testing.T) {
	w := newWorld(t)
	w.agent("codex", "codex-cli 0.169.0")
	w.agent("claude", "2.1.330 (Claude Code)")
	only := func(o *detect.Options) { o.Agents = []string{"codex"} }
	w.run(nil)
	w.run(only)
	if r := w.run(nil); !r.Cached {
		t.Fatal("the full report was probed again after an --agent run")
	}
	if r := w.run(only); !r.Cached || len(r.Agents) != 1 {
		t.Fatalf("the --agent report was not kept beside the full one: cached=%v agents=%d", r.Cached, len(r.Agents))
	}
}

func TestRun_ACPAndNative(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(rw, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer good" {
			rw.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = rw.Write([]byte(`{"data":[]}`))
	}))
	defer srv.Close()
	w := newWorld(t)
	w.fake(w.bin, "my-acp", "helper:acp")
	w.fake(w.bin, "not-acp", "exit:0")
	w.cfg.Agents["broken"] = config.AgentConfig{Protocol: "acp", Command: config.Command{"not-acp"}}
	w.cfg.Agents["mine"] = config.AgentConfig{Protocol: "acp", Command: config.Command{"my-acp", "--acp"}}
	w.cfg.Agents["gone"] = config.AgentConfig{Protocol: "acp", Command: config.Command{"no-such-acp"}}
	w.cfg.Agents["pasted"] = config.AgentConfig{Type: "custom", Command: config.Command{"my-acp"}}
	w.cfg.Providers["local"] = config.ProviderConfig{BaseURL: srv.URL + "/v1", APIKeyEnv: "LOCAL_KEY"}
	w.cfg.Providers["badkey"] = config.ProviderConfig{BaseURL: srv.URL + "/v1", APIKeyEnv: "BAD_KEY"}
	w.cfg.Providers["nokey"] = config.ProviderConfig{BaseURL: srv.URL + "/v1"}
	w.cfg.Providers["down"] = config.ProviderConfig{BaseURL: "http://127.0.0.1:1/v1"}
	w.env["LOCAL_KEY"], w.env["BAD_KEY"] = "good", "bad"
	r := w.run(func(o *detect.Options) { o.Probe = true })
	if a := find(t, r, "mine"); !a.Ready || a.Kind != "acp" || a.FoundVia != "config" || a.Capabilities == nil || !a.Capabilities.Images {
		t.Errorf("mine (capabilities from its initialize answer) %+v", a)
	}
	if a := find(t, r, "broken"); a.Ready || !strings.Contains(a.Fix, "does not speak ACP") {
		t.Errorf("an agent that exits instead of answering initialize: %+v", a)
	}
	if a := find(t, r, "pasted"); !a.Ready || a.Kind != "acp" {
		t.Errorf("pasted Zed entry %+v", a)
	}
	if a := find(t, r, "gone"); a.Ready || !strings.Contains(a.Fix, "no-such-acp") {
		t.Errorf("gone %+v", a)
	}
	if a := find(t, r, "local"); !a.Ready || !a.Endpoint.Reachable || !a.Endpoint.KeySet || a.Auth.State != agentspec.AuthAPIKey {
		t.Errorf("local %+v %+v", a, a.Endpoint)
	}
	if a := find(t, r, "badkey"); a.Ready || !strings.Contains(a.Fix, "rejected the key") {
		t.Errorf("badkey %+v", a)
	}
	if a := find(t, r, "nokey"); a.Auth.State != agentspec.AuthNotRequired {
		t.Errorf("nokey %+v", a)
	}
	if a := find(t, r, "down"); a.Ready || a.Endpoint.Reachable || !strings.Contains(a.Fix, "does not answer") {
		t.Errorf("down %+v", a)
	}
	// A missing key needs no network round trip to report.
	if a := find(t, r, "openai"); a.Ready || a.Fix != "no API key: set OPENAI_API_KEY" || a.Endpoint.Probed {
		t.Errorf("openai %+v", a)
	}
	// Without --probe the key alone decides.
	if a := find(t, w.run(func(o *detect.Options) { o.Refresh = true }), "down"); !a.Ready || a.Endpoint.Probed {
		t.Errorf("down without probe %+v", a)
	}
}

// Agents of one name (a CLI and a provider both called claude, ...) are
// reported in one order, the CLI first, whatever the other names are.
func TestRun_SameNameAgentsInAFixedOrder(t *testing.T) {
	for _, name := range []string{"claude", "codex", "gemini", "pi", "qodercli"} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			w.cfg.Providers[name] = config.ProviderConfig{BaseURL: "http://127.0.0.1:1/v1"}
			var kinds []string
			for _, a := range w.run(nil).Agents {
				if a.Name == name {
					kinds = append(kinds, a.Kind)
				}
			}
			if strings.Join(kinds, ",") != "cli,native" {
				t.Fatalf("%s reported as %v, want the CLI then the provider", name, kinds)
			}
		})
	}
}

func TestRun_UnknownAgent(t *testing.T) {
	w := newWorld(t)
	if _, err := detect.Run(context.Background(), func() detect.Options { o := w.options(); o.Agents = []string{"nope"}; return o }()); !errors.Is(err, detect.ErrUnknownAgent) {
		t.Fatalf("err = %v", err)
	}
}

func TestFormat_Fits80Columns(t *testing.T) {
	w := newWorld(t)
	w.agent("claude", "2.1.330 (Claude Code)")
	w.file(".claude/.credentials.json", `{}`)
	w.env["ANTHROPIC_API_KEY"] = "sk"
	var b strings.Builder
	detect.Format(&b, w.run(nil), false)
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 80 && !strings.HasPrefix(l, "  ") {
			t.Errorf("row wider than 80: %q", l)
		}
	}
	for _, want := range []string{"AGENT", "claude       ready", "warning:", "fix: not installed: npm install -g @openai/codex"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// npm on Windows installs PREFIX\gemini.cmd beside
// PREFIX\node_modules\@google\gemini-cli, with no link to follow; the
// shim here would hang if it were run.
func TestRun_VersionFromNPMShim(t *testing.T) {
	w := newWorld(t)
	w.fake(w.bin, "gemini", "hang")
	pkgDir := filepath.Join(w.bin, "node_modules", "@google", "gemini-cli")
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgDir, "package.json"), []byte(`{"name":"@google/gemini-cli","version":"0.61.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	w.file(".gemini/oauth_creds.json", `{}`)
	a := find(t, w.run(func(o *detect.Options) { o.Agents, o.Timeout = []string{"gemini"}, 200*time.Millisecond }), "gemini")
	if a.Version != "0.61.0" || a.VersionFrom != "package.json" || a.VersionStatus != "ok" {
		t.Fatalf("version %q from %q (%s), want 0.61.0 from package.json", a.Version, a.VersionFrom, a.VersionStatus)
	}
}

// An npm install is versioned from its package.json: the CLI is not run
// (qodercli writes to ~/.qoder on every run; node start-up dominates a cold
// doctor). The linked file here is empty: it would fail if it were run,
// and it is a file of the package (a fake would link to the test binary).
func TestRun_VersionFromNPMPackage(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("npm links no binary on Windows (see TestRun_VersionFromNPMShim)")
	}
	w := newWorld(t)
	pkgDir := filepath.Join(w.home, "lib", "node_modules", "@google", "gemini-cli")
	if err := os.Chmod(w.file("lib/node_modules/@google/gemini-cli/bundle/gemini.js", ""), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgDir, "package.json"), []byte(`{"name":"@google/gemini-cli","version":"0.61.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(pkgDir, "bundle", "gemini.js"), filepath.Join(w.bin, "gemini")); err != nil {
		t.Fatal(err)
	}
	w.file(".gemini/oauth_creds.json", `{}`)
	a := find(t, w.run(func(o *detect.Options) { o.Agents, o.Timeout = []string{"gemini"}, 200*time.Millisecond }), "gemini")
	if a.Version != "0.61.0" || a.VersionFrom != "package.json" || a.VersionStatus != "ok" || !a.Ready {
		t.Fatalf("got %+v", a)
	}
}

// The adapter's exact tested version is reported but does not become the
// minimum: an older patch release inside the supported range is ready.
func TestRun_TestedVersionIsNotTheMinimum(t *testing.T) {
	w := newWorld(t)
	w.agent("claude", "2.1.100 (Claude Code)")
	w.env["ANTHROPIC_API_KEY"] = "sk"
	reg := adapters.NewRegistry()
	reg.Register(stubAdapter{name: "claude", caps: adapters.Capabilities{TestedVersions: "2.1.330"}})
	a := find(t, w.run(func(o *detect.Options) { o.Agents, o.Registry = []string{"claude"}, reg }), "claude")
	if !a.Ready || a.VersionStatus != "ok" || a.TestedRange != ">=2.1.0 <3.0.0" || a.TestedVersion != "2.1.330" {
		t.Fatalf("got %+v", a)
	}
	w.agent("claude", "3.0.1 (Claude Code)")
	a = find(t, w.run(func(o *detect.Options) { o.Agents, o.Registry, o.Refresh = []string{"claude"}, reg, true }), "claude")
	if !a.Ready || a.VersionStatus != "newer_than_tested" || !strings.Contains(strings.Join(a.Warnings, "\n"), "npm install -g @anthropic-ai/claude-code@2.1.330") {
		t.Fatalf("got %+v", a)
	}
}

type stubAdapter struct {
	name string
	caps adapters.Capabilities
}

func (s stubAdapter) Name() string                        { return s.name }
func (s stubAdapter) Capabilities() adapters.Capabilities { return s.caps }
func (s stubAdapter) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	return nil, errors.New("stub")
}

// An agent CLI outside the PATH hub got (an editor started from the Dock
// or Start menu) is found where its package manager put it, and is ready:
// hub starts it from there.
func TestRun_FindsAgentInKnownInstallDir(t *testing.T) {
	tests := []struct {
		name, goos, dir, bin string
		env                  map[string]string
	}{
		{"windows npm prefix", "windows", "AppData/Roaming/npm", "claude.cmd", map[string]string{"APPDATA": "AppData/Roaming"}},
		{"macOS ~/.local/bin", "darwin", ".local/bin", "claude", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.goos != "windows" && runtime.GOOS == "windows" {
				t.Skip("Windows files carry no executable bit, so a Unix program cannot be laid out here")
			}
			w := newWorld(t)
			w.env["PATH"] = w.bin
			w.env["SHELL"] = "/nonexistent/shell"
			for k, v := range tt.env {
				w.env[k] = filepath.Join(w.home, v)
			}
			p := w.fake(filepath.Join(w.home, tt.dir), tt.bin, "out:2.1.330 (Claude Code)\n")
			w.env["ANTHROPIC_API_KEY"] = "k"
			a := find(t, w.run(func(o *detect.Options) { o.GOOS = tt.goos; o.NoCache = true; o.Agents = []string{"claude"} }), "claude")
			if !a.Installed || a.Path != p || a.FoundVia != "known-dir" {
				t.Fatalf("installed %v path %q via %q, want %q via known-dir", a.Installed, a.Path, a.FoundVia, p)
			}
			if !a.Ready || a.Fix != "" {
				t.Errorf("ready %v, fix %q; want ready", a.Ready, a.Fix)
			}
		})
	}
}
