package acpclient

import (
	"github.com/hubdev/hub/internal/proc/proctest"

	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The test binary doubles as a scripted ACP agent: with HUB_ACPCLIENT_FAKE=1
// TestMain runs fakeAgent on stdio instead of the tests. The prompt text
// selects the script.

const fakeEnv = "HUB_ACPCLIENT_FAKE"

// fakeCloseEnv names a file the fake appends every session/close to; its
// value "advertise:PATH" also makes the fake advertise session close,
// "exit:PATH" advertises it and exits on it without an answer, and
// "hang:PATH" advertises it but neither logs nor answers it.
const fakeCloseEnv = "HUB_ACPCLIENT_FAKE_CLOSE"

// fakeVersionEnv sets agentInfo.version ("none" leaves agentInfo out).
const fakeVersionEnv = "HUB_ACPCLIENT_FAKE_VERSION"

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

type fakeAgent struct {
	out     io.Writer
	wmu     sync.Mutex
	in      chan fakeMsg
	seq     int
	session string
	caps    map[string]any
	cancel  chan struct{}
	cmu     sync.Mutex
}

func runFakeAgent() {
	a := &fakeAgent{out: os.Stdout, in: make(chan fakeMsg, 64)}
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m fakeMsg
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			if m.Method == "session/cancel" {
				a.cmu.Lock()
				if a.cancel != nil {
					close(a.cancel)
					a.cancel = nil
				}
				a.cmu.Unlock()
				continue
			}
			a.in <- m
		}
		close(a.in)
	}()
	fmt.Fprintln(os.Stdout, "fake agent banner (not JSON)")
	for m := range a.in {
		a.handle(m)
	}
}

// fakeConfig is the fake's config options, with id set to value: a model
// and an effort select and a boolean.
func fakeConfig(id string, value any) []any {
	cur := map[string]any{"model": "fast", "effort": "medium", "web": false}
	if id != "" {
		cur[id] = value
	}
	return []any{
		map[string]any{"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": cur["model"],
			"options": []any{map[string]any{"value": "fast", "name": "Fast"}, map[string]any{"value": "smart", "name": "Smart"}}},
		map[string]any{"id": "effort", "name": "Effort", "category": "thought_level", "type": "select", "currentValue": cur["effort"],
			"options": []any{map[string]any{"value": "low", "name": "Low"}, map[string]any{"value": "medium", "name": "Medium"}}},
		map[string]any{"id": "web", "name": "Web search", "type": "boolean", "currentValue": cur["web"]},
	}
}

func (a *fakeAgent) send(v any) {
	b, _ := json.Marshal(v)
	a.wmu.Lock()
	defer a.wmu.Unlock()
	_, _ = a.out.Write(append(b, '\n'))
}

func (a *fakeAgent) reply(id json.RawMessage, result any) {
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (a *fakeAgent) update(u map[string]any) {
	a.send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": a.session, "update": u}})
}

func (a *fakeAgent) text(s string) {
	a.update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": s}})
}

// call sends a request to the client and waits for its response.
func (a *fakeAgent) call(method string, params any) fakeMsg {
	a.seq++
	id := fmt.Sprintf(`"agent-%d"`, a.seq)
	a.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	for m := range a.in {
		if string(m.ID) == id && m.Method == "" {
			return m
		}
	}
	os.Exit(0)
	return fakeMsg{}
}

func (a *fakeAgent) handle(m fakeMsg) {
	var p map[string]any
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "initialize":
		a.caps, _ = p["clientCapabilities"].(map[string]any)
		caps := map[string]any{"loadSession": true}
		if mode, _, _ := strings.Cut(os.Getenv(fakeCloseEnv), ":"); mode != "" && mode != "off" {
			caps["sessionCapabilities"] = map[string]any{"close": map[string]any{}}
		}
		res := map[string]any{"protocolVersion": 1, "agentCapabilities": caps}
		switch v := os.Getenv(fakeVersionEnv); v {
		case "none":
		case "odd": // members of unexpected types
			res["agentInfo"] = map[string]any{"name": "fake", "version": 7}
			caps["promptCapabilities"] = map[string]any{"image": "yes", "audio": true}
		case "":
			res["agentInfo"] = map[string]any{"name": "fake", "version": "1"}
		default:
			res["agentInfo"] = map[string]any{"name": "fake", "version": v}
		}
		a.reply(m.ID, res)
	case "session/new":
		if strings.Contains(fmt.Sprint(p["cwd"]), "needs-auth") {
			a.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32000, "message": "Authentication required"}})
			return
		}
		a.session = "fake-1"
		if strings.Contains(fmt.Sprint(p["cwd"]), "unknown-early") { // before any turn
			a.update(map[string]any{"sessionUpdate": "hologram_update", "n": 0})
			a.send(map[string]any{"jsonrpc": "2.0", "method": "x/telemetry", "params": map[string]any{"k": "v"}})
		}
		res := map[string]any{"sessionId": a.session, "configOptions": fakeConfig("", nil)}
		if os.Getenv(fakeVersionEnv) == "odd" {
			res["modes"] = map[string]any{"currentModeId": 5, "availableModes": []any{}}
		}
		a.reply(m.ID, res)
		a.update(map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": []any{map[string]any{"name": "web", "description": "search"}}})
	case "session/load":
		a.session = fmt.Sprint(p["sessionId"])
		a.update(map[string]any{"sessionUpdate": "user_message_chunk", "content": map[string]any{"type": "text", "text": "old question"}})
		a.text("old answer")
		a.update(map[string]any{"sessionUpdate": "usage_update", "used": 10, "size": 100, "cost": map[string]any{"amount": 2, "currency": "USD"}})
		a.reply(m.ID, map[string]any{})
	case "session/set_config_option":
		a.reply(m.ID, map[string]any{"configOptions": fakeConfig(fmt.Sprint(p["configId"]), p["value"])})
	case "session/prompt":
		a.prompt(m.ID, p)
	case "session/close":
		a.closeSession(m.ID, p)
	default:
		if len(m.ID) > 0 {
			a.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "nope"}})
		}
	}
}

func (a *fakeAgent) prompt(id json.RawMessage, p map[string]any) {
	blocks, _ := p["prompt"].([]any)
	var text string
	for _, b := range blocks {
		if bm, ok := b.(map[string]any); ok {
			text += fmt.Sprint(bm["text"])
		}
	}
	stop := "end_turn"
	fields := strings.Fields(text)
	cmd := ""
	if len(fields) > 0 {
		cmd = fields[len(fields)-1]
		if len(fields) > 1 && strings.HasPrefix(fields[0], "/") {
			cmd = fields[0]
		}
	}
	switch {
	case cmd == "hello":
		a.update(map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]any{"type": "text", "text": "thinking"}})
		a.text("Hello")
		a.update(map[string]any{"sessionUpdate": "plan", "entries": []any{map[string]any{"content": "greet", "priority": "high", "status": "completed"}}})
	case cmd == "cost": // the session's cost so far: 2 when loaded
		a.update(map[string]any{"sessionUpdate": "usage_update", "used": 20, "size": 100, "cost": map[string]any{"amount": 2.25, "currency": "USD"}})
	case cmd == "who":
		a.text("session=" + a.session)
	case cmd == "perm":
		stop = a.permission()
	case cmd == "withdraw":
		a.withdraw()
	case strings.HasPrefix(cmd, "/read"), strings.HasPrefix(cmd, "/write"):
		a.fs(cmd, fields[1])
	case cmd == "term":
		a.terminal()
	case cmd == "/term":
		a.terminalWith(strings.TrimPrefix(text, "/term "))
	case cmd == "/termcrash": // crashes once its terminal's command said something
		var p map[string]any
		_ = json.Unmarshal([]byte(strings.TrimPrefix(text, "/termcrash ")), &p)
		p["sessionId"] = a.session
		var c struct{ TerminalID string }
		_ = json.Unmarshal(a.call("terminal/create", p).Result, &c)
		for said := false; !said; {
			var o struct{ Output string }
			_ = json.Unmarshal(a.call("terminal/output", map[string]any{"sessionId": a.session, "terminalId": c.TerminalID}).Result, &o)
			said = o.Output != ""
		}
		os.Exit(3)
	case cmd == "/call":
		method, params, _ := strings.Cut(strings.TrimPrefix(text, "/call "), " ")
		a.callRaw(method, params)
	case cmd == "caps":
		b, _ := json.Marshal(a.caps)
		a.text("caps:" + string(b))
	case cmd == "unknown":
		a.unknown()
	case cmd == "wait":
		a.cmu.Lock()
		ch := make(chan struct{})
		a.cancel = ch
		a.cmu.Unlock()
		a.text("waiting")
		<-ch
		stop = "cancelled"
	case cmd == "modelerror": // qodercli's model error: a chunk, then the same message as error 500
		a.text("[Error] The model service did not respond in time.")
		a.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": 500, "message": "The model service did not respond in time."}})
		return
	case cmd == "errortext":
		a.text("[Error] is what the log says")
	case cmd == "crash":
		for i := range 500 {
			a.text(fmt.Sprintf("partial %d;", i))
		}
		fmt.Fprintln(os.Stderr, "loading model\npanic: fake agent exploded")
		os.Exit(3)
	case cmd == "mute": // answers, then closes its output and lingers
		a.reply(id, map[string]any{"stopReason": stop})
		fmt.Fprintln(os.Stderr, "fatal: stdout lost")
		_ = os.Stdout.Close()
		time.Sleep(time.Hour)
	default:
		a.text("echo:" + text)
	}
	a.reply(id, map[string]any{"stopReason": stop, "usage": map[string]any{"inputTokens": 10, "outputTokens": 5}})
}

func (a *fakeAgent) permission() string {
	a.update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "rm -rf build", "kind": "execute", "status": "pending"})
	resp := a.call("session/request_permission", map[string]any{"sessionId": a.session,
		"toolCall": map[string]any{"toolCallId": "t1", "title": "rm -rf build"},
		"options": []any{
			map[string]any{"optionId": "yes-1", "name": "Yes", "kind": "allow_once"},
			map[string]any{"optionId": "no-1", "name": "No", "kind": "reject_once"},
		}})
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	_ = json.Unmarshal(resp.Result, &r)
	switch {
	case r.Outcome.Outcome == "cancelled":
		a.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed"})
		return "cancelled"
	case r.Outcome.OptionID == "yes-1":
		a.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"})
		a.text("ran")
	default:
		a.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed"})
		a.text("rejected:" + r.Outcome.OptionID)
	}
	return "end_turn"
}

// withdraw asks permission, withdraws the request at once with
// $/cancel_request, and says how the client answered it.
func (a *fakeAgent) withdraw() {
	a.seq++
	id := json.RawMessage(fmt.Sprintf(`"agent-%d"`, a.seq))
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "session/request_permission", "params": map[string]any{"sessionId": a.session,
		"toolCall": map[string]any{"toolCallId": "t1", "title": "rm -rf build"}}})
	a.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancel_request", "params": map[string]any{"requestId": id}})
	for m := range a.in {
		if string(m.ID) == string(id) && m.Method == "" {
			a.text("withdrawn:" + string(m.Result) + string(m.Error))
			return
		}
	}
}

func (a *fakeAgent) fs(cmd, path string) {
	if cmd == "/write" {
		resp := a.call("fs/write_text_file", map[string]any{"sessionId": a.session, "path": path, "content": "written by agent\n"})
		a.text("write:" + string(resp.Result) + string(resp.Error))
		return
	}
	resp := a.call("fs/read_text_file", map[string]any{"sessionId": a.session, "path": path, "line": 2, "limit": 1})
	var r struct {
		Content string `json:"content"`
	}
	_ = json.Unmarshal(resp.Result, &r)
	a.text("read:" + r.Content + string(resp.Error))
}

func (a *fakeAgent) terminal() {
	argv := proctest.Command("out:term-out\n", "exit:4")
	argv[0] = selfInWorkspace()
	resp := a.call("terminal/create", map[string]any{"sessionId": a.session, "command": argv[0], "args": argv[1:]})
	var c struct {
		TerminalID string `json:"terminalId"`
	}
	_ = json.Unmarshal(resp.Result, &c)
	w := a.call("terminal/wait_for_exit", map[string]any{"sessionId": a.session, "terminalId": c.TerminalID})
	a.update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "t2", "title": "sh", "kind": "execute", "status": "completed",
		"content": []any{map[string]any{"type": "terminal", "terminalId": c.TerminalID}}})
	o := a.call("terminal/output", map[string]any{"sessionId": a.session, "terminalId": c.TerminalID})
	a.call("terminal/release", map[string]any{"sessionId": a.session, "terminalId": c.TerminalID})
	a.text("exit:" + string(w.Result) + " output:" + string(o.Result))
}

// selfInWorkspace copies the test binary into the agent's working
// directory (the session's) and returns the copy: hub runs terminal
// commands in the sandbox, whose private /tmp hides the go-build folder
// the test binary runs from.
func selfInWorkspace() string {
	exe, err := os.Executable()
	if err != nil {
		return err.Error()
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		return err.Error()
	}
	p, err := filepath.Abs("hub-fake" + filepath.Ext(exe))
	if err == nil {
		err = os.WriteFile(p, b, 0o755)
	}
	if err != nil {
		return err.Error()
	}
	return p
}

func (a *fakeAgent) closeSession(id json.RawMessage, p map[string]any) {
	mode, path, _ := strings.Cut(os.Getenv(fakeCloseEnv), ":")
	if mode == "hang" {
		return
	}
	if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintf(f, "close %v\n", p["sessionId"])
		_ = f.Close()
	}
	if mode == "exit" {
		os.Exit(0)
	}
	a.reply(id, map[string]any{})
}

// unknown sends records hub does not understand: a new update kind twice,
// a known-but-unmapped one, an unknown notification, an extension
// notification and an unknown request.
func (a *fakeAgent) unknown() {
	a.update(map[string]any{"sessionUpdate": "hologram_update", "n": 1})
	a.update(map[string]any{"sessionUpdate": "hologram_update", "n": 2})
	a.update(map[string]any{"sessionUpdate": "user_message_chunk", "content": map[string]any{"type": "text", "text": "echo"}})
	a.send(map[string]any{"jsonrpc": "2.0", "method": "x/telemetry", "params": map[string]any{"k": "v"}})
	a.send(map[string]any{"jsonrpc": "2.0", "method": "_fake/ping", "params": map[string]any{}})
	resp := a.call("x/ask", map[string]any{"sessionId": a.session})
	a.text("ask:" + string(resp.Error))
}

// terminalWith sends terminal/create with the given JSON params and, when
// a terminal comes back, waits for it and releases it.
func (a *fakeAgent) terminalWith(params string) {
	var p map[string]any
	_ = json.Unmarshal([]byte(params), &p)
	p["sessionId"] = a.session
	resp := a.call("terminal/create", p)
	var c struct {
		TerminalID string `json:"terminalId"`
	}
	if json.Unmarshal(resp.Result, &c) == nil && c.TerminalID != "" {
		a.call("terminal/wait_for_exit", map[string]any{"sessionId": a.session, "terminalId": c.TerminalID})
		a.call("terminal/release", map[string]any{"sessionId": a.session, "terminalId": c.TerminalID})
	}
	a.text("term:" + string(resp.Result) + string(resp.Error))
}

// callRaw sends any client method with JSON params and reports the answer.
func (a *fakeAgent) callRaw(method, params string) {
	var p map[string]any
	_ = json.Unmarshal([]byte(params), &p)
	if p == nil {
		p = map[string]any{}
	}
	p["sessionId"] = a.session
	resp := a.call(method, p)
	a.text("call:" + string(resp.Result) + string(resp.Error))
}
