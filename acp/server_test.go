package acp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// C12, C13, C08: protocolVersion is 1 whatever the client asks; the response
// has agentInfo and an authMethods array (and validates, see tclient);
// unknown fields and _meta are ignored.
func TestInitialize_ProtocolVersionAlways1(t *testing.T) {
	requireSchemaOptional(t)
	c := newClient(t, "")
	for _, v := range []int{1, 2, 0, 99} {
		var r schema.InitializeResponse
		c.must("initialize", map[string]any{"protocolVersion": v, "_meta": map[string]any{"x": 1}, "extra": true}, &r)
		if r.ProtocolVersion != 1 || r.AgentInfo == nil || r.AgentInfo.Name != "hub" || r.AuthMethods == nil {
			t.Fatalf("v%d: %+v", v, r)
		}
	}
}

func requireSchemaOptional(t *testing.T) {
	if schemaPath() == "" {
		t.Log("schema not found; responses are not schema-validated")
	}
}

// C02: ids come back with the same JSON type and value.
func TestRequestIDs_EchoedExactly(t *testing.T) {
	c := newClient(t, "")
	for _, id := range []string{"0", "-7", "9223372036854775807", `"abc"`, `"0"`} {
		m := c.wait(c.sendID(id, "initialize", schema.InitializeRequest{ProtocolVersion: 1}))
		if string(m.ID) != id || m.Error != nil {
			t.Errorf("id %s echoed as %s (err %v)", id, m.ID, m.Error)
		}
	}
}

// C07, C10: unparseable line -32700, batch and non-JSON-RPC objects -32600,
// all with id null; blank and "\r" lines are ignored; the connection keeps
// working.
func TestParseError_KeepsConnection(t *testing.T) {
	c := newClient(t, "")
	c.raw(`{not json`)
	c.raw(`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}]`)
	c.raw(`{"jsonrpc":"2.0","foo":1}`)
	c.raw(`"just a string"`)
	c.raw("")
	c.raw("\r")
	c.waitFor(t, func() bool { return len(c.messages()) >= 4 })
	want := []int{schema.CodeParseError, schema.CodeInvalidRequest, schema.CodeInvalidRequest, schema.CodeInvalidRequest}
	for i, m := range c.messages()[:4] {
		if m.Error == nil || m.Error.Code != want[i] || string(m.ID) != "null" {
			t.Errorf("message %d: %+v", i, m)
		}
	}
	c.init(schema.ClientCapabilities{})
}

// C03, C04, C05: unknown requests (also "_" ones) get -32601; notifications,
// known or not, are never answered.
func TestUnknownMethod_NotFoundAndNotificationsIgnored(t *testing.T) {
	c := newClient(t, "")
	c.init(schema.ClientCapabilities{})
	for _, m := range []string{"foo/bar", "_zed.dev/x", "session/archive", "session/set_model"} {
		if _, e := c.call(m, map[string]any{}); e == nil || e.Code != schema.CodeMethodNotFound {
			t.Errorf("%s: %v", m, e)
		}
	}
	before := len(c.messages())
	c.notify("_x/y", map[string]any{})
	c.notify("$/cancel_request", map[string]any{"requestId": 1})
	c.notify("session/cancel", map[string]any{"sessionId": "nope"})
	c.raw(`{"jsonrpc":"2.0","method":"session/cancel"}`)
	c.init(schema.ClientCapabilities{})
	if got := len(c.messages()); got != before+1 {
		t.Fatalf("notifications were answered: %d extra messages", got-before-1)
	}
}

// C16: requests before initialize get -32600, and initialize still works.
func TestBeforeInitialize_Error(t *testing.T) {
	c := newClient(t, "")
	if _, e := c.call("session/new", schema.NewSessionRequest{Cwd: "/tmp"}); e == nil || e.Code != schema.CodeInvalidRequest {
		t.Fatalf("got %v", e)
	}
	c.init(schema.ClientCapabilities{})
}

// C06, C19, C21: bad params (missing cwd, relative cwd, prompt not an array,
// unknown block type, authenticate without or with an unknown methodId,
// unknown config option or value or mode, bad cursor) get -32602.
func TestInvalidParams(t *testing.T) {
	c := newClient(t, "")
	c.init(schema.ClientCapabilities{})
	sid := c.newSession(t.TempDir())
	cases := []struct {
		method string
		params any
	}{
		{"session/new", map[string]any{"mcpServers": []any{}}},
		{"session/new", map[string]any{"cwd": "relative/dir", "mcpServers": []any{}}},
		{"session/prompt", map[string]any{"sessionId": sid, "prompt": "text"}},
		{"session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "video"}}}},
		{"authenticate", map[string]any{}},
		{"authenticate", map[string]any{"methodId": "nope"}},
		{"session/set_config_option", map[string]any{"sessionId": sid, "configId": "nope", "value": "x"}},
		{"session/set_config_option", map[string]any{"sessionId": sid, "configId": "model", "value": "nope"}},
		{"session/set_mode", map[string]any{"sessionId": sid, "modeId": "nope"}},
		{"session/list", map[string]any{"cursor": "!!"}},
	}
	for _, tc := range cases {
		if _, e := c.call(tc.method, tc.params); e == nil || e.Code != schema.CodeInvalidParams {
			t.Errorf("%s %v: got %v", tc.method, tc.params, e)
		}
	}
}

// C20: an unknown sessionId gets -32002 with data.sessionId.
func TestUnknownSession_ResourceNotFound(t *testing.T) {
	c := newClient(t, "")
	c.init(schema.ClientCapabilities{})
	cwd := t.TempDir()
	for _, tc := range []struct {
		method string
		params any
	}{
		{"session/prompt", schema.PromptRequest{SessionID: "nope", Prompt: []schema.ContentBlock{schema.TextBlock("hi")}}},
		{"session/set_mode", schema.SetSessionModeRequest{SessionID: "nope", ModeID: "plan"}},
		{"session/set_config_option", map[string]any{"sessionId": "nope", "configId": "model", "value": "x"}},
		{"session/load", schema.LoadSessionRequest{SessionID: "nope", Cwd: cwd, McpServers: []schema.McpServer{}}},
		{"session/resume", schema.LoadSessionRequest{SessionID: "nope", Cwd: cwd}},
	} {
		_, e := c.call(tc.method, tc.params)
		if e == nil || e.Code != schema.CodeResourceNotFound || fmt.Sprint(e.Data.(map[string]any)["sessionId"]) != "nope" {
			t.Errorf("%s: %+v", tc.method, e)
		}
	}
}

// C18, C19: session ids are non-empty and unique; the agent runs in the
// given cwd with the editor's MCP servers (null arrays are empty, an unknown
// transport is skipped).
func TestNewSession_MCPServersHandedOver(t *testing.T) {
	c := newClient(t, "")
	c.init(schema.ClientCapabilities{})
	cwd := t.TempDir()
	raw := fmt.Sprintf(`{"cwd":%q,"mcpServers":[{"name":"fs","command":"/bin/mcp","args":null,"env":[{"name":"K","value":"V"}]},{"type":"http","name":"api","url":"https://x/mcp","headers":[]},{"type":"acp","name":"weird","id":"1"}]}`, cwd)
	var r schema.NewSessionResponse
	c.must("session/new", json.RawMessage(raw), &r)
	// The other session's warm start races this one's: it runs elsewhere.
	if r.SessionID == "" || r.SessionID == c.newSession(t.TempDir()) {
		t.Fatal("session ids must be non-empty and unique")
	}
	c.prompt(r.SessionID, "hi")
	a, _ := c.reg.Get("replay")
	var starts []adapters.SessionOptions
	for _, s := range a.(*replay.Adapter).Starts() {
		if s.Cwd == cwd {
			starts = append(starts, s)
		}
	}
	if len(starts) != 1 {
		t.Fatalf("%d agent starts for the session, want its warm start only", len(starts))
	}
	if got := starts[0]; len(got.MCPServers) != 2 || got.MCPServers[0].Env["K"] != "V" || got.MCPServers[1].URL != "https://x/mcp" || got.Editor == nil {
		t.Fatalf("start options %+v", got)
	}
	if c2, _ := c.call("session/new", json.RawMessage(fmt.Sprintf(`{"cwd":%q,"mcpServers":null}`, cwd))); c2 == nil {
		t.Fatal("null mcpServers rejected")
	}
}

// C26, C27, C30, C31: every update precedes the prompt response; stopReason
// comes from the enum; an update for an unknown tool id becomes a titled
// tool_call; locations and diff paths are absolute.
func TestPromptWaitsForUpdates(t *testing.T) {
	script := scriptFile(t,
		`{"event":{"type":"thought","text":"hmm"}}`,
		`{"event":{"type":"plan","plan":[{"content":"a","priority":"high","status":"pending"}]}}`,
		`{"event":{"type":"tool_call","tool":{"id":"t1","name":"read_file","kind":"read","status":"pending","locations":[{"path":"main.go","line":3}]}}}`,
		`{"event":{"type":"tool_update","tool":{"id":"t1","status":"completed","content":[{"type":"text","text":"ok"},{"type":"diff","path":"a.go","newText":"x"}]}}}`,
		`{"event":{"type":"tool_update","tool":{"id":"t2","status":"failed"}}}`,
		`{"event":{"type":"usage","usage":{"inputTokens":5}}}`,
		`{"event":{"type":"usage","usage":{"contextUsed":10,"contextSize":100,"costUsd":0.5}}}`,
		`{"event":{"type":"session_info","session":{"agentSessionId":"agent-1","title":"T"}}}`,
		`{"event":{"type":"raw","source":"x:y","raw":{"a":1}}}`,
		`{"event":{"type":"text","text":"hello "}}`,
		`{"event":{"type":"text","text":"world"}}`,
		`{"event":{"type":"done","stopReason":"max_tokens"}}`,
	)
	c := newClient(t, script)
	sid, cwd := c.start(t)
	ch := c.sendID("42", "session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("go"), {Type: schema.BlockResourceLink, URI: "file:///x", Name: "x"}}})
	if r := c.wait(ch); !strings.Contains(string(r.Result), "max_tokens") {
		t.Fatalf("result %s", r.Result)
	}
	var kinds []string
	for _, u := range c.updates(sid) {
		kinds = append(kinds, u.Kind())
	}
	want := "agent_thought_chunk plan tool_call tool_call_update tool_call usage_update session_info_update agent_message_chunk agent_message_chunk"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("updates\n got %v\nwant %v", kinds, want)
	}
	last := 0
	for i, m := range c.messages() {
		if m.Method == "session/update" {
			last = i
		}
	}
	if resp := c.indexOfResponse("42"); resp < last {
		t.Fatalf("update at %d after response at %d", last, resp)
	}
	ups := c.updates(sid)
	if p := ups[2].ToolCall.Locations[0].Path; p != filepath.Join(cwd, "main.go") {
		t.Errorf("location not absolute: %s", p)
	}
	if p := ups[3].ToolCallUpdate.Content[1].Path; p != filepath.Join(cwd, "a.go") {
		t.Errorf("diff path not absolute: %s", p)
	}
	if ups[4].ToolCall == nil || ups[4].ToolCall.Title == "" {
		t.Errorf("update for unknown tool id must become a titled tool_call: %+v", ups[4])
	}
	rec, _ := OpenStore(c.state).Get(sid)
	if rec == nil || rec.AgentSessionID != "agent-1" || rec.Title != "T" {
		t.Fatalf("index record %+v", rec)
	}
}

// A turn that ends in an error answers session/prompt with a JSON-RPC
// error (a missing login with -32000, which editors turn into their login
// UI), after the updates that arrived; data carries hub's code and detail.
func TestPrompt_FailedTurnAnswersError(t *testing.T) {
	tests := []struct {
		name, step string
		code       int
		hubCode    string
	}{
		{"crash", `{"fail":"agent crashed: boom"}`, schema.CodeInternalError, "crash"},
		{"provider", `{"event":{"type":"error","error":{"message":"HTTP 400: bad request","code":"provider","detail":"body","fatal":true}}}`,
			schema.CodeInternalError, "provider"},
		{"auth", `{"event":{"type":"error","error":{"message":"Not logged in","code":"auth","fatal":true}}}`, schema.CodeAuthRequired, "auth"},
		{"only a warning", `{"event":{"type":"error","error":{"message":"model refused: 400","code":"provider"}}}`, schema.CodeInternalError, "provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, scriptFile(t, `{"event":{"type":"thought","text":"thinking"}}`, tt.step))
			sid, _ := c.start(t)
			_, e := c.call("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("x")}})
			if e == nil || e.Code != tt.code {
				t.Fatalf("prompt answered error %v, want code %d", e, tt.code)
			}
			var data struct {
				Code  string `json:"code"`
				Agent string `json:"agent"`
			}
			if b, _ := json.Marshal(e.Data); json.Unmarshal(b, &data) != nil || data.Code != tt.hubCode || data.Agent == "" {
				t.Fatalf("error data %s, want code %q and the agent", b, tt.hubCode)
			}
			ups := c.updates(sid)
			if len(ups) == 0 || ups[0].AgentThoughtChunk == nil {
				t.Fatalf("the update before the error is missing: %+v", ups)
			}
		})
	}
}

// C37, C40: session/cancel mid-turn answers the prompt with the result
// {"stopReason":"cancelled"}; a cancel while idle is ignored and the next
// prompt works.
func TestCancel_AnswersCancelledPromptly(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"working"}}`, `{"wait_cancel":true}`, `{"turn":true}`, `{"event":{"type":"text","text":"second"}}`))
	sid, _ := c.start(t)
	ch := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("x")}})
	c.waitFor(t, func() bool { return len(c.updates(sid)) == 1 })
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	r := within(t, ch, 10*time.Second, "prompt after session/cancel") // a hang guard, not a speed check
	if r.Error != nil || !strings.Contains(string(r.Result), `"cancelled"`) {
		t.Fatalf("cancel answered %s %v", r.Result, r.Error)
	}
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid}) // idle: ignored
	if s := c.prompt(sid, "y"); s != schema.StopEndTurn {
		t.Fatalf("next prompt %s", s)
	}
}

// C37: an agent that ignores Cancel still gets its prompt answered cancelled
// (after CancelGrace).
func TestCancel_StuckAgentStillAnswered(t *testing.T) {
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(stuck{})
		o.DefaultAgent = "stuck"
		o.CancelGrace = 100 * time.Millisecond
	})
	sid, _ := c.start(t)
	ch := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("x")}})
	c.waitFor(t, func() bool { return len(c.updates(sid)) == 1 })
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	if r := c.wait(ch); !strings.Contains(string(r.Result), "cancelled") {
		t.Fatalf("got %s %v", r.Result, r.Error)
	}
	// the editor is told which agent hub stopped (its first "stuck" is the turn's own text)
	if told := strings.TrimPrefix(c.agentText(sid), "stuck"); !strings.Contains(told, "stuck") {
		t.Fatalf("the editor was told %q, not that hub stopped the agent", told)
	}
}

// C34: a prompt sent while a turn runs is queued and answered after it,
// in order; it does not run before the first ends.
func TestQueue_SecondPromptRunsAfterTheFirst(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"one"}}`, `{"sleep_ms":50}`, `{"turn":true}`,
		`{"event":{"type":"text","text":"two"}}`, `{"turn":true}`))
	sid, _ := c.start(t)
	first := c.sendID("101", "session/prompt", promptReq(sid, "x"))
	second := c.sendID("102", "session/prompt", promptReq(sid, "y"))
	r2 := c.wait(second)
	r1 := c.wait(first)
	if !strings.Contains(string(r1.Result), "end_turn") || !strings.Contains(string(r2.Result), "end_turn") {
		t.Fatalf("answers %s %v / %s %v", r1.Result, r1.Error, r2.Result, r2.Error)
	}
	if c.indexOfResponse("101") > c.indexOfResponse("102") {
		t.Fatal("the queued prompt answered before the first")
	}
	if text := c.agentText(sid); text != "onetwo" {
		t.Fatalf("turns ran out of order: %q", text)
	}
}

// C34: a cancel ends the running turn and drops the queued prompts; each
// answers cancelled.
func TestQueue_CancelAnswersEveryPromptCancelled(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"started"}}`, `{"wait_cancel":true}`))
	sid, _ := c.start(t)
	first := c.async("session/prompt", promptReq(sid, "x"))
	c.waitFor(t, func() bool { return len(c.updates(sid)) >= 1 }) // the first turn runs
	second := c.async("session/prompt", promptReq(sid, "y"))      // queued: the read loop takes it before the cancel
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	for _, ch := range []chan wire{first, second} {
		if r := c.wait(ch); !strings.Contains(string(r.Result), "cancelled") {
			t.Fatalf("answered %s %v, want cancelled", r.Result, r.Error)
		}
	}
}

// C09: other requests are served while a prompt runs.
func TestReadLoop_NotBlockedByPrompt(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"wait_cancel":true}`))
	sid, _ := c.start(t)
	p := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("x")}})
	var l schema.ListSessionsResponse
	c.must("session/list", schema.ListSessionsRequest{}, &l)
	if len(l.Sessions) != 1 {
		t.Fatalf("list during prompt: %+v", l)
	}
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	c.wait(p)
}

const permScript = `{"permission":{"tool":{"id":"t1","name":"bash","title":"Run ls","kind":"execute"}},"allowed":[{"event":{"type":"text","text":"ran"}}],"rejected":[{"event":{"type":"text","text":"skipped"}}]}`

// C30, C36, C38: the tool_call precedes its permission request; allow runs
// the tool, reject (or a client error) does not, a cancelled outcome ends
// the turn cancelled.
func TestPermission_Outcomes(t *testing.T) {
	cases := []struct {
		name   string
		answer func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error)
		text   string
		stop   string
	}{
		{"allow", selectKind("allow_once"), "ran", schema.StopEndTurn},
		{"reject", selectKind("reject_once"), "skipped", schema.StopEndTurn},
		{"cancelled outcome", func(schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
			return schema.RequestPermissionResponse{Outcome: schema.RequestPermissionOutcome{Outcome: "cancelled"}}, nil
		}, "", schema.StopCancelled},
		{"rpc error is reject", func(schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
			return nil, jsonrpc.NewError(-32603, "boom", nil)
		}, "skipped", schema.StopEndTurn},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, scriptFile(t, permScript))
			c.perm = tc.answer
			sid, _ := c.start(t)
			if s := c.prompt(sid, "x"); s != tc.stop {
				t.Fatalf("stop %s", s)
			}
			var text string
			for _, u := range c.updates(sid) {
				if u.AgentMessageChunk != nil {
					text += u.AgentMessageChunk.Content.Text
				}
			}
			if text != tc.text {
				t.Fatalf("text %q", text)
			}
			ups := c.updates(sid)
			if len(ups) == 0 || ups[0].ToolCall == nil || ups[0].ToolCall.ToolCallID != "t1" {
				t.Fatalf("tool_call must precede the permission request: %+v", ups)
			}
		})
	}
}

func selectKind(kind string) func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
	return func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		for _, o := range p.Options {
			if o.Kind == kind {
				return schema.RequestPermissionResponse{Outcome: schema.RequestPermissionOutcome{Outcome: "selected", OptionID: o.OptionID}}, nil
			}
		}
		return nil, jsonrpc.NewError(-32603, "no option", nil)
	}
}

// C36: "always" answers are remembered for the session: the editor is asked
// once, and the second request is answered the same way (allowed: the tool
// runs again; rejected: it is skipped again).
func TestPermission_AlwaysRemembered(t *testing.T) {
	for _, tc := range []struct{ kind, text string }{
		{"allow_always", "ran"},
		{"reject_always", "skipped"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			c := newClient(t, scriptFile(t, permScript, `{"turn":true}`, permScript))
			var mu sync.Mutex
			asked := 0
			c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
				mu.Lock()
				asked++
				mu.Unlock()
				return selectKind(tc.kind)(p)
			}
			sid, _ := c.start(t)
			c.prompt(sid, "1")
			c.prompt(sid, "2")
			mu.Lock()
			defer mu.Unlock()
			if asked != 1 {
				t.Fatalf("asked %d times", asked)
			}
			if got := turnText(c.updates(sid)); got != tc.text+tc.text {
				t.Fatalf("turns said %q, want %s twice", got, tc.text)
			}
		})
	}
}

// "Always" covers the command's program and subcommand, never another
// command, and a compound command only itself.
func TestPermission_AlwaysScopedToCommand(t *testing.T) {
	perm := func(id, cmd string) string {
		return `{"permission":{"tool":{"id":"` + id + `","name":"Bash","title":"` + cmd + `","kind":"execute","rawInput":{"command":"` + cmd + `"}}},"allowed":[{"event":{"type":"text","text":"ran ` + id + `"}}],"rejected":[{"event":{"type":"text","text":"skipped ` + id + `"}}]}`
	}
	c := newClient(t, scriptFile(t,
		perm("a", "go test ./a"), `{"turn":true}`,
		perm("b", "go test ./b"), `{"turn":true}`,
		perm("c", "rm -rf build"), `{"turn":true}`,
		perm("d", "go test ./a && rm -rf x"), `{"turn":true}`,
		perm("e", "go test ./a && rm -rf x")))
	var asked []string
	c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		asked = append(asked, p.ToolCall.ToolCallID)
		if p.ToolCall.ToolCallID == "c" {
			return selectKind("reject_once")(p)
		}
		return selectKind("allow_always")(p)
	}
	sid, _ := c.start(t)
	for i := range 5 {
		c.prompt(sid, fmt.Sprint(i))
	}
	if got := strings.Join(asked, ","); got != "a,c,d" {
		t.Fatalf("editor asked for %q, want a,c,d (b covered by go test, e by its own exact command)", got)
	}
	var ran []string
	for _, u := range c.updates(sid) {
		if u.AgentMessageChunk != nil {
			ran = append(ran, u.AgentMessageChunk.Content.Text)
		}
	}
	if got := strings.Join(ran, ","); got != "ran a,ran b,skipped c,ran d,ran e" {
		t.Fatalf("outcomes %q", got)
	}
}

// C38: session/cancel while a permission request is pending resolves it for
// the agent as cancelled; the tool does not run.
func TestPermission_PendingResolvedOnCancel(t *testing.T) {
	c := newClient(t, scriptFile(t, permScript))
	asked := make(chan struct{}, 1)
	c.perm = func(schema.RequestPermissionRequest) (any, *jsonrpc.Error) { asked <- struct{}{}; return nil, nil } // never answers
	sid, _ := c.start(t)
	p := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("x")}})
	<-asked
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	r := c.wait(p)
	if !strings.Contains(string(r.Result), "cancelled") {
		t.Fatalf("got %s %v", r.Result, r.Error)
	}
	for _, u := range c.updates(sid) {
		if u.AgentMessageChunk != nil {
			t.Fatalf("tool ran after cancel: %+v", u)
		}
	}
}

// C22, C25: after a restart the session is listed, and session/load replays
// its history, every update before the response, which is an object.
func TestLoad_ReplaysHistoryBeforeResponse(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"a"}}`, `{"event":{"type":"text","text":"b"}}`, `{"event":{"type":"tool_call","tool":{"id":"t","title":"T","kind":"read"}}}`))
	sid, cwd := c.start(t)
	c.prompt(sid, "question")
	c.close()

	c2 := startClient(t, Options{Registry: c.reg, StateDir: c.state, DefaultAgent: "replay"})
	c2.init(schema.ClientCapabilities{})
	var l schema.ListSessionsResponse
	c2.must("session/list", schema.ListSessionsRequest{Cwd: cwd}, &l)
	if len(l.Sessions) != 1 || l.Sessions[0].SessionID != sid {
		t.Fatalf("list %+v", l)
	}
	if r := c2.wait(c2.sendID("9", "session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}})); r.Error != nil || !strings.HasPrefix(string(r.Result), "{") {
		t.Fatalf("session/load answered %s %v, want an object", r.Result, r.Error)
	}
	ups := c2.updates(sid)
	// The tool call the agent left open was ended failed in the turn (C30),
	// and the replay says so too.
	if len(ups) != 4 || ups[0].UserMessageChunk.Content.Text != "question" || ups[1].AgentMessageChunk.Content.Text != "ab" ||
		ups[2].ToolCall == nil || ups[3].ToolCallUpdate == nil || ups[3].ToolCallUpdate.Status != "failed" {
		t.Fatalf("replay %+v", ups)
	}
	if resp := c2.indexOfResponse("9"); resp < len(c2.messages())-1 {
		t.Fatalf("updates after load response")
	}
}

// C23: session/resume sends no updates and resumes the agent's own session.
func TestResume_NoReplayAndResumeID(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"event":{"type":"session_info","session":{"agentSessionId":"agent-7"}}}`, `{"event":{"type":"text","text":"a"}}`))
	sid, cwd := c.start(t)
	c.prompt(sid, "q")
	c.must("session/close", schema.SessionIDRequest{SessionID: sid}, nil)
	before := len(c.updates(sid))
	c.must("session/resume", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd}, nil)
	if len(c.updates(sid)) != before {
		t.Fatal("resume replayed history")
	}
	c.prompt(sid, "again")
	a, _ := c.reg.Get("replay")
	starts := a.(*replay.Adapter).Starts()
	if starts[len(starts)-1].ResumeID != "agent-7" {
		t.Fatalf("resume id %q", starts[len(starts)-1].ResumeID)
	}
}

// C24: session/close cancels the running prompt (answered cancelled) and
// returns {}; closing an unknown session succeeds.
func TestClose_CancelsInflightPrompt(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"running"}}`, `{"wait_cancel":true}`))
	sid, _ := c.start(t)
	p := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("x")}})
	c.waitFor(t, func() bool { return len(c.updates(sid)) == 1 })
	c.must("session/close", schema.SessionIDRequest{SessionID: sid}, nil)
	if r := c.wait(p); !strings.Contains(string(r.Result), "cancelled") {
		t.Fatalf("got %s %v", r.Result, r.Error)
	}
	c.must("session/close", schema.SessionIDRequest{SessionID: "unknown"}, nil)
}

// C25: an empty list is {"sessions":[]}; pages end without nextCursor; the
// cwd filter holds; deleted and unknown sessions delete fine.
func TestList_PagingFilterDelete(t *testing.T) {
	c := newClient(t, "")
	c.init(schema.ClientCapabilities{})
	var empty schema.ListSessionsResponse
	res, _ := c.call("session/list", map[string]any{})
	if string(res) != `{"sessions":[]}` {
		t.Fatalf("empty list %s", res)
	}
	_ = empty
	a, b := t.TempDir(), t.TempDir()
	for range listPageSize + 2 {
		c.newSession(a)
	}
	only := c.newSession(b)
	var p1, p2, fb schema.ListSessionsResponse
	c.must("session/list", schema.ListSessionsRequest{Cwd: a}, &p1)
	c.must("session/list", schema.ListSessionsRequest{Cwd: a, Cursor: p1.NextCursor}, &p2)
	if len(p1.Sessions) != listPageSize || p1.NextCursor == "" || len(p2.Sessions) != 2 || p2.NextCursor != "" {
		t.Fatalf("pages %d/%q %d/%q", len(p1.Sessions), p1.NextCursor, len(p2.Sessions), p2.NextCursor)
	}
	c.must("session/list", schema.ListSessionsRequest{Cwd: b}, &fb)
	if len(fb.Sessions) != 1 || fb.Sessions[0].SessionID != only {
		t.Fatalf("cwd filter %+v", fb)
	}
	c.must("session/delete", schema.SessionIDRequest{SessionID: only}, nil)
	c.must("session/delete", schema.SessionIDRequest{SessionID: "never-existed"}, nil)
	c.must("session/list", schema.ListSessionsRequest{Cwd: b}, &fb)
	if len(fb.Sessions) != 0 {
		t.Fatalf("deleted session listed %+v", fb)
	}
}

// C21: agent, model and mode are select options; set_config_option returns
// the complete list with the new value; switching agent starts the new one.
func TestConfigOptions_AgentModelMode(t *testing.T) {
	c := newClient(t, "", func(o *Options) { o.Registry.Register(named{replay.New(""), "other"}) })
	c.init(schema.ClientCapabilities{})
	var r schema.NewSessionResponse
	c.must("session/new", schema.NewSessionRequest{Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, &r)
	ids := []string{}
	for _, o := range r.ConfigOptions {
		ids = append(ids, o.ID+"="+o.CurrentValue)
	}
	if strings.Join(ids, ",") != "agent=replay,model=replay-fast,mode=default,handover=brief" || r.Modes == nil || r.Modes.CurrentModeID != "default" {
		t.Fatalf("options %v modes %+v", ids, r.Modes)
	}
	c.prompt(r.SessionID, "x")
	var s schema.SetSessionConfigOptionResponse
	c.must("session/set_config_option", map[string]any{"sessionId": r.SessionID, "configId": "model", "value": "replay-smart"}, &s)
	if len(s.ConfigOptions) != 4 || s.ConfigOptions[1].CurrentValue != "replay-smart" {
		t.Fatalf("after model %+v", s)
	}
	c.must("session/set_mode", schema.SetSessionModeRequest{SessionID: r.SessionID, ModeID: "plan"}, nil)
	c.must("session/set_config_option", map[string]any{"sessionId": r.SessionID, "configId": "agent", "value": "other"}, &s)
	if s.ConfigOptions[0].CurrentValue != "other" {
		t.Fatalf("agent not switched %+v", s)
	}
	c.prompt(r.SessionID, "y")
	a, _ := c.reg.Get("other")
	if n := len(a.(named).Starts()); n != 1 {
		t.Fatalf("switching agent must start a fresh adapter session, got %d starts", n)
	}
}

// C10: a 3 MB prompt and its 3 MB echo pass; "\r\n" line ends are accepted.
func TestLargeMessage_SeveralMB(t *testing.T) {
	c := newClient(t, "")
	sid, _ := c.start(t)
	big := strings.Repeat("x", 3<<20)
	if s := c.prompt(sid, big); s != schema.StopEndTurn {
		t.Fatalf("stop %s", s)
	}
	ups := c.updates(sid)
	if len(ups) != 1 || len(ups[0].AgentMessageChunk.Content.Text) != len(big) {
		t.Fatal("echo of a 3 MB prompt lost")
	}
	c.raw(`{"jsonrpc":"2.0","id":"crlf","method":"session/list","params":{}}` + "\r\n")
	c.waitFor(t, func() bool { return c.indexOfResponse(`"crlf"`) >= 0 })
}

// C11: stdin EOF during a turn ends Serve.
func TestEOF_ClosesSessions(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"running"}}`, `{"wait_cancel":true}`))
	sid, _ := c.start(t)
	c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("x")}})
	c.waitFor(t, func() bool { return len(c.updates(sid)) == 1 })
	c.close() // fails the test if Serve does not return
}

type fakeSkills struct{}

func (fakeSkills) Commands(string) []adapters.Command {
	return []adapters.Command{{Name: "review", Description: "Review code", InputHint: "what"}}
}

func (fakeSkills) Expand(_, name, args string) (string, bool) {
	return "EXPANDED " + name + ": " + args, name == "review"
}

// C44: available_commands_update follows the session/new response; a skill
// command expands.
func TestSkills_CommandsAfterNewResponseAndExpansion(t *testing.T) {
	c := newClient(t, "", func(o *Options) { o.Skills = fakeSkills{} })
	c.init(schema.ClientCapabilities{})
	ch := c.sendID("77", "session/new", schema.NewSessionRequest{Cwd: t.TempDir(), McpServers: []schema.McpServer{}})
	var r schema.NewSessionResponse
	_ = json.Unmarshal(c.wait(ch).Result, &r)
	c.waitFor(t, func() bool { return len(c.updates(r.SessionID)) == 1 })
	ups := c.updates(r.SessionID)
	if ups[0].AvailableCommands == nil || ups[0].AvailableCommands.AvailableCommands[0].Input.Hint != "what" {
		t.Fatalf("commands %+v", ups)
	}
	for i, m := range c.messages() {
		if m.Method == "session/update" && i < c.indexOfResponse("77") {
			t.Fatal("update before session/new response (C44)")
		}
	}
	c.prompt(r.SessionID, "/review the diff")
	ups = c.updates(r.SessionID)
	if got := ups[len(ups)-1].AgentMessageChunk.Content.Text; got != "EXPANDED review: the diff" {
		t.Fatalf("echo %q", got)
	}
	c.prompt(r.SessionID, "/other x")
	ups = c.updates(r.SessionID)
	if got := ups[len(ups)-1].AgentMessageChunk.Content.Text; got != "/other x" {
		t.Fatalf("non-skill command changed: %q", got)
	}
}

// C15: fs/terminal methods reach the editor only as far as it advertised
// them.
func TestEditorClient_RespectsCapabilities(t *testing.T) {
	c := newClient(t, "")
	var calls []string
	c.fs = func(method string, params json.RawMessage) (any, *jsonrpc.Error) {
		calls = append(calls, method+" "+string(params))
		if method == "fs/read_text_file" {
			return schema.ReadTextFileResponse{Content: "data"}, nil
		}
		return json.RawMessage("null"), nil
	}
	c.init(schema.ClientCapabilities{FS: schema.FileSystemCapabilities{ReadTextFile: true}})
	sid := c.newSession(t.TempDir())
	c.prompt(sid, "x")
	a, _ := c.reg.Get("replay")
	ed := a.(*replay.Adapter).Starts()[0].Editor
	if !ed.CanReadFile() || ed.CanWriteFile() || ed.CanTerminal() {
		t.Fatal("capabilities not as advertised")
	}
	ctx := t.Context()
	if s, err := ed.ReadTextFile(ctx, "/a", 2, 3); err != nil || s != "data" {
		t.Fatalf("read %q %v", s, err)
	}
	if err := ed.WriteTextFile(ctx, "/a", "x"); err == nil {
		t.Fatal("write without capability must fail locally")
	}
	if _, err := ed.Call(ctx, "terminal/create", json.RawMessage(`{}`)); err == nil {
		t.Fatal("terminal without capability must fail locally")
	}
	if len(calls) != 1 || !strings.Contains(calls[0], `"sessionId":"`+sid+`"`) {
		t.Fatalf("calls %v", calls)
	}
}

// C43: null results of client methods count as {}.
func TestEditorClient_NullResultAccepted(t *testing.T) {
	c := newClient(t, "")
	c.fs = func(string, json.RawMessage) (any, *jsonrpc.Error) { return json.RawMessage("null"), nil }
	c.init(schema.ClientCapabilities{FS: schema.FileSystemCapabilities{WriteTextFile: true}, Terminal: true})
	sid := c.newSession(t.TempDir())
	c.prompt(sid, "x")
	a, _ := c.reg.Get("replay")
	ed := a.(*replay.Adapter).Starts()[0].Editor
	if err := ed.WriteTextFile(t.Context(), "/a", "x"); err != nil {
		t.Fatal(err)
	}
	if res, err := ed.Call(t.Context(), "terminal/release", json.RawMessage(`{"terminalId":"t"}`)); err != nil || string(res) != "{}" {
		t.Fatalf("release %s %v", res, err)
	}
}

func TestSessionIndex_KeepsBackendIDWithoutSessionInfo(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"hi"}}`))
	sid, _ := c.start(t)
	if r := c.prompt(sid, "x"); r != schema.StopEndTurn {
		t.Fatalf("stop %s", r)
	}
	rec, _ := OpenStore(c.state).Get(sid)
	if rec == nil || !strings.HasPrefix(rec.AgentSessionID, "replay-") {
		t.Fatalf("index record lacks the backend's session id: %+v", rec)
	}
}

// C31: relative fs/* paths and terminal/create cwd are made absolute against
// the session cwd.
func TestEditorClient_RelativePathsMadeAbsolute(t *testing.T) {
	c := newClient(t, "")
	var calls []map[string]any
	c.fs = func(method string, params json.RawMessage) (any, *jsonrpc.Error) {
		var m map[string]any
		_ = json.Unmarshal(params, &m)
		m["method"] = method
		calls = append(calls, m)
		if method == "terminal/create" {
			return map[string]any{"terminalId": "t1"}, nil
		}
		return schema.ReadTextFileResponse{Content: "data"}, nil
	}
	c.init(schema.ClientCapabilities{FS: schema.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true})
	cwd := t.TempDir()
	sid := c.newSession(cwd)
	c.prompt(sid, "x")
	a, _ := c.reg.Get("replay")
	ed := a.(*replay.Adapter).Starts()[0].Editor
	ctx := t.Context()
	_, _ = ed.ReadTextFile(ctx, "src/a.go", 0, 0)
	_ = ed.WriteTextFile(ctx, osAbs("/abs/b.go"), "x")
	_, _ = ed.Call(ctx, "fs/read_text_file", json.RawMessage(`{"path":"c.go"}`))
	_, _ = ed.Call(ctx, "terminal/create", json.RawMessage(`{"command":"ls","cwd":"sub"}`))
	want := []string{filepath.Join(cwd, "src", "a.go"), osAbs("/abs/b.go"), filepath.Join(cwd, "c.go"), filepath.Join(cwd, "sub")}
	if len(calls) != len(want) {
		t.Fatalf("calls %v", calls)
	}
	for i, w := range want {
		got := calls[i]["path"]
		if calls[i]["method"] == "terminal/create" {
			got = calls[i]["cwd"]
		}
		if got != w {
			t.Errorf("call %d (%v): path %v, want %s", i, calls[i]["method"], got, w)
		}
	}
}

// A cursor is the client's to send: one past the end (sessions deleted meanwhile, or any
// number up to the largest int) is an empty page, never a failure of hub's own.
func TestList_CursorPastTheEndIsAnEmptyPage(t *testing.T) {
	c := newClient(t, "")
	c.init(schema.ClientCapabilities{})
	cwd := t.TempDir()
	c.newSession(cwd)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		cursor  string
		invalid bool
	}{
		{enc("1"), false},
		{enc("7"), false},
		{enc(strconv.Itoa(math.MaxInt - 10)), false},
		{enc(strconv.Itoa(math.MaxInt)), false},
		{enc("-1"), true},
		{enc("x"), true},
		{"%%", true},
	} {
		res, err := c.call("session/list", schema.ListSessionsRequest{Cwd: cwd, Cursor: tc.cursor})
		if tc.invalid {
			if err == nil || err.Code != schema.CodeInvalidParams {
				t.Errorf("cursor %q: %s %+v, want invalid params", tc.cursor, res, err)
			}
			continue
		}
		if err != nil || string(res) != `{"sessions":[]}` {
			t.Errorf("cursor %q: %s %+v, want an empty page", tc.cursor, res, err)
		}
	}
}
