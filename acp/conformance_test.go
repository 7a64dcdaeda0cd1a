package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/testlog"
)

// C14, C29: with an agent that takes no images, image and audio prompt
// blocks are not advertised and are rejected with -32602; text and
// resource_link still work.
func TestPromptBlocks_UnadvertisedRejected(t *testing.T) {
	c := newClient(t, "", func(o *Options) {
		a := replay.New("")
		a.Caps.Images, a.Caps.Audio = false, false
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(a)
	})
	var init schema.InitializeResponse
	c.must("initialize", schema.InitializeRequest{ProtocolVersion: 1}, &init)
	if init.AgentCapabilities.PromptCapabilities.Image || init.AgentCapabilities.PromptCapabilities.Audio {
		t.Fatalf("advertised %+v", init.AgentCapabilities.PromptCapabilities)
	}
	sid := c.newSession(t.TempDir())
	for _, b := range []schema.ContentBlock{{Type: schema.BlockImage, Data: "aGk=", MimeType: "image/png"}, {Type: schema.BlockAudio, Data: "aGk=", MimeType: "audio/wav"}} {
		if _, e := c.call("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{b}}); e == nil || e.Code != schema.CodeInvalidParams {
			t.Errorf("%s block: %v", b.Type, e)
		}
	}
	var r schema.PromptResponse
	c.must("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("hi"), {Type: schema.BlockResourceLink, URI: "file:///a", Name: "a"}}}, &r)
	if r.StopReason != schema.StopEndTurn {
		t.Fatalf("stop %q", r.StopReason)
	}
}

// C14: hub advertises what the default agent takes, so a preset without
// vision registered beside claude does not hide images; a session switched
// to that agent gets a placeholder and a notice, not an error.
func TestPromptBlocks_AdvertisedByDefaultAgent(t *testing.T) {
	blind := replay.New("")
	blind.Caps.Images, blind.Caps.Audio = false, false
	c := newClient(t, "", func(o *Options) { o.Registry.Register(named{blind, "blind"}) })
	var init schema.InitializeResponse
	c.must("initialize", schema.InitializeRequest{ProtocolVersion: 1}, &init)
	if !init.AgentCapabilities.PromptCapabilities.Image {
		t.Fatalf("default agent takes images, advertised %+v", init.AgentCapabilities.PromptCapabilities)
	}
	sid := c.newSession(t.TempDir())
	c.must("session/set_config_option", map[string]any{"sessionId": sid, "configId": "agent", "value": "blind"}, nil)
	var r schema.PromptResponse
	c.must("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("look"),
		{Type: schema.BlockImage, Data: "aGk=", MimeType: "image/png", URI: "file:///shot.png"}}}, &r)
	if r.StopReason != schema.StopEndTurn {
		t.Fatalf("stop %q", r.StopReason)
	}
	var text strings.Builder
	for _, u := range c.updates(sid) {
		if u.AgentMessageChunk != nil {
			text.WriteString(u.AgentMessageChunk.Content.Text)
		}
	}
	for _, want := range []string{"Note: blind does not accept image file:///shot.png", "[image file:///shot.png attached, but this agent does not accept image input]"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("agent messages %q lack %q", text.String(), want)
		}
	}
}

// C27: whatever the adapter reports, stopReason is one of the five values.
func TestStopReason_AlwaysFromEnum(t *testing.T) {
	for in, want := range map[adapters.StopReason]string{
		"end_turn": schema.StopEndTurn, "max_tokens": schema.StopMaxTokens, "max_turn_requests": schema.StopMaxTurnRequests,
		"refusal": schema.StopRefusal, "cancelled": schema.StopCancelled, "": schema.StopEndTurn, "error": schema.StopEndTurn, "tool_use": schema.StopEndTurn,
	} {
		if got := stopReason(in); got != want {
			t.Errorf("stopReason(%q) = %q, want %q", in, got, want)
		}
	}
}

// C35: permission options sent to the editor are non-empty, with unique ids
// and kinds from the four values.
func TestPermissionOptions_ValidForEditor(t *testing.T) {
	opt := func(id string, k adapters.PermissionOptionKind) adapters.PermissionOption {
		return adapters.PermissionOption{ID: id, Name: id, Kind: k}
	}
	cases := []struct {
		name string
		in   []adapters.PermissionOption
		want string
	}{
		{"none gives defaults", nil, defaultIDs()},
		{"duplicates and empty ids dropped", []adapters.PermissionOption{opt("a", adapters.AllowOnce), opt("a", adapters.RejectOnce), opt("", adapters.RejectOnce), opt("b", adapters.RejectOnce)}, "a:allow_once b:reject_once"},
		{"unknown kind dropped", []adapters.PermissionOption{opt("a", "allow_forever"), opt("b", adapters.RejectAlways)}, "b:reject_always"},
		{"only invalid gives defaults", []adapters.PermissionOption{opt("a", "maybe")}, defaultIDs()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, o := range permissionOptions(tc.in, true) {
				got = append(got, o.OptionID+":"+o.Kind)
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("got %v want %s", got, tc.want)
			}
		})
	}
}

func defaultIDs() string {
	var s []string
	for _, o := range adapters.DefaultPermissionOptions() {
		s = append(s, o.ID+":"+string(o.Kind))
	}
	return strings.Join(s, " ")
}

// C41: $/cancel_request for the client's in-flight prompt is ignored; the
// prompt is still answered exactly once (here after session/cancel).
func TestCancelRequest_PromptAnsweredOnce(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"wait_cancel":true}`))
	sid, _ := c.start(t)
	c.sendID("70", "session/prompt", promptReq(sid, "x"))
	c.notify("$/cancel_request", map[string]any{"requestId": 70})
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	c.waitFor(t, func() bool { return c.indexOfResponse("70") >= 0 })
	c.drain() // every response the server will ever write is in

	n := 0
	for _, m := range c.messages() {
		if m.Method == "" && string(m.ID) == "70" {
			n++
			if m.Error != nil || !strings.Contains(string(m.Result), schema.StopCancelled) {
				t.Fatalf("prompt answered %s %v", m.Result, m.Error)
			}
		}
	}
	if n != 1 {
		t.Fatalf("prompt answered %d times", n)
	}
}

// C21: the advertised current mode and every select option's current value
// are among their choices.
func TestConfigOptions_CurrentValuesValid(t *testing.T) {
	c := newClient(t, "")
	c.init(schema.ClientCapabilities{})
	var r schema.NewSessionResponse
	c.must("session/new", schema.NewSessionRequest{Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, &r)
	if r.Modes == nil || !hasMode(r.Modes.AvailableModes, r.Modes.CurrentModeID) {
		t.Fatalf("modes %+v", r.Modes)
	}
	for _, o := range r.ConfigOptions {
		if !hasValue(o, o.CurrentValue) {
			t.Errorf("option %s current %q not among its values", o.ID, o.CurrentValue)
		}
	}
}

func hasMode(modes []schema.SessionMode, id string) bool {
	for _, m := range modes {
		if m.ID == id {
			return true
		}
	}
	return false
}

func hasValue(o schema.SessionConfigOption, v string) bool {
	if o.Type != "select" {
		return true
	}
	all := o.Options
	for _, g := range o.Groups {
		all = append(all, g.Options...)
	}
	for _, x := range all {
		if x.Value == v {
			return true
		}
	}
	return false
}

// turnText joins the agent message text of updates.
func turnText(ups []schema.SessionUpdate) string {
	var b strings.Builder
	for _, u := range ups {
		if u.AgentMessageChunk != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text)
		}
	}
	return b.String()
}

// withLog sends the server's debug log to buf.
func withLog(buf *testlog.Buffer) func(*Options) {
	return func(o *Options) { o.Logger = zerolog.New(buf).Level(zerolog.DebugLevel) }
}

// C01: with debug logging on, stdout still carries only JSON-RPC lines
// (tclient fails on any other line); the logs go to the logger.
func TestConformance_C01_OnlyProtocolOnStdoutWithDebugLogs(t *testing.T) {
	var log testlog.Buffer
	c := newClient(t, scriptFile(t,
		`{"event":{"type":"raw","source":"x:y","raw":{"a":1}}}`,
		`{"event":{"type":"text","text":"hi"}}`), withLog(&log))
	sid, _ := c.start(t)
	c.notify("_unknown/notification", map[string]any{})
	c.prompt(sid, "x")
	c.close()
	if !strings.Contains(log.String(), "unmapped agent record") || !strings.Contains(log.String(), "notification ignored") {
		t.Fatalf("debug logs did not reach the logger: %s", log.String())
	}
	for _, m := range c.messages() {
		if m.JSONRPC != "2.0" {
			t.Fatalf("stdout message without jsonrpc 2.0: %+v", m)
		}
	}
}

// C02: a request whose id is null is still a request: it is answered, with
// "id": null (RequestId allows null), not dropped as a notification.
func TestConformance_C02_NullIDRequestAnswered(t *testing.T) {
	c := newClient(t, "")
	m := c.wait(c.sendID("null", "initialize", schema.InitializeRequest{ProtocolVersion: 1}))
	if string(m.ID) != "null" || m.Error != nil || !strings.Contains(string(m.Result), `"protocolVersion":1`) {
		t.Fatalf("id null answered %+v", m)
	}
}

// C08: unknown fields and _meta anywhere in requests are ignored.
func TestConformance_C08_UnknownFieldsAndMetaIgnored(t *testing.T) {
	c := newClient(t, "")
	c.must("initialize", json.RawMessage(`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"_meta":{}},"_meta":{"terminal_output":true},"future":1},"clientInfo":{"name":"z","version":"1","_meta":{}},"_meta":{"traceparent":"x"}}`), nil)
	cwd := t.TempDir()
	var r schema.NewSessionResponse
	c.must("session/new", json.RawMessage(fmt.Sprintf(`{"cwd":%q,"mcpServers":[{"name":"m","command":"/bin/m","args":[],"env":[],"_meta":{}}],"_meta":{"a":1},"unknown":[1]}`, cwd)), &r)
	sid := r.SessionID
	var p schema.PromptResponse
	c.must("session/prompt", json.RawMessage(fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"hi","annotations":{"audience":["user"],"priority":1},"_meta":{"x":1},"later":true},{"type":"resource_link","uri":"file:///a","name":"a","size":3,"_meta":{}}],"_meta":{"y":2}}`, sid)), &p)
	if p.StopReason != schema.StopEndTurn {
		t.Fatalf("stop %q", p.StopReason)
	}
	c.must("session/set_config_option", json.RawMessage(fmt.Sprintf(`{"sessionId":%q,"configId":"model","value":"replay-smart","_meta":{}}`, sid)), nil)
	c.must("session/list", json.RawMessage(`{"_meta":{},"extra":null}`), nil)
	c.notify("session/cancel", json.RawMessage(fmt.Sprintf(`{"sessionId":%q,"_meta":{}}`, sid)))
	if s := c.prompt(sid, "still fine"); s != schema.StopEndTurn {
		t.Fatalf("after _meta cancel: %s", s)
	}
}

// recordingAdapter counts Close calls of its sessions.
type recordingAdapter struct {
	*replay.Adapter
	mu     sync.Mutex
	closed int
}

func (a *recordingAdapter) Start(ctx context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	s, err := a.Adapter.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	return &recordingSession{Session: s.(*replay.Session), a: a}, nil
}

func (a *recordingAdapter) closes() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closed
}

type recordingSession struct {
	*replay.Session
	a    *recordingAdapter
	once sync.Once
}

func (s *recordingSession) Close() error {
	s.once.Do(func() { s.a.mu.Lock(); s.a.closed++; s.a.mu.Unlock() })
	return s.Session.Close()
}

// C11: stdin EOF ends Serve and closes every agent session (stopping their
// processes), the busy one and the idle one alike.
func TestConformance_C11_EOFClosesEveryAgentSession(t *testing.T) {
	a := &recordingAdapter{Adapter: replay.New(scriptFile(t, `{"wait_cancel":true}`))}
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(a)
	})
	c.init(schema.ClientCapabilities{})
	cwd := t.TempDir()
	idle, busy := c.newSession(cwd), c.newSession(cwd)
	c.waitFor(t, func() bool { return len(a.Starts()) == 2 }) // both warm
	first := c.async("session/prompt", promptReq(idle, "x"))  // its scripted turn waits for a cancel
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: idle})
	c.wait(first)
	c.sendID("1000", "session/prompt", promptReq(busy, "y"))
	c.close() // EOF; fails the test if Serve does not return
	if n := a.closes(); n != 2 {
		t.Fatalf("%d of 2 agent sessions closed on EOF", n)
	}
}

// C14: every advertised optional method works; the ones not advertised
// (logout without auth.logout, unstable and removed methods) are -32601.
func TestConformance_C14_AdvertisedMethodsWorkOthersNotFound(t *testing.T) {
	c := newClient(t, "")
	var init schema.InitializeResponse
	c.must("initialize", schema.InitializeRequest{ProtocolVersion: 1}, &init)
	caps := init.AgentCapabilities
	if !caps.LoadSession || caps.SessionCapabilities.List == nil || caps.SessionCapabilities.Resume == nil ||
		caps.SessionCapabilities.Close == nil || caps.SessionCapabilities.Delete == nil || caps.SessionCapabilities.AdditionalDirectories == nil ||
		caps.SessionCapabilities.Fork == nil {
		t.Fatalf("advertised %+v; this test expects load, list, resume, close, delete, additionalDirectories and fork", caps)
	}
	if caps.Auth != nil || caps.McpCapabilities.SSE {
		t.Fatalf("advertised what hub does not do: %+v", caps)
	}
	cwd := t.TempDir()
	sid := c.newSession(cwd)
	c.prompt(sid, "x")
	load := schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}, AdditionalDirectories: []string{t.TempDir()}}
	for _, m := range []struct {
		method string
		params any
	}{
		{"session/list", schema.ListSessionsRequest{}},
		{"session/load", load},
		{"session/resume", load},
		{"session/fork", load},
		{"session/close", schema.SessionIDRequest{SessionID: sid}},
		{"session/delete", schema.SessionIDRequest{SessionID: sid}},
	} {
		if _, e := c.call(m.method, m.params); e != nil {
			t.Errorf("advertised %s fails: %v", m.method, e)
		}
	}
	for _, m := range []string{"logout", "session/set_model", "session/archive", "providers/list"} {
		if _, e := c.call(m, map[string]any{"sessionId": sid}); e == nil || e.Code != schema.CodeMethodNotFound {
			t.Errorf("not advertised %s: %v, want -32601", m, e)
		}
	}
}

// C14: mcpCapabilities.http follows the default agent; a session switched
// to an agent without HTTP MCP support gets only its stdio servers.
func TestConformance_C14_MCPHTTPAsTheDefaultAgentTakesIt(t *testing.T) {
	for _, tc := range []struct {
		name        string
		defaultHTTP bool
	}{{"default agent takes http", true}, {"default agent does not", false}} {
		t.Run(tc.name, func(t *testing.T) {
			other := replay.New("")
			other.Caps.MCPHTTP = false
			c := newClient(t, "", func(o *Options) {
				o.Registry.Register(named{other, "other"})
				if !tc.defaultHTTP {
					o.DefaultAgent = "other"
				}
			})
			var init schema.InitializeResponse
			c.must("initialize", schema.InitializeRequest{ProtocolVersion: 1}, &init)
			if init.AgentCapabilities.McpCapabilities.HTTP != tc.defaultHTTP {
				t.Fatalf("mcpCapabilities %+v, want http=%v", init.AgentCapabilities.McpCapabilities, tc.defaultHTTP)
			}
			var r schema.NewSessionResponse
			c.must("session/new", json.RawMessage(fmt.Sprintf(`{"cwd":%q,"mcpServers":[{"name":"fs","command":"/bin/mcp","args":[],"env":[]},{"type":"http","name":"api","url":"https://x/mcp","headers":[]}]}`, t.TempDir())), &r)
			c.must("session/set_config_option", map[string]any{"sessionId": r.SessionID, "configId": "agent", "value": "other"}, nil)
			c.prompt(r.SessionID, "x")
			starts := startsOf(t, c, "other")
			if got := starts[len(starts)-1].MCPServers; len(got) != 1 || got[0].Name != "fs" {
				t.Errorf("agent without http MCP got %+v, want only the stdio server", got)
			}
		})
	}
}

// C15: a client that advertised nothing gets no fs/*, terminal/* or
// elicitation requests, no notice or compaction updates, no boolean config
// options and no terminal auth method, even when the agent tries.
func TestConformance_C15_NoUnadvertisedClientFeatures(t *testing.T) {
	c := newClient(t, scriptFile(t,
		`{"event":{"type":"tool_call","tool":{"id":"t1","title":"Run","kind":"execute","content":[{"type":"terminal","terminalId":"term-1"}]}}}`,
		`{"event":{"type":"text","text":"done"}}`))
	var init schema.InitializeResponse
	c.must("initialize", json.RawMessage(`{"protocolVersion":1,"clientCapabilities":{}}`), &init)
	for _, m := range init.AuthMethods {
		if m.Type == "terminal" {
			t.Errorf("terminal auth method advertised without auth.terminal: %+v", m)
		}
	}
	var r schema.NewSessionResponse
	c.must("session/new", schema.NewSessionRequest{Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, &r)
	c.prompt(r.SessionID, "x")
	ed := startsOf(t, c, "replay")[0].Editor
	ctx := t.Context()
	if _, err := ed.ReadTextFile(ctx, "/a", 0, 0); err == nil {
		t.Error("fs/read_text_file allowed without the capability")
	}
	if err := ed.WriteTextFile(ctx, "/a", "x"); err == nil {
		t.Error("fs/write_text_file allowed without the capability")
	}
	for _, m := range []string{"terminal/create", "terminal/output", "terminal/release", "elicitation/create", "fs/read_text_file"} {
		if _, err := ed.Call(ctx, m, json.RawMessage(`{}`)); err == nil {
			t.Errorf("%s allowed without the capability", m)
		}
	}
	for _, o := range r.ConfigOptions {
		if o.Type != "select" {
			t.Errorf("config option %s of type %s without session.configOptions.boolean", o.ID, o.Type)
		}
	}
	for _, m := range c.messages() {
		if m.Method != "" && m.Method != "session/update" {
			t.Errorf("hub sent %s to a client that advertised nothing", m.Method)
		}
	}
	for _, u := range c.updates(r.SessionID) {
		if u.ToolCall != nil && len(u.ToolCall.Content) > 0 {
			t.Errorf("terminal content sent though no terminal was created: %+v", u.ToolCall.Content)
		}
	}
}

// C17: hub needs no authentication: it advertises no auth methods,
// session/new works without authenticate, and an unknown methodId is -32602.
func TestConformance_C17_NoAuthRequired(t *testing.T) {
	c := newClient(t, "")
	var init schema.InitializeResponse
	c.must("initialize", schema.InitializeRequest{ProtocolVersion: 1}, &init)
	if init.AuthMethods == nil || len(init.AuthMethods) != 0 {
		t.Fatalf("authMethods %+v, want []", init.AuthMethods)
	}
	if sid := c.newSession(t.TempDir()); sid == "" {
		t.Fatal("session/new without authenticate failed")
	}
	if _, e := c.call("authenticate", schema.AuthenticateRequest{MethodID: "agent-login"}); e == nil || e.Code != schema.CodeInvalidParams {
		t.Fatalf("unknown methodId: %v, want -32602", e)
	}
}

// C19: MCP servers of a transport hub cannot use, or given to an agent that
// takes no MCP servers, are skipped with a log line; session/new never fails
// for them, and null arrays count as empty.
func TestConformance_C19_MCPServersSkippedWithLogLine(t *testing.T) {
	nomcp := replay.New("")
	nomcp.Caps.MCP, nomcp.Caps.MCPHTTP = false, false
	var log testlog.Buffer
	c := newClient(t, "", withLog(&log), func(o *Options) { o.Registry.Register(named{nomcp, "nomcp"}) })
	c.init(schema.ClientCapabilities{})
	cwd := t.TempDir()
	servers := `[{"name":"fs","command":"/bin/mcp","args":null,"env":[]},{"type":"http","name":"api","url":"https://x/mcp","headers":null},{"type":"sse","name":"old","url":"https://x/sse","headers":[]},{"type":"acp","name":"weird","id":"1"}]`
	for _, tc := range []struct {
		agent   string
		want    string   // servers the adapter gets
		skipped []string // the warnings' agent/server/type; "" agent: skipped on arrival
	}{
		{"replay", "fs/stdio api/http old/sse", []string{"/weird/acp"}},
		{"nomcp", "", []string{"/weird/acp", "nomcp/fs/stdio", "nomcp/api/http", "nomcp/old/sse"}},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			var r schema.NewSessionResponse
			c.must("session/new", json.RawMessage(fmt.Sprintf(`{"cwd":%q,"mcpServers":%s}`, cwd, servers)), &r)
			c.must("session/set_config_option", map[string]any{"sessionId": r.SessionID, "configId": "agent", "value": tc.agent}, nil)
			c.prompt(r.SessionID, "x")
			starts := startsOf(t, c, tc.agent)
			var got []string
			for _, m := range starts[len(starts)-1].MCPServers {
				got = append(got, m.Name+"/"+m.Type)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("adapter got MCP servers %q, want %q", got, tc.want)
			}
			var warned []string
			for _, e := range logEntries(log.String()) {
				if e["level"] == "warn" && e["server"] != "" && (e["agent"] == "" || e["agent"] == tc.agent) {
					warned = append(warned, fmt.Sprintf("%s/%s/%s", e["agent"], e["server"], e["type"]))
				}
			}
			for _, w := range tc.skipped {
				if !slices.Contains(warned, w) {
					t.Errorf("no warning of %s skipped; warnings %q:\n%s", w, warned, log.String())
				}
			}
		})
	}
}

// logEntries are the JSON lines of a zerolog log, each field as a string.
func logEntries(log string) []map[string]string {
	var out []map[string]string
	for _, line := range strings.Split(log, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		e := map[string]string{}
		for k, v := range m {
			e[k] = fmt.Sprint(v)
		}
		out = append(out, e)
	}
	return out
}

// startsOf returns the Start options a replay-based agent has seen.
func startsOf(t testing.TB, c *tclient, agent string) []adapters.SessionOptions {
	t.Helper()
	a, err := c.reg.Get(agent)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := a.(interface {
		Starts() []adapters.SessionOptions
	})
	if !ok {
		t.Fatalf("agent %s records no starts", agent)
	}
	return s.Starts()
}

// toolStatuses returns, per tool call id, the kinds and statuses of its
// updates in order, e.g. "tool_call:pending tool_call_update:failed".
func toolStatuses(ups []schema.SessionUpdate) map[string]string {
	out := map[string]string{}
	add := func(id, kind, status string) {
		if out[id] != "" {
			out[id] += " "
		}
		out[id] += kind + ":" + status
	}
	for _, u := range ups {
		switch {
		case u.ToolCall != nil:
			add(u.ToolCall.ToolCallID, "tool_call", u.ToolCall.Status)
		case u.ToolCallUpdate != nil:
			add(u.ToolCallUpdate.ToolCallID, "tool_call_update", u.ToolCallUpdate.Status)
		}
	}
	return out
}

// C30, C36: every tool call of a turn starts with a titled tool_call and
// ends completed or failed: one the agent left open, or rejected without
// saying so, is ended failed before the prompt response; a cancelled turn
// leaves unfinished calls to the client.
func TestConformance_C30_ToolCallsEndCompletedOrFailed(t *testing.T) {
	tool := func(typ, id, status string) string {
		return fmt.Sprintf(`{"event":{"type":%q,"tool":{"id":%q,"title":"T %s","kind":"read","status":%q}}}`, typ, id, id, status)
	}
	cases := []struct {
		name   string
		script []string
		answer string // permission option kind chosen by the client
		stop   string
		want   map[string]string
	}{
		{
			name:   "completed and failed calls are left alone",
			script: []string{tool("tool_call", "a", "pending"), tool("tool_update", "a", "completed"), tool("tool_call", "b", "in_progress"), tool("tool_update", "b", "failed")},
			stop:   schema.StopEndTurn,
			want:   map[string]string{"a": "tool_call:pending tool_call_update:completed", "b": "tool_call:in_progress tool_call_update:failed"},
		},
		{
			name:   "calls left open end failed",
			script: []string{tool("tool_call", "a", "pending"), tool("tool_update", "b", "in_progress"), tool("tool_update", "b", "")},
			stop:   schema.StopEndTurn,
			want:   map[string]string{"a": "tool_call:pending tool_call_update:failed", "b": "tool_call:in_progress tool_call_update: tool_call_update:failed"},
		},
		{
			name:   "a rejected call the agent did not report ends failed",
			script: []string{`{"permission":{"tool":{"id":"p","title":"Edit","kind":"edit"}},"rejected":[{"event":{"type":"text","text":"skipped"}}]}`},
			answer: "reject_once",
			stop:   schema.StopEndTurn,
			want:   map[string]string{"p": "tool_call:pending tool_call_update:failed"},
		},
		{
			name:   "a cancelled turn leaves unfinished calls alone",
			script: []string{tool("tool_call", "a", "in_progress"), `{"wait_cancel":true}`},
			stop:   schema.StopCancelled,
			want:   map[string]string{"a": "tool_call:in_progress"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, scriptFile(t, tc.script...))
			if tc.answer != "" {
				c.perm = selectKind(tc.answer)
			}
			sid, _ := c.start(t)
			p := c.sendID("900", "session/prompt", promptReq(sid, "x"))
			if tc.stop == schema.StopCancelled {
				c.waitFor(t, func() bool { return len(c.updates(sid)) > 0 })
				c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
			}
			var r schema.PromptResponse
			_ = json.Unmarshal(c.wait(p).Result, &r)
			if r.StopReason != tc.stop {
				t.Fatalf("stop %q, want %q", r.StopReason, tc.stop)
			}
			got := toolStatuses(c.updates(sid))
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("tool updates\n got %v\nwant %v", got, tc.want)
			}
			resp := c.indexOfResponse("900")
			for i, m := range c.messages() {
				if m.Method == "session/update" && i > resp {
					t.Fatalf("update after the prompt response: %s", m.Params)
				}
			}
		})
	}
}

// C32: each plan update carries the agent's complete entry list, with
// priority and status from their enums.
func TestConformance_C32_PlanUpdatesCarryTheFullList(t *testing.T) {
	c := newClient(t, scriptFile(t,
		`{"event":{"type":"plan","plan":[{"content":"a","priority":"high","status":"pending"},{"content":"b","priority":"urgent","status":"todo"}]}}`,
		`{"event":{"type":"plan","plan":[{"content":"a","priority":"high","status":"completed"},{"content":"b","priority":"low","status":"in_progress"},{"content":"c","priority":"medium","status":"pending"}]}}`))
	sid, _ := c.start(t)
	c.prompt(sid, "x")
	var plans []string
	for _, u := range c.updates(sid) {
		if u.Plan != nil {
			var e []string
			for _, p := range u.Plan.Entries {
				e = append(e, p.Content+"/"+p.Priority+"/"+p.Status)
			}
			plans = append(plans, strings.Join(e, ","))
		}
	}
	want := []string{"a/high/pending,b/medium/pending", "a/high/completed,b/low/in_progress,c/medium/pending"}
	if fmt.Sprint(plans) != fmt.Sprint(want) {
		t.Fatalf("plans %q, want %q", plans, want)
	}
}

// C38: on session/cancel the client answers the pending permission request
// "cancelled"; the tool does not run and the prompt ends cancelled.
func TestConformance_C38_CancelWhilePermissionPending(t *testing.T) {
	c := newClient(t, scriptFile(t, permScript))
	sid, _ := c.start(t)
	c.perm = func(schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
		return schema.RequestPermissionResponse{Outcome: schema.RequestPermissionOutcome{Outcome: "cancelled"}}, nil
	}
	if s := c.prompt(sid, "x"); s != schema.StopCancelled {
		t.Fatalf("stop %q, want cancelled", s)
	}
	if txt := turnText(c.updates(sid)); txt != "" {
		t.Fatalf("tool ran or was reported after cancel: %q", txt)
	}
	if s := c.prompt(sid, "again"); s != schema.StopEndTurn {
		t.Fatalf("next prompt %q", s)
	}
}

// C42: a permission request hub stops waiting for (here its turn was
// cancelled and the editor never answered) is withdrawn with
// $/cancel_request for its id, so the editor closes its dialog. A late
// answer, even "allow always", is dropped: the next call is asked again,
// and its own answer decides it.
func TestConformance_C42_AbandonedPermissionRequestIsWithdrawn(t *testing.T) {
	c := newClient(t, scriptFile(t, permScript, `{"turn":true}`, permScript))
	var asked sync.WaitGroup
	asked.Add(1)
	n := 0
	c.perm = func(schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		if n++; n == 1 {
			asked.Done()
			return nil, nil // never answered in time
		}
		return schema.RequestPermissionResponse{Outcome: schema.RequestPermissionOutcome{Outcome: "selected", OptionID: "reject_once"}}, nil
	}
	sid, _ := c.start(t)
	p := c.async("session/prompt", promptReq(sid, "x"))
	asked.Wait()
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	if r := c.wait(p); !strings.Contains(string(r.Result), schema.StopCancelled) {
		t.Fatalf("prompt answered %s %v", r.Result, r.Error)
	}
	var permID json.RawMessage
	withdrawn := func() bool {
		for _, m := range c.messages() {
			var p struct{ RequestID json.RawMessage }
			switch {
			case m.Method == "session/request_permission" && permID == nil:
				permID = m.ID
			case m.Method == "$/cancel_request" && json.Unmarshal(m.Params, &p) == nil:
				return permID != nil && string(p.RequestID) == string(permID)
			}
		}
		return false
	}
	c.waitFor(t, withdrawn)
	c.raw(`{"jsonrpc":"2.0","id":` + string(permID) + `,"result":{"outcome":{"outcome":"selected","optionId":"allow_always"}}}`)
	if s := c.prompt(sid, "again"); s != schema.StopEndTurn || n != 2 || strings.Contains(turnText(c.updates(sid)), "ran") {
		t.Fatalf("next prompt %q, asked %d times, text %q: the late answer decided", s, n, turnText(c.updates(sid)))
	}
}

// C40: session/cancel with no turn running, for an unknown session, without
// params or before initialize is never answered and breaks nothing.
func TestConformance_C40_CancelWithoutTurnIgnored(t *testing.T) {
	c := newClient(t, "")
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: "early"})
	sid, _ := c.start(t)
	before := len(c.messages())
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: "unknown"})
	c.raw(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":42}}`)
	c.raw(`{"jsonrpc":"2.0","method":"session/cancel"}`)
	if s := c.prompt(sid, "x"); s != schema.StopEndTurn {
		t.Fatalf("prompt after idle cancels: %q", s)
	}
	// The prompt added its echo update and its response, nothing else.
	if got := len(c.messages()) - before; got != 2 {
		t.Fatalf("%d messages after the cancels, want 2 (update and response)", got)
	}
}

// C43: {} and null both succeed as results of fs/write_text_file,
// terminal/kill and terminal/release; a client error reaches the agent as
// an error (a tool failure) and the connection keeps working.
func TestConformance_C43_ClientResultsNullOrEmptyAndErrors(t *testing.T) {
	for _, result := range []string{"null", "{}"} {
		t.Run(result, func(t *testing.T) {
			c := newClient(t, "")
			c.fs = func(method string, _ json.RawMessage) (any, *jsonrpc.Error) {
				switch method {
				case "terminal/create":
					return schema.CreateTerminalResponse{TerminalID: "term-1"}, nil
				case "fs/read_text_file":
					return nil, jsonrpc.NewError(schema.CodeResourceNotFound, "no such file", nil)
				}
				return json.RawMessage(result), nil
			}
			c.init(schema.ClientCapabilities{FS: schema.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true})
			sid := c.newSession(t.TempDir())
			c.prompt(sid, "x")
			ed := startsOf(t, c, "replay")[0].Editor
			ctx := t.Context()
			if err := ed.WriteTextFile(ctx, "/w/a", "x"); err != nil {
				t.Errorf("fs/write_text_file -> %s: %v", result, err)
			}
			if _, err := ed.Call(ctx, "terminal/create", json.RawMessage(`{"command":"ls"}`)); err != nil {
				t.Fatal(err)
			}
			for _, m := range []string{"terminal/kill", "terminal/release"} {
				if res, err := ed.Call(ctx, m, json.RawMessage(`{"terminalId":"term-1"}`)); err != nil || string(res) != "{}" {
					t.Errorf("%s -> %s: %s %v", m, result, res, err)
				}
			}
			var e *jsonrpc.Error
			if _, err := ed.ReadTextFile(ctx, "/w/missing", 0, 0); !errors.As(err, &e) || e.Code != schema.CodeResourceNotFound {
				t.Errorf("client error not passed to the agent: %v", err)
			}
			if s := c.prompt(sid, "y"); s != schema.StopEndTurn {
				t.Fatalf("connection after client errors: %q", s)
			}
		})
	}
}

// Switching the agent mid-session starts the new agent on the next prompt
// and replaces the old agent's slash commands with the skills alone.
func TestConfigOptions_AgentSwitchReplacesCommands(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"event":{"type":"commands","commands":[{"name":"compact","description":"Compact the context"}]}}`),
		func(o *Options) {
			o.Skills = fakeSkills{}
			o.Registry.Register(named{replay.New(""), "other"})
		})
	sid, _ := c.start(t)
	commands := func() []string {
		var out []string
		for _, u := range c.updates(sid) {
			if u.AvailableCommands != nil {
				var names []string
				for _, cmd := range u.AvailableCommands.AvailableCommands {
					names = append(names, cmd.Name)
				}
				out = append(out, strings.Join(names, ","))
			}
		}
		return out
	}
	// The skills are announced after session/new's answer, on their own
	// path; a prompt sent at once may race them (both lists are complete).
	c.waitFor(t, func() bool { return len(commands()) == 1 })
	c.prompt(sid, "x")
	if got := commands(); fmt.Sprint(got) != "[review review,compact]" {
		t.Fatalf("commands before the switch %q", got)
	}
	c.sendID("800", "session/set_config_option", map[string]any{"sessionId": sid, "configId": "agent", "value": "other"})
	c.waitFor(t, func() bool { return len(commands()) == 3 })
	if got := commands(); got[2] != "review" {
		t.Fatalf("after switching agent the commands are %q, want the skills alone", got[2])
	}
	last := -1
	for i, m := range c.messages() {
		if m.Method == "session/update" {
			last = i
		}
	}
	if last < c.indexOfResponse("800") {
		t.Fatal("commands update before the set_config_option response")
	}
	c.prompt(sid, "hello")
	if got := turnText(c.updates(sid)); !strings.HasSuffix(got, "hello") {
		t.Fatalf("the new agent did not answer: %q", got)
	}
	if n := len(startsOf(t, c, "other")); n != 1 {
		t.Fatalf("new agent started %d times", n)
	}
}

// The legacy mode and the "mode" config option stay in sync (ACP §7): a
// change through either is reported through the other, after the response.
func TestConfigOptions_ModeKeptInSync(t *testing.T) {
	c := newClient(t, "")
	sid, _ := c.start(t)
	c.sendID("801", "session/set_mode", schema.SetSessionModeRequest{SessionID: sid, ModeID: "plan"})
	c.waitFor(t, func() bool { return len(c.updates(sid)) == 1 })
	u := c.updates(sid)[0]
	if u.ConfigOption == nil || u.ConfigOption.ConfigOptions[2].ID != "mode" || u.ConfigOption.ConfigOptions[2].CurrentValue != "plan" {
		t.Fatalf("after set_mode: %+v", u)
	}
	c.sendID("802", "session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "default"})
	c.waitFor(t, func() bool { return len(c.updates(sid)) == 2 })
	if u := c.updates(sid)[1]; u.CurrentMode == nil || u.CurrentMode.CurrentModeID != "default" {
		t.Fatalf("after set_config_option mode: %+v", u)
	}
	for i, m := range c.messages() {
		if m.Method == "session/update" && i < c.indexOfResponse("801") {
			t.Fatal("mode update before the set_mode response")
		}
	}
}
