package acp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/personas"
)

// /compare runs a persona of the session's cwd (Settings.Registry, not
// hub's) as a candidate: with its prompt, and without the tools it does
// not list.
func TestCompare_PersonaOfTheSessionsCwd(t *testing.T) {
	repo := compareRepo(t)
	base := adapters.NewRegistry()
	base.Register(replay.New(""))
	resultWriter(t, base, "good", "pass")
	mock := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"result.txt","content":"x"}`}}},
		mockllm.OpenAITurn{Text: "Reviewed."})
	t.Cleanup(mock.Close)
	here := adapters.NewRegistry()
	for _, n := range base.Names() {
		a, _ := base.Get(n)
		here.Register(a)
	}
	here.Register(&personas.Adapter{P: personas.Persona{Name: "reviewer", Description: "Reviews.", Tools: []string{"Read"}, ToolsSet: true,
		Prompt: "You are the reviewer.", Trusted: true},
		Backend: openai.New(openai.Profile{Name: "native", BaseURL: mock.URL, Model: "m", Local: true, ContextWindow: 100000}, openai.Options{IdleTimeout: time.Minute})})
	c := startClient(t, Options{Registry: base, DefaultAgent: "replay", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Second,
		Settings: func(string) (Settings, error) { return Settings{Registry: here}, nil }, Candidate: candidate})
	c.perm = selectKind("allow_once")
	c.init(schema.ClientCapabilities{})
	sid := c.newSession(repo)
	if stop := c.prompt(sid, "/compare reviewer,good -- write result.txt"); stop != schema.StopEndTurn {
		t.Fatalf("stop reason %s", stop)
	}
	_, card := cardOf(t, compareCards(c.updates(sid)), "reviewer-1")
	if got := strings.Join(card.statuses, " "); got != "pending in_progress completed" {
		t.Errorf("reviewer-1's statuses %q (titles %q, content %q)", got, card.titles, card.text)
	}
	reqs := mock.Requests()
	if len(reqs) == 0 || !strings.Contains(mockllm.MessageText(reqs[0].Messages[0]), "You are the reviewer.") {
		t.Fatalf("the reviewer's model was not given its prompt (%d requests)", len(reqs))
	}
	for _, tl := range reqs[0].Tools {
		if f, _ := tl["function"].(map[string]any); f["name"] == "write_file" {
			t.Error("the reviewer was offered write_file")
		}
	}
}

// A fork into another project may name a persona of that project
// (_meta.hub.agent): it starts there with the persona's prompt, briefed
// on the record; a name neither hub nor that project knows is refused.
func TestFork_IntoAPersonaOfTheForksCwd(t *testing.T) {
	backend := &forgetful{}
	base := adapters.NewRegistry()
	base.Register(backend)
	other := t.TempDir()
	here := adapters.NewRegistry()
	here.Register(backend)
	here.Register(&personas.Adapter{P: personas.Persona{Name: "fixer", Description: "Fixes.", Prompt: "You fix.", Trusted: true}, Backend: backend})
	c := newClient(t, "", func(o *Options) {
		o.Registry, o.DefaultAgent = base, "forgetful"
		o.Settings = func(cwd string) (Settings, error) {
			if cwd == other {
				return Settings{Registry: here}, nil
			}
			return Settings{}, nil
		}
	})
	sid, _ := c.start(t)
	c.prompt(sid, "the bug is in parser.go")
	c.prompt(fork(t, c, sid, other, "fixer"), "fix it")
	backend.mu.Lock()
	last, instr := backend.prompts[len(backend.prompts)-1], backend.instr[len(backend.instr)-1]
	backend.mu.Unlock()
	if !strings.Contains(last, "the bug is in parser.go") || !strings.HasPrefix(instr, "You fix.") {
		t.Errorf("the fork's first prompt %q, instructions %q: want the briefing and the persona's prompt", last, instr)
	}
	if _, e := c.call("session/fork", map[string]any{"sessionId": sid, "cwd": t.TempDir(), "mcpServers": []any{},
		"_meta": map[string]any{"hub": map[string]any{"agent": "fixer"}}}); e == nil || !strings.Contains(e.Message, "unknown agent") {
		t.Errorf("a fork elsewhere into fixer: %+v, want unknown agent", e)
	}
}

// A persona on an agent CLI gets hub's delegation server only when its
// tools list delegation (Claude's Task, hub's delegate_agent) or leave
// every tool, or it names its delegates.
func TestDelegation_PersonaWithoutDelegationGetsNoHubServer(t *testing.T) {
	tests := []struct {
		name      string
		tools     []string
		delegates []string
		offered   bool
	}{
		{"every tool", nil, nil, true},
		{"Claude's Task", []string{"Read", "Task"}, nil, true},
		{"hub's name", []string{"Read", "delegate_agent"}, nil, true},
		{"delegates named", []string{"Read"}, []string{"helper"}, true},
		{"not listed", []string{"Read", "Grep"}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := &delegatingAgent{}
			c, _ := delegationClient(t, root, "", func(o *Options) {
				o.Registry.Register(&personas.Adapter{P: personas.Persona{Name: "lead", Description: "d", Tools: tc.tools, ToolsSet: tc.tools != nil,
					Delegates: tc.delegates, Trusted: true},
					Backend: root})
				o.DefaultAgent = "lead"
			})
			sid, _ := c.start(t)
			c.prompt(sid, "helper: x")
			root.mu.Lock()
			defer root.mu.Unlock()
			if len(root.starts) != 1 || (hubEntry(root.starts[0].MCPServers).Name != "") != tc.offered {
				t.Fatalf("%d starts, MCP servers %+v: want hub's offered %v", len(root.starts), root.starts[0].MCPServers, tc.offered)
			}
		})
	}
}

// A persona that names its delegates delegates to those only, through
// hub's MCP server too (its file bound only the native delegate_agent):
// another agent is a one-line tool error and never starts.
func TestDelegation_PersonaDelegatesOnlyToThoseItNames(t *testing.T) {
	for _, tc := range []struct{ prompt, want string }{
		{"other: clean up", `tool error: delegate refused: persona lead may delegate only to helper, not "other"`},
		{"helper: clean up", "root got: done"},
	} {
		t.Run(tc.prompt, func(t *testing.T) {
			root := &delegatingAgent{}
			other := replay.New(scriptFile(t, `{"event":{"type":"text","text":"other ran"}}`))
			other.AgentName = "other"
			c, _ := delegationClient(t, root, `{"event":{"type":"text","text":"done"}}`, func(o *Options) {
				o.Registry.Register(other)
				o.Registry.Register(&personas.Adapter{P: personas.Persona{Name: "lead", Description: "d", Delegates: []string{"helper"}, Trusted: true},
					Backend: root})
				o.DefaultAgent = "lead"
			})
			sid, _ := c.start(t)
			c.prompt(sid, tc.prompt)
			if got := agentText(c.updates(sid)); got != tc.want {
				t.Fatalf("root answer %q, want %q", got, tc.want)
			}
		})
	}
}

// A persona's own deny and ask rules bind the agents it delegates to, and
// so does its plan or read-only mode: a delegate starts in such a mode
// when it has one, and its commands are refused, never asked, either way.
// It never widens through a delegate. Its tools list stays its own.
func TestDelegation_PersonasOwnRulesBindItsDelegates(t *testing.T) {
	tests := []struct {
		name      string
		rules     []config.PermissionRule
		tools     []string
		want      string
		editorSaw bool
		// down: the persona's own agent is down, and root takes its turn
		// over (running as the persona).
		down bool
		// mode is the persona's; noModes leaves the helper without any;
		// helperMode is the mode the helper must start in.
		mode, helperMode string
		noModes          bool
	}{
		{"its deny refuses the delegate's command", []config.PermissionRule{{Tool: "Bash", Decision: "deny"}}, nil, "root got: refused", false, false, "", "", false},
		{"its ask asks the editor", []config.PermissionRule{{Tool: "Bash", Decision: "ask"}}, nil, "root got: removed", true, false, "", "", false},
		{"a tool it does not list is the delegate's to use", nil, []string{"Read"}, "root got: removed", true, false, "", "", false},
		{"its deny binds the delegates of its fallback agent", []config.PermissionRule{{Tool: "Bash", Decision: "deny"}}, nil, "root got: refused", false, true, "", "", false},
		{name: "its plan mode: the delegate starts in plan mode, its command refused", want: "root got: refused", mode: "plan", helperMode: "plan"},
		{name: "its read-only mode on a delegate with plan mode", want: "root got: refused", mode: "read-only", helperMode: "plan"},
		{name: "its plan mode on a delegate without modes", want: "root got: refused", mode: "plan", noModes: true},
		{name: "its plan mode binds the delegates of its fallback agent", want: "root got: refused", down: true, mode: "plan", helperMode: "plan"},
		{name: "a default mode binds nothing", want: "root got: removed", editorSaw: true, mode: "default"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := &delegatingAgent{}
			c, helper := delegationClient(t, root, helperScript, func(o *Options) {
				if h, _ := o.Registry.Get("helper"); tc.noModes {
					h.(*replay.Adapter).Caps.Modes = nil
				}
				var backend adapters.Adapter = root
				if tc.down {
					backend, o.Fallback = &scripted{name: "inner", startErr: fmt.Errorf("down: %w", adapters.ErrNotAuthenticated)}, map[string][]string{"lead": {"root"}}
				}
				o.Registry.Register(&personas.Adapter{P: personas.Persona{Name: "lead", Description: "d", Permissions: tc.rules,
					Tools: tc.tools, ToolsSet: tc.tools != nil, Delegates: []string{"helper"}, Mode: tc.mode, Trusted: true}, Backend: backend})
				o.DefaultAgent = "lead"
			})
			var asked []string
			var mu sync.Mutex
			allow := selectKind("allow_once")
			c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
				mu.Lock()
				asked = append(asked, p.ToolCall.Title)
				mu.Unlock()
				return allow(p)
			}
			sid, _ := c.start(t)
			c.prompt(sid, "helper: clean up")
			mu.Lock()
			defer mu.Unlock()
			if got := agentText(c.updates(sid)); !strings.HasSuffix(got, tc.want) || (len(asked) > 0) != tc.editorSaw {
				t.Fatalf("root answer %q, editor asked %q: want %q, asked %v", got, asked, tc.want, tc.editorSaw)
			}
			if starts := helper.Starts(); len(starts) != 1 || tc.mode != "" && starts[0].Mode != tc.helperMode {
				t.Fatalf("the helper's starts %+v: want one in mode %q", starts, tc.helperMode)
			}
		})
	}
}

// midAgent is a second agent that delegates what it is asked to, as root.
type midAgent struct{ *delegatingAgent }

func (midAgent) Name() string { return "midagent" }

// In nested delegation, an agent that took a delegated persona's turn
// over delegates further as that persona: the persona's deny rule and its
// plan mode bind that agent's own delegates.
func TestDelegation_FallbackDelegateDelegatesAsItsPersona(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []config.PermissionRule
		mode  string
	}{
		{"its deny rule", []config.PermissionRule{{Tool: "Bash", Decision: "deny"}}, ""},
		{"its plan mode", nil, personas.ModePlan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := &delegatingAgent{}
			c, helper := delegationClient(t, root, helperScript, func(o *Options) {
				o.DelegationDepth, o.Fallback = 2, map[string][]string{"mid": {"midagent"}}
				o.Registry.Register(midAgent{&delegatingAgent{}})
				o.Registry.Register(&personas.Adapter{P: personas.Persona{Name: "mid", Description: "d", Permissions: tc.rules, Mode: tc.mode, Trusted: true},
					Backend: &scripted{name: "inner", startErr: fmt.Errorf("down: %w", adapters.ErrNotAuthenticated)}})
			})
			var asked []string
			var mu sync.Mutex
			allow := selectKind("allow_once")
			c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
				mu.Lock()
				asked = append(asked, p.ToolCall.Title)
				mu.Unlock()
				return allow(p)
			}
			sid, _ := c.start(t)
			c.prompt(sid, "mid: helper: clean up")
			mu.Lock()
			defer mu.Unlock()
			if got := agentText(c.updates(sid)); !strings.HasSuffix(got, "root got: root got: refused") || len(asked) > 0 {
				t.Fatalf("root answer %q, editor asked %q: want the helper's command refused, unasked", got, asked)
			}
			if starts := helper.Starts(); len(starts) != 1 || tc.mode != "" && starts[0].Mode != tc.mode {
				t.Fatalf("the helper's starts %+v", starts)
			}
		})
	}
}

// The select says of each persona what 'hub agents' says (its Verdict): one
// that cannot run as written is listed so, not hidden nor called ready.
func TestAgentSelect_SaysEachPersonasVerdict(t *testing.T) {
	tests := []struct {
		name    string
		persona *personas.Adapter
		want    string
	}{
		{"unknown agent", &personas.Adapter{P: personas.Persona{Name: "lost", Agent: "nosuch", Trusted: true}}, "lost (cannot run)"},
		{"mode its agent lacks", &personas.Adapter{P: personas.Persona{Name: "odd", Mode: "nosuchmode", Trusted: true}, Backend: replay.New("")}, "odd (cannot run)"},
		{"untrusted", &personas.Adapter{P: personas.Persona{Name: "evil", Untrusted: "not trusted"}, Backend: replay.New("")}, "evil (untrusted)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, "", func(o *Options) {
				o.Registry = adapters.NewRegistry()
				o.Registry.Register(replay.New(""))
				o.Registry.Register(tc.persona)
				o.WarmAgents = -1
			})
			c.init(schema.ClientCapabilities{})
			var r schema.NewSessionResponse
			c.must("session/new", schema.NewSessionRequest{Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, &r)
			sel := agentSelect(t, r.ConfigOptions)
			if len(sel) != 2 || sel[1].Name != tc.want || sel[1].Description == "" {
				t.Fatalf("agent select %+v, want %q second with its reason", sel, tc.want)
			}
		})
	}
}

// Personas follow the agents in the select, each described with what it
// is for and the agent it runs on; an untrusted one is not offered.
func TestAgentSelect_ListsPersonasAfterTheAgents(t *testing.T) {
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(replay.New(""))
		o.Registry.Register(named{replay.New(""), "zeta"})
		o.Registry.Register(&personas.Adapter{P: personas.Persona{Name: "auditor", Description: "Audits a change.\nMore.", Trusted: true}, Backend: replay.New("")})
		o.Registry.Register(&personas.Adapter{P: personas.Persona{Name: "evil", Description: "d", Untrusted: "not trusted"}, Backend: replay.New("")})
		o.WarmAgents = -1
	})
	c.init(schema.ClientCapabilities{})
	var r schema.NewSessionResponse
	c.must("session/new", schema.NewSessionRequest{Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, &r)
	sel := agentSelect(t, r.ConfigOptions)
	if got := values(sel); !slices.Equal(got, []string{"replay", "zeta", "auditor", "evil"}) {
		t.Fatalf("agent select %v, want the agents then the personas", got)
	}
	if o := sel[3]; !strings.Contains(o.Name, "untrusted") || !strings.Contains(o.Description, "not trusted") {
		t.Errorf("untrusted persona listed as %+v, want it marked with its reason", o)
	}
	// Choosing the untrusted one is refused; the session keeps its agent.
	if _, err := c.call("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: r.SessionID, ConfigID: "agent", Value: json.RawMessage(`"evil"`)}); err == nil {
		t.Error("the untrusted persona was chosen")
	}
	if d := sel[2].Description; !strings.Contains(d, "Audits a change.") || strings.Contains(d, "More.") || !strings.Contains(d, "replay") {
		t.Errorf("persona description %q, want its first line and its backend", d)
	}
	// Choosing it mid-session is an agent switch like any other.
	var set schema.SetSessionConfigOptionResponse
	c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: r.SessionID, ConfigID: "agent", Value: json.RawMessage(`"auditor"`)}, &set)
	for _, o := range set.ConfigOptions {
		if o.ID == "agent" && fmt.Sprint(o.CurrentValue) != "auditor" {
			t.Errorf("agent after the switch = %v", o.CurrentValue)
		}
	}
}
