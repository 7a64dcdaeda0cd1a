package acp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
	"github.com/hubdev/hub/conversation/delegation"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/personas"
)

// A delegate that takes no stdio MCP servers, or a persona whose file
// leaves delegation out, is not given hub's server, and no delegation host
// is kept for it until the session closes; one that takes them is, while
// the depth allows.
func TestDelegation_HostOnlyForADelegateThatTakesHubsServer(t *testing.T) {
	tests := []struct {
		name  string
		caps  adapters.Capabilities
		tools []string // set: helper is a persona with these tools
		depth int
		hosts int
		// fellBack: helper is a plain agent that took the turn of a
		// persona with tools over, running as it
		fellBack bool
	}{
		{"stdio", adapters.Capabilities{MCP: true}, nil, 2, 1, false},
		{"http only", adapters.Capabilities{MCPHTTP: true}, nil, 2, 0, false},
		{"none", adapters.Capabilities{}, nil, 2, 0, false},
		{"deep enough", adapters.Capabilities{MCP: true}, nil, 1, 0, false},
		{"persona that may delegate", adapters.Capabilities{MCP: true}, []string{"Read", "Task"}, 2, 1, false},
		{"persona without delegation", adapters.Capabilities{MCP: true}, []string{"Read"}, 2, 0, false},
		{"fallback agent of a persona that may delegate", adapters.Capabilities{MCP: true}, []string{"Read", "Task"}, 2, 1, true},
		{"fallback agent of a persona without delegation", adapters.Capabilities{MCP: true}, []string{"Read"}, 2, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := replay.New("")
			h.AgentName, h.Caps = "helper", tc.caps
			reg := adapters.NewRegistry()
			if tc.tools != nil && !tc.fellBack {
				reg.Register(&personas.Adapter{P: personas.Persona{Name: "helper", Description: "d", Tools: tc.tools, ToolsSet: true, Trusted: true}, Backend: h})
			} else {
				reg.Register(h)
			}
			s := newServer(Options{Registry: reg, Logger: zerolog.Nop(), StateDir: t.TempDir(), Self: "/usr/local/bin/hub", DelegationDepth: tc.depth})
			defer s.closeBridge()
			ss := &session{srv: s, rec: &Record{Cwd: t.TempDir()}, seenTools: map[string]bool{}}
			defer ss.endDelegates(true)
			helper, _ := reg.Get("helper")
			if tc.fellBack {
				helper = &personas.Adapter{P: personas.Persona{Name: "lead", Description: "d", Tools: tc.tools, ToolsSet: true, Trusted: true}, Backend: h, As: "helper"}
			}
			got := ss.delegateServers([]adapters.Adapter{replay.New("")})(helper)
			ss.mu.Lock()
			hosts := len(ss.delegs)
			ss.mu.Unlock()
			if hosts != tc.hosts || len(got) != tc.hosts {
				t.Fatalf("%d hosts kept, servers %+v; want %d", hosts, got, tc.hosts)
			}
		})
	}
}

// delegatingAgent stands for an agent CLI that calls hub's delegate tool:
// its `hub mcp` child is played in-process, reaching the session through
// the MCP server entry hub handed the agent, dialed once when the agent
// starts, as the real child does. It delegates each prompt ("AGENT: task",
// or "continue: task" for a follow-up of the last delegate session) and
// answers with what came back.
type delegatingAgent struct {
	mu     sync.Mutex
	starts []adapters.SessionOptions
	last   string // the last delegate session
	// detached delegates without the turn's context, so only hub's own
	// cancel can stop the delegate.
	detached bool
	results  chan delegation.Result
	// probes, when set, gets what Dial said at each start.
	probes chan error
	// midTurn, when set, runs in the turn before the delegate call.
	midTurn func()
	// lateChild starts the agent's `hub mcp` child in each turn, as an
	// agent that starts (or restarts) its MCP servers late does.
	lateChild bool
}

func (a *delegatingAgent) Name() string { return "root" }
func (a *delegatingAgent) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{MCP: true, Permissions: true}
}
func (a *delegatingAgent) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	a.mu.Lock()
	a.starts = append(a.starts, o)
	a.mu.Unlock()
	env := hubEntry(o.MCPServers).Env
	remote, _, err := delegation.Dial(func(k string) string { return env[k] }, zerolog.Nop())
	if a.probes != nil {
		a.probes <- err
	}
	return &delegatingSession{a: a, remote: remote, dialErr: err}, nil
}

type delegatingSession struct {
	a       *delegatingAgent
	remote  *delegation.Remote // nil: no hub tool
	dialErr error
}

func (s *delegatingSession) ID() string { return "root-1" }
func (s *delegatingSession) Close() error {
	if s.remote != nil {
		s.remote.Close()
	}
	return nil
}
func (s *delegatingSession) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	agent, task, _ := strings.Cut(prompt[0].Text, ": ")
	remote := s.remote
	if remote == nil {
		emit(adapters.Event{Type: adapters.EventText, Text: fmt.Sprintf("no hub tool (%v)", s.dialErr)})
		return adapters.StopEndTurn, nil
	}
	if s.a.midTurn != nil {
		s.a.midTurn()
	}
	if s.a.lateChild {
		s.a.mu.Lock()
		env := hubEntry(s.a.starts[len(s.a.starts)-1].MCPServers).Env
		s.a.mu.Unlock()
		remote, _, _ = delegation.Dial(func(k string) string { return env[k] }, zerolog.Nop())
		defer remote.Close()
	}
	dctx := ctx
	if s.a.detached {
		dctx = context.Background()
	}
	req := delegation.Request{Agent: agent, Prompt: task}
	s.a.mu.Lock()
	if agent == "continue" {
		req = delegation.Request{Session: s.a.last, Prompt: task}
	}
	s.a.mu.Unlock()
	res, err := remote.Delegate(dctx, req, nil)
	s.a.mu.Lock()
	s.a.last = cmp.Or(res.Session, s.a.last)
	s.a.mu.Unlock()
	if s.a.results != nil {
		s.a.results <- res
	}
	switch {
	case err != nil:
		emit(adapters.Event{Type: adapters.EventText, Text: "tool error: " + err.Error()})
	case res.Error != "":
		emit(adapters.Event{Type: adapters.EventText, Text: "delegate failed: " + res.Error})
	default:
		emit(adapters.Event{Type: adapters.EventText, Text: "root got: " + res.Answer})
	}
	if ctx.Err() != nil {
		return adapters.StopCancelled, nil
	}
	return adapters.StopEndTurn, nil
}

func hubEntry(servers []adapters.MCPServer) adapters.MCPServer {
	for _, m := range servers {
		if m.Name == "hub" {
			return m
		}
	}
	return adapters.MCPServer{}
}

// helperScript asks before running "rm build" and says what happened.
const helperScript = `{"permission":{"tool":{"id":"t1","title":"rm build","kind":"execute"}},` +
	`"allowed":[{"event":{"type":"tool_call","tool":{"id":"t1","title":"rm build","kind":"execute","status":"completed"}}},{"event":{"type":"text","text":"removed"}}],` +
	`"rejected":[{"event":{"type":"text","text":"refused"}}]}`

func delegationClient(t *testing.T, root *delegatingAgent, helper string, mod ...func(*Options)) (*tclient, *replay.Adapter) {
	t.Helper()
	reg := adapters.NewRegistry()
	reg.Register(root)
	h := replay.New(scriptFile(t, helper))
	h.AgentName = "helper"
	reg.Register(h)
	opts := Options{Registry: reg, DefaultAgent: "root", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Second,
		Self: "/usr/local/bin/hub", Delegation: true}
	for _, m := range mod {
		m(&opts)
	}
	return startClient(t, opts), h
}

func agentText(ups []schema.SessionUpdate) string {
	var b strings.Builder
	for _, u := range ups {
		if u.AgentMessageChunk != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text)
		}
	}
	return b.String()
}

// The delegate's permission request reaches the editor naming it; the
// answer decides whether its tool runs; its tool call shows in the root
// session; the root agent gets its answer.
func TestDelegation_PermissionsReachTheEditor(t *testing.T) {
	for _, answer := range []string{"allow_once", "reject_once"} {
		t.Run(answer, func(t *testing.T) {
			root := &delegatingAgent{}
			c, _ := delegationClient(t, root, helperScript)
			var asked []schema.RequestPermissionRequest
			var mu sync.Mutex
			pick := selectKind(answer)
			c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
				mu.Lock()
				asked = append(asked, p)
				mu.Unlock()
				return pick(p)
			}
			sid, _ := c.start(t)
			c.prompt(sid, "helper: clean up")
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 || !strings.HasPrefix(asked[0].ToolCall.Title, "helper: ") || !strings.HasPrefix(asked[0].ToolCall.ToolCallID, "delegate/d-") {
				t.Fatalf("permission requests %+v, want one naming the helper", asked)
			}
			ups := c.updates(sid)
			var title, status string
			for _, u := range ups {
				switch {
				case u.ToolCall != nil:
					title, status = u.ToolCall.Title, u.ToolCall.Status
				case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != "":
					status = u.ToolCallUpdate.Status
				}
			}
			want, wantStatus := "root got: refused", "failed"
			if answer == "allow_once" {
				want, wantStatus = "root got: removed", "completed"
			}
			if got := agentText(ups); got != want {
				t.Fatalf("root answer %q, want %q", got, want)
			}
			if title != "helper: rm build" || status != wantStatus {
				t.Fatalf("tool call shown %q ending %q, want %q", title, status, wantStatus)
			}
		})
	}
}

// Depth 1: the root's delegates get no hub server; depth 2 gives them one.
// A delegation back to the caller is refused with a tool error.
func TestDelegation_DepthAndLoops(t *testing.T) {
	for _, depth := range []int{1, 2} {
		root := &delegatingAgent{}
		c, h := delegationClient(t, root, `{"event":{"type":"text","text":"hi"}}`, func(o *Options) { o.DelegationDepth = depth })
		sid, _ := c.start(t)
		c.prompt(sid, "helper: say hi")
		starts := h.Starts()
		if len(starts) != 1 || (hubEntry(starts[0].MCPServers).Name != "") != (depth > 1) {
			t.Fatalf("depth %d: the delegate's MCP servers %+v", depth, starts[0].MCPServers)
		}
		if starts[0].Access != adapters.AccessAskFirst {
			t.Fatalf("delegate access %q: its side effects must reach the editor", starts[0].Access)
		}
	}
	c, _ := delegationClient(t, &delegatingAgent{}, "")
	sid, _ := c.start(t)
	c.prompt(sid, "root: do it yourself")
	if got := agentText(c.updates(sid)); !strings.Contains(got, "tool error:") || !strings.Contains(got, "loop") {
		t.Fatalf("loop answer %q", got)
	}
}

// An editor session lives for days: a tmp cleaner that removes the
// delegation socket, or its directory, between turns or during one does
// not stop the agent's `hub mcp`, started before with the address in its
// environment, from delegating.
func TestDelegation_SurvivesTheSocketRemoved(t *testing.T) {
	skipWithoutSocketFile(t)
	tests := []struct {
		name        string
		dir, during bool
	}{
		{"socket between turns", false, false},
		{"directory between turns", true, false},
		{"directory during a turn", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := &delegatingAgent{}
			c, _ := delegationClient(t, root, `{"event":{"type":"text","text":"hi"}}`)
			sid, _ := c.start(t)
			c.prompt(sid, "helper: say hi")
			root.mu.Lock()
			sock := hubEntry(root.starts[0].MCPServers).Env[delegation.EnvSocket]
			root.mu.Unlock()
			if tc.dir {
				sock = filepath.Dir(sock)
			}
			remove := func() {
				if err := os.RemoveAll(sock); err != nil {
					t.Error(err)
				}
			}
			if tc.during {
				root.midTurn = remove
			} else {
				remove()
			}
			c.prompt(sid, "helper: say hi again")
			if got := agentText(c.updates(sid)); strings.Count(got, "root got: hi") != 2 {
				t.Fatalf("agent text %q, want two answers from the helper", got)
			}
		})
	}
}

// A `hub mcp` child an agent starts mid-session, after a tmp cleaner
// removed the socket, has no connection on which to ask for it again:
// each prompt makes it again before the turn, so the child reaches hub.
func TestDelegation_AChildStartedAfterTheSocketWasRemoved(t *testing.T) {
	skipWithoutSocketFile(t)
	root := &delegatingAgent{lateChild: true}
	c, _ := delegationClient(t, root, `{"event":{"type":"text","text":"hi"}}`)
	sid, _ := c.start(t)
	c.prompt(sid, "helper: say hi")
	root.mu.Lock()
	sock := hubEntry(root.starts[0].MCPServers).Env[delegation.EnvSocket]
	root.mu.Unlock()
	if err := os.RemoveAll(filepath.Dir(sock)); err != nil {
		t.Fatal(err)
	}
	c.prompt(sid, "helper: say hi again")
	if got := agentText(c.updates(sid)); strings.Count(got, "root got: hi") != 2 {
		t.Fatalf("agent text %q, want two answers from the helper", got)
	}
}

// The agent of a session started after a tmp cleaner removed the socket
// directory reaches hub from its start: its `hub mcp` child checks its
// parent once, before any turn.
func TestDelegation_ANewSessionAfterTheSocketWasRemoved(t *testing.T) {
	skipWithoutSocketFile(t)
	root := &delegatingAgent{probes: make(chan error, 2)}
	c, _ := delegationClient(t, root, `{"event":{"type":"text","text":"hi"}}`)
	c.start(t)
	if err := <-root.probes; err != nil {
		t.Fatalf("the first agent's child: %v", err)
	}
	root.mu.Lock()
	sock := hubEntry(root.starts[0].MCPServers).Env[delegation.EnvSocket]
	root.mu.Unlock()
	if err := os.RemoveAll(filepath.Dir(sock)); err != nil {
		t.Fatal(err)
	}
	c.newSession(t.TempDir())
	if err := <-root.probes; err != nil {
		t.Fatalf("the second agent's child: %v", err)
	}
}

// skipWithoutSocketFile skips on Windows, where the bridge is a loopback
// port: no file a tmp cleaner could remove.
func skipWithoutSocketFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the delegation bridge is a loopback port on Windows")
	}
}

// A session's delegate falls back through the server's fallback lists: a
// delegate whose agent crashed before any tool call is answered by the
// next agent, and the result says so.
func TestDelegation_FallsBackThroughTheBridge(t *testing.T) {
	root := &delegatingAgent{results: make(chan delegation.Result, 1)}
	c, _ := delegationClient(t, root, `{"event":{"type":"text","text":"hi"}}`, func(o *Options) {
		broken := replay.New(scriptFile(t, `{"fail":"exit status 2"}`))
		broken.AgentName = "broken"
		o.Registry.Register(broken)
		o.Fallback = map[string][]string{"broken": {"helper"}}
	})
	sid, _ := c.start(t)
	c.prompt(sid, "broken: say hi")
	res := <-root.results
	if res.Agent != "helper" || !slices.Equal(res.FellBack, []string{"broken crashed"}) || res.Answer != "hi" {
		t.Fatalf("delegate result %+v, want helper's answer after broken crashed", res)
	}
}

// A delegate whose agent crashed costs one delegate turn, not the delegate
// conversation: the follow-up starts the agent again under the same
// delegate session, and the crashed session was closed.
func TestDelegation_CrashedDelegateRestartsOnTheFollowUp(t *testing.T) {
	root := &delegatingAgent{results: make(chan delegation.Result, 1)}
	a := &crashy{}
	c, _ := delegationClient(t, root, "", func(o *Options) { o.Registry.Register(a) })
	sid, _ := c.start(t)
	c.prompt(sid, "crashy: crash")
	if first := <-root.results; !strings.Contains(first.Error, "boom") {
		t.Fatalf("the crashed delegate turn: %+v", first)
	}
	c.prompt(sid, "continue: hello again")
	next := <-root.results
	if next.Error != "" || !strings.Contains(next.Answer, "process 2: ") || !strings.HasSuffix(next.Answer, "hello again") {
		t.Fatalf("the follow-up: %+v; want the restarted agent's answer", next)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.resumes) != 2 || a.closed != 1 {
		t.Fatalf("%d starts, %d sessions closed; want 2 and the crashed one closed", len(a.resumes), a.closed)
	}
}

// Without delegation the agent gets no hub server, and the option turns
// it on (restarting the agent).
func TestDelegation_OffByDefaultAndTheOption(t *testing.T) {
	root := &delegatingAgent{}
	c, _ := delegationClient(t, root, "", func(o *Options) { o.Delegation = false })
	sid, _ := c.start(t)
	c.prompt(sid, "helper: x")
	if got := agentText(c.updates(sid)); !strings.HasPrefix(got, "no hub tool") {
		t.Fatalf("answer without delegation %q", got)
	}
	c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "delegation", Value: json.RawMessage(`"on"`)}, nil)
	c.prompt(sid, "helper: x")
	root.mu.Lock()
	defer root.mu.Unlock()
	if n := len(root.starts); n != 2 || hubEntry(root.starts[1].MCPServers).Command != "/usr/local/bin/hub" {
		t.Fatalf("%d starts; last MCP servers %+v", n, root.starts[n-1].MCPServers)
	}
}

// Cancelling the root turn cancels the delegate's turn, even when the
// agent's own MCP call would wait on.
func TestDelegation_CancelReachesTheDelegate(t *testing.T) {
	root := &delegatingAgent{detached: true, results: make(chan delegation.Result, 1)}
	c, _ := delegationClient(t, root, `{"event":{"type":"tool_call","tool":{"id":"t1","title":"long job","kind":"execute","status":"in_progress"}}}
{"wait_cancel":true}`)
	sid, _ := c.start(t)
	done := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("helper: long job")}})
	c.waitFor(t, func() bool {
		for _, u := range c.updates(sid) {
			if u.ToolCall != nil && u.ToolCall.Title == "helper: long job" {
				return true
			}
		}
		return false
	})
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	if r := c.wait(done); r.Error != nil || !strings.Contains(string(r.Result), "cancelled") {
		t.Fatalf("prompt answered %s %v", r.Result, r.Error)
	}
	select {
	case res := <-root.results:
		if res.StopReason != string(adapters.StopCancelled) {
			t.Fatalf("delegate ended %+v, want cancelled", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the delegate turn still runs after the root turn was cancelled")
	}
}

// The native loop delegates through its built-in delegate_agent tool, in
// process: the delegate's permission request reaches the editor naming
// it, its tool call shows in the session, and the model reads its answer.
func TestDelegation_NativeLoopHasTheDelegateTool(t *testing.T) {
	srv := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "delegate_agent", Args: `{"agent":"helper","prompt":"clean up"}`}}},
		mockllm.OpenAITurn{Text: "The helper cleaned up."})
	defer srv.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "native", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second}))
	h := replay.New(scriptFile(t, helperScript))
	h.AgentName = "helper"
	reg.Register(h)
	c := startClient(t, Options{Registry: reg, DefaultAgent: "native", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Second,
		Self: "/usr/local/bin/hub", Delegation: true})
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
	c.prompt(sid, "get the helper to clean up")

	reqs := srv.Requests()
	if len(reqs) != 2 || !hasTool(reqs[0].Tools, "delegate_agent") {
		t.Fatalf("%d requests; first offers delegate_agent: %v", len(reqs), len(reqs) > 0 && hasTool(reqs[0].Tools, "delegate_agent"))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last["role"] != "tool" || !strings.Contains(mockllm.MessageText(last), "removed") {
		t.Fatalf("the model read %v, want the delegate's answer", last)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(asked, "|") != "delegate to helper|helper: rm build" {
		t.Fatalf("permission requests %q, want the delegation, then the helper's command naming it", asked)
	}
	var titles []string
	for _, u := range c.updates(sid) {
		if u.ToolCall != nil {
			titles = append(titles, u.ToolCall.Title)
		}
	}
	if !slices.Contains(titles, "delegate to helper") || !slices.Contains(titles, "helper: rm build") {
		t.Fatalf("tool calls shown %q", titles)
	}
}

// A persona in plan mode on the native loop delegates through its built-in
// tool, and its mode binds the delegate: it starts in plan mode, and its
// command is refused, never put to the editor.
func TestDelegation_NativePlanPersonaBindsItsDelegate(t *testing.T) {
	srv := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "delegate_agent", Args: `{"agent":"helper","prompt":"clean up","mode":"default"}`}}},
		mockllm.OpenAITurn{Text: "The helper could not clean up."})
	defer srv.Close()
	reg := adapters.NewRegistry()
	native := openai.New(openai.Profile{Name: "native", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second})
	reg.Register(native)
	reg.Register(&personas.Adapter{P: personas.Persona{Name: "planner", Description: "Plans.", Mode: personas.ModePlan, Trusted: true}, Backend: native})
	h := replay.New(scriptFile(t, helperScript))
	h.AgentName = "helper"
	reg.Register(h)
	c := startClient(t, Options{Registry: reg, DefaultAgent: "planner", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Second,
		Self: "/usr/local/bin/hub", Delegation: true})
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
	c.prompt(sid, "get the helper to clean up")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want the delegation and the answer", len(reqs))
	}
	last := mockllm.MessageText(reqs[1].Messages[len(reqs[1].Messages)-1])
	if !strings.Contains(last, "refused") || !strings.Contains(last, "plan mode") {
		t.Fatalf("the model read %q, want the helper's command refused by the planner's plan mode", last)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !strings.Contains(asked[0], "delegate to helper") {
		t.Fatalf("the editor was asked %q, want the delegation only", asked)
	}
	if starts := h.Starts(); len(starts) != 1 || starts[0].Mode != "plan" {
		t.Fatalf("the helper's starts %+v, want one in plan mode", starts)
	}
}

func hasTool(tools []map[string]any, name string) bool {
	for _, t := range tools {
		if f, ok := t["function"].(map[string]any); ok && f["name"] == name {
			return true
		}
	}
	return false
}
