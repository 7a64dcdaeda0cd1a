package personas

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// capture is a backend that keeps the options it was started with.
type capture struct {
	fakeBackend
	caps adapters.Capabilities
	got  adapters.SessionOptions
}

func (c *capture) Capabilities() adapters.Capabilities { return c.caps }
func (c *capture) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	c.got = o
	return nil, nil
}

func permReq(name string, kind adapters.ToolKind, input string) *adapters.PermissionRequest {
	return adapters.NewPermissionRequest(adapters.ToolCall{ID: "1", Name: name, Title: name, Kind: kind, RawInput: json.RawMessage(input)}, nil)
}

// A persona's mode applies where the backend has it, except a mode that
// would skip hub's gate: that one is refused with a warning.
func TestApply_ModeNeverBypassesTheGate(t *testing.T) {
	caps := adapters.Capabilities{Modes: []adapters.Option{{ID: "default"}, {ID: "plan"}, {ID: "bypassPermissions"}}}
	for _, tc := range []struct{ mode, want, warn string }{
		{"plan", "plan", ""},
		{"bypassPermissions", "", "skip hub's permission gate"},
		{"read-only", "", "refuses its writes"},
	} {
		p := Persona{Name: "p", Mode: tc.mode, Trusted: true}
		got, warns, _ := p.Apply(adapters.SessionOptions{}, caps, "claude")
		if got.Mode != tc.want || (tc.warn == "") != (len(warns) == 0) || !strings.Contains(strings.Join(warns, " "), tc.warn) {
			t.Errorf("mode %s: got %q, warnings %q", tc.mode, got.Mode, warns)
		}
	}
}

// A fallback persona runs under the persona whose turn it takes over
// (conversation.FallbackAgents): its tools never widen the first one's.
func TestApply_FallbackPersonaKeepsTheCarriedTools(t *testing.T) {
	caps := adapters.Capabilities{Modes: []adapters.Option{{ID: "plan"}}}
	carried := Persona{Name: "reader", Tools: []string{"Read", "Grep"}, ToolsSet: true, Trusted: true}
	for _, own := range []Persona{
		{Name: "nofetch", Disallowed: []string{"WebFetch"}, Trusted: true},
		{Name: "wide", Tools: []string{"Read", "Bash", "mcp__db__query"}, ToolsSet: true, Trusted: true},
	} {
		b := &capture{caps: caps}
		outer := &Adapter{P: carried, Backend: &Adapter{P: own, Backend: b}, As: "second"}
		if _, err := outer.Start(context.Background(), adapters.SessionOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, tool := range []struct {
			name string
			kind adapters.ToolKind
		}{{"mcp__db__query", adapters.KindOther}, {"delegate_agent", adapters.KindOther}, {"Bash", adapters.KindExecute}} {
			if b.got.Tools.Permits(tool.name, tool.kind) {
				t.Errorf("%s taking %s's turn over: filter %+v permits %s", own.Name, carried.Name, b.got.Tools, tool.name)
			}
		}
		if !b.got.Tools.Permits("Read", adapters.KindRead) {
			t.Errorf("%s taking %s's turn over: filter %+v refuses Read, which both list", own.Name, carried.Name, b.got.Tools)
		}
	}
}

// Doctor, hub agents and the run tell one truth about a persona's mode: what doctor
// says cannot run never starts its backend (in a mode that might grant
// more than the persona says), and what it passes starts in the mode
// the run gives it. An agent that tells its modes only when a session
// starts (an ACP agent) gets the mode to set there, which refuses one it
// lacks, and is not refused before (it never would have started).
func TestPersona_ModeDoctorAndRunAgree(t *testing.T) {
	caps := adapters.Capabilities{Modes: []adapters.Option{{ID: "default"}, {ID: "acceptEdits"}, {ID: "bypassPermissions"}}}
	for _, tc := range []struct {
		mode, want string
		later      bool
	}{
		{mode: ""}, {mode: "default"}, {mode: "acceptEdits", want: "acceptEdits"}, {mode: "bypassPermissions"}, {mode: "plan"}, {mode: "read-only"},
		{mode: "turbo"}, {mode: "dontAsk"}, {mode: "readonly"}, {mode: "AcceptEdits"},
		{mode: "architect", want: "architect", later: true}, {mode: "bypassPermissions", later: true}, {mode: "plan", later: true},
	} {
		b := &capture{caps: caps}
		if tc.later {
			b.caps = adapters.Capabilities{ModesLater: true}
		}
		a := &Adapter{P: Persona{Name: "p", Mode: tc.mode, Trusted: true}, Backend: b}
		_, ok := Check(a)
		ready := a.Ready() // what hub agents and the editor's agent select say
		_, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: "x"})
		if started := b.got.Cwd == "x"; ok != (err == nil) || started != ok || (ready == nil) != ok || b.got.Mode != tc.want {
			t.Errorf("mode %q: doctor ok %v, ready %v, start error %v, started %v in mode %q", tc.mode, ok, ready, err, started, b.got.Mode)
		}
	}
}

// On an agent that asks hub before its tools (a CLI, an ACP agent), the
// persona's gate refuses what it does not list before the front end is
// asked, and names the persona in what reaches the user. Its prompt and
// skills go through the instructions channel; its delegates narrow
// delegation.
func TestApply_GateInstructionsAndDelegates(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	cwd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(cwd, ".hub", "skills", "go-style")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: go-style\ndescription: Go style\nallowed-tools: Bash(*)\n---\nUse gofmt.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Parse("p.md", []byte("---\nname: auditor\ndescription: d\ntools: Read, Bash\nskills: go-style\ndelegates: [codex]\n"+
		"permissions:\n  deny: [\"Bash(git push:*)\"]\n---\nYou audit.\n"))
	if err != nil {
		t.Fatal(err)
	}
	p.Trusted = true
	backend := &capture{caps: adapters.Capabilities{Instructions: true}}
	var asked []string
	var delegated []string
	opts := adapters.SessionOptions{Cwd: cwd, Instructions: "front end's",
		Permission: func(_ context.Context, req *adapters.PermissionRequest) adapters.PermissionDecision {
			if req.Refusal != nil { // as the session's gate does (conversation.Gate)
				return adapters.PermissionDecision{OptionID: "reject_once", Kind: adapters.RejectOnce}
			}
			asked = append(asked, req.Tool.Title)
			return adapters.PermissionDecision{OptionID: "allow_once", Kind: adapters.AllowOnce}
		},
		Delegate: func(_ context.Context, r adapters.DelegateRequest) (string, error) {
			delegated = append(delegated, r.Agent)
			return "ok", nil
		},
		DelegateAgents: []string{"codex", "gemini", "reviewer (Reviews.; runs on claude)"}}
	if _, err := (&Adapter{P: p, Backend: backend}).Start(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	got := backend.got
	for _, tc := range []struct {
		req     *adapters.PermissionRequest
		allowed bool
	}{
		{permReq("Edit", adapters.KindEdit, `{"file_path":"a.go"}`), false},
		{permReq("Bash", adapters.KindExecute, `{"command":"git push origin main"}`), false},
		{permReq("WebFetch", adapters.KindFetch, `{"url":"https://example.com"}`), false},
		{permReq("Bash", adapters.KindExecute, `{"command":"go test ./..."}`), true},
	} {
		if d := got.Permission(context.Background(), tc.req); d.Allowed() != tc.allowed {
			t.Errorf("%s %s: allowed %v, want %v", tc.req.Tool.Name, tc.req.Tool.RawInput, d.Allowed(), tc.allowed)
		}
	}
	if !slices.Equal(asked, []string{"auditor: Bash"}) {
		t.Errorf("the front end was asked %q, want only the allowed call, named after the persona", asked)
	}
	if !strings.HasPrefix(got.Instructions, "You audit.") || !strings.Contains(got.Instructions, "front end's") || !strings.Contains(got.Instructions, "Use gofmt.") {
		t.Errorf("instructions %q", got.Instructions)
	}
	if got.Tools == nil || got.Tools.Permits("Edit", adapters.KindEdit) || !got.Tools.Permits("Bash", adapters.KindExecute) {
		t.Errorf("tools %+v", got.Tools)
	}
	if !slices.Equal(got.DelegateAgents, []string{"codex"}) {
		t.Errorf("delegate agents %q", got.DelegateAgents)
	}
	if _, err := got.Delegate(context.Background(), adapters.DelegateRequest{Agent: "gemini"}); err == nil {
		t.Error("delegated to an agent the persona does not name")
	}
	if _, err := got.Delegate(context.Background(), adapters.DelegateRequest{Agent: "codex"}); err != nil || !slices.Equal(delegated, []string{"codex"}) {
		t.Errorf("delegate to codex: %v, %q", err, delegated)
	}
}

// A persona's ask rule marks a request must-ask for the session's gate,
// on every backend, reading the command as a deny rule does: no shell
// wrapper, sudo, env or chain hides the part it names; its deny rule
// still refuses, and a command it does not name goes on unmarked.
func TestApply_AskRulesMarkEveryShape(t *testing.T) {
	p, err := Parse("p.md", []byte("---\nname: careful\ndescription: d\n"+
		"permissions:\n  ask: [\"Bash(git push:*)\"]\n  deny: [\"Bash(npm publish:*)\"]\n---\nYou are careful.\n"))
	if err != nil {
		t.Fatal(err)
	}
	p.Trusted = true
	for _, tc := range []struct{ cmd, want string }{
		{"git push origin main", "ask"},
		{"bash -c 'git push'", "ask"},
		{"sh -lc \"git push --tags\"", "ask"},
		{"env GIT_TRACE=1 git push", "ask"},
		{"sudo git push", "ask"},
		{"git status; git push", "ask"},
		{"make && git push", "ask"},
		{"true || git -C . push", "ask"},
		{"git status && npm publish", "deny"},
		{"git status", ""},
		{"git pushx", ""},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			backend := &capture{caps: adapters.Capabilities{Instructions: true}}
			var seen *adapters.PermissionRequest
			opts := adapters.SessionOptions{Cwd: t.TempDir(), Permission: func(_ context.Context, req *adapters.PermissionRequest) adapters.PermissionDecision {
				seen = req
				return adapters.PermissionDecision{Kind: adapters.RejectOnce}
			}}
			if _, err := (&Adapter{P: p, Backend: backend}).Start(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			input, _ := json.Marshal(map[string]string{"command": tc.cmd})
			backend.got.Permission(context.Background(), permReq("Bash", adapters.KindExecute, string(input)))
			got := ""
			switch {
			case seen.Refusal != nil:
				got = "deny"
			case seen.MustAsk != "":
				got = "ask"
				if !strings.Contains(seen.MustAsk, "careful") {
					t.Errorf("must-ask reason %q does not name the persona", seen.MustAsk)
				}
			}
			if got != tc.want {
				t.Errorf("%q marked %q, want %q", tc.cmd, got, tc.want)
			}
		})
	}
}
