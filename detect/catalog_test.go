package detect_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters/agentspec"
	"github.com/hubdev/hub/adapters/catalog"
	"github.com/hubdev/hub/detect"
)

func TestRun_AbsentCatalogAgentsCostNoProcess(t *testing.T) {
	skipNoLoginShell(t)
	w := newWorld(t)
	// A login shell that records every lookup: built-in CLIs missing from
	// PATH are looked up there, catalogued agents never are.
	log := w.home + "/shell.log"
	w.env["SHELL"], w.env["FAKE_LOG"] = w.fake(w.home, "sh", "helper:loginsh"), log
	r := w.run(nil)
	for _, a := range r.Agents {
		if a.Catalog {
			t.Errorf("%s listed though not installed", a.Name)
		}
	}
	data, _ := os.ReadFile(log)
	if !strings.Contains(string(data), "'claude'") {
		t.Fatalf("the recording shell saw no lookup at all (%q): this test would prove nothing", data)
	}
	for _, e := range catalog.Entries() {
		if strings.Contains(string(data), "'"+e.Bin+"'") {
			t.Errorf("login shell asked for catalogued %s:\n%s", e.Bin, data)
		}
	}
}

func TestRun_AllListsCatalogAgentsWithHowToInstall(t *testing.T) {
	w := newWorld(t)
	r := w.run(func(o *detect.Options) { o.All = true })
	for _, e := range catalog.Entries() {
		a := find(t, r, e.Name)
		if a.Installed || a.Ready || !a.Catalog || a.Fix != "not installed: "+e.InstallHint() {
			t.Errorf("%s: %+v", e.Name, a)
		}
	}
	if a := find(t, w.run(func(o *detect.Options) { o.Agents = []string{"opencode"} }), "opencode"); a.Installed || !strings.Contains(a.Fix, "npm install -g opencode-ai") {
		t.Errorf("--agent opencode on a machine without it: %+v", a)
	}
}

func TestRun_InstalledCatalogAgent(t *testing.T) {
	tests := []struct {
		name, agent string
		setup       func(w *world)
		ready       bool
		auth, fix   string
	}{
		{"optional login, unknown", "opencode", nil, true, agentspec.AuthUnknown, ""},
		{"login file", "opencode", func(w *world) { w.file(".local/share/opencode/auth.json", "{}") }, true, agentspec.AuthLoggedIn, ""},
		{"required login missing", "auggie", nil, false, agentspec.AuthNone, "not logged in: run `auggie login`"},
		{"required login present", "auggie", func(w *world) { w.file(".augment/session.json", "{}") }, true, agentspec.AuthLoggedIn, ""},
		{"token in env", "copilot", func(w *world) { w.env["GH_TOKEN"] = "t" }, true, agentspec.AuthAPIKey, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			e, _ := catalog.Lookup(tt.agent)
			w.fake(w.bin, e.Bin, "helper:acp")
			if tt.setup != nil {
				tt.setup(w)
			}
			a := find(t, w.run(nil), tt.agent)
			if !a.Installed || !a.Catalog || a.Kind != "acp" || a.Version != "1.2.3" || a.Ready != tt.ready || a.Auth.State != tt.auth || a.Fix != tt.fix {
				t.Fatalf("%+v", a)
			}
			if a.Capabilities == nil || !a.Capabilities.Images {
				t.Fatalf("capabilities %+v, want the initialize answer's", a.Capabilities)
			}
		})
	}
}
