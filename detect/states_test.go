package detect_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters/agentspec"
	"github.com/hubdev/hub/detect"
)

// cliFixture is how each CLI reaches each doctor state in a fake world.
type cliFixture struct {
	agent, okVer, oldVer string
	apiKey               func(w *world)
	login                func(w *world) // subscription or account login
	loginState           string
}

var cliFixtures = []cliFixture{
	{agent: "claude", okVer: "2.1.330 (Claude Code)", oldVer: "1.0.0 (Claude Code)",
		apiKey: func(w *world) { w.env["ANTHROPIC_API_KEY"] = "sk" },
		login:  func(w *world) { w.file(".claude/.credentials.json", `{}`) }, loginState: agentspec.AuthSubscription},
	{agent: "codex", okVer: "codex-cli 0.169.0", oldVer: "codex-cli 0.1.0",
		apiKey: func(w *world) { w.env["CODEX_API_KEY"] = "sk" },
		login:  func(w *world) { w.file(".codex/auth.json", `{"tokens":{"id_token":"x"}}`) }, loginState: agentspec.AuthSubscription},
	{agent: "gemini", okVer: "0.61.0", oldVer: "0.1.0",
		apiKey: func(w *world) { w.env["GEMINI_API_KEY"] = "k" },
		login:  func(w *world) { w.file(".gemini/oauth_creds.json", `{}`) }, loginState: agentspec.AuthSubscription},
	{agent: "qodercli", okVer: "1.1.52", oldVer: "0.9.0",
		apiKey: func(w *world) { w.env["QODER_PERSONAL_ACCESS_TOKEN"] = "t" },
		login:  func(w *world) { w.file(".qoder/.auth/token", "x") }, loginState: agentspec.AuthLoggedIn},
	{agent: "pi", okVer: "0.73.1", oldVer: "0.10.0",
		apiKey: func(w *world) { w.env["ANTHROPIC_API_KEY"] = "sk" },
		login:  func(w *world) { w.file(".pi/agent/auth.json", `{"anthropic":{}}`) }, loginState: agentspec.AuthLoggedIn},
}

func TestRun_EveryStateForEveryCLI(t *testing.T) {
	for _, f := range cliFixtures {
		states := []struct {
			name    string
			setup   func(w *world)
			ready   bool
			inst    bool
			vstatus string
			auth    string
			fix     string
		}{
			{name: "missing", setup: func(*world) {}, auth: agentspec.AuthNone, fix: "not installed: npm install -g"},
			{name: "no auth", setup: func(w *world) { w.agent(f.agent, f.okVer) }, inst: true, vstatus: "ok", auth: agentspec.AuthNone, fix: "not logged in:"},
			{name: "api key", setup: func(w *world) { w.agent(f.agent, f.okVer); f.apiKey(w) }, ready: true, inst: true, vstatus: "ok", auth: agentspec.AuthAPIKey},
			{name: "login", setup: func(w *world) { w.agent(f.agent, f.okVer); f.login(w) }, ready: true, inst: true, vstatus: "ok", auth: f.loginState},
			{name: "too old", setup: func(w *world) { w.agent(f.agent, f.oldVer); f.login(w) }, inst: true, vstatus: "too_old", auth: f.loginState, fix: "older than tested"},
			{name: "hanging version", setup: func(w *world) { w.fake(w.bin, f.agent, "hang"); f.login(w) }, inst: true, vstatus: "timeout", auth: f.loginState, fix: "did not answer within"},
		}
		for _, s := range states {
			t.Run(f.agent+"/"+s.name, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t)
				s.setup(w)
				// Only the hanging CLI meets the probe's timeout; the others
				// get room for a loaded machine (the suite runs in parallel
				// under -race).
				timeout := 10 * time.Second
				if s.vstatus == "timeout" {
					timeout = 500 * time.Millisecond
				}
				a := find(t, w.run(func(o *detect.Options) { o.Agents, o.Timeout = []string{f.agent}, timeout }), f.agent)
				if a.Ready != s.ready || a.Installed != s.inst || a.VersionStatus != s.vstatus || a.Auth.State != s.auth {
					t.Fatalf("got %+v", a)
				}
				if !strings.Contains(a.Fix, s.fix) || (s.fix == "") != (a.Fix == "") {
					t.Errorf("fix %q, want %q", a.Fix, s.fix)
				}
			})
		}
	}
}
