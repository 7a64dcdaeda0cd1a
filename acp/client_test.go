package acp

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// named renames a replay adapter so tests can have two agents.
type named struct {
	*replay.Adapter
	name string
}

func (n named) Name() string { return n.name }

type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc.Error  `json:"error,omitempty"`
}

// tclient is a scripted editor talking to Serve over io.Pipe. Every line
// the server writes is checked to be one JSON object and validated against
// the ACP schema by method.
type tclient struct {
	t      testing.TB
	guard  time.Duration // hangGuard unless a test's one message does more
	w      *io.PipeWriter
	done   chan error
	mu     sync.Mutex
	log    []wire // every message from the server, in order
	waits  map[string]chan wire
	method map[string]string
	nextID int
	perm   func(params schema.RequestPermissionRequest) (any, *jsonrpc.Error)
	fs     func(method string, params json.RawMessage) (any, *jsonrpc.Error)
	seen   chan struct{}
	reg    *adapters.Registry
	state  string

	closeOnce sync.Once
	closing   atomic.Bool
	readDone  chan struct{}
	// forget keeps no log of the server's messages (the soak benchmark
	// measures hub's memory, not the client's).
	forget atomic.Bool
}

func scriptFile(t testing.TB, lines ...string) string {
	p := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// everywhere is Options.Settings giving every session set.
func everywhere(set Settings) func(string) (Settings, error) {
	return func(string) (Settings, error) { return set, nil }
}

func newClient(t testing.TB, script string, mod ...func(*Options)) *tclient {
	reg := adapters.NewRegistry()
	reg.Register(replay.New(script))
	opts := Options{Registry: reg, DefaultAgent: "replay", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Minute}
	for _, m := range mod {
		m(&opts)
	}
	return startClient(t, opts)
}

func startClient(t testing.TB, opts Options) *tclient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &tclient{t: t, w: inW, done: make(chan error, 1), readDone: make(chan struct{}), waits: map[string]chan wire{}, method: map[string]string{}, seen: make(chan struct{}, 1024), reg: opts.Registry, state: opts.StateDir}
	go func() {
		err := Serve(context.Background(), inR, outW, opts)
		outW.Close()
		c.done <- err
	}()
	go func() { c.read(outR); close(c.readDone) }()
	t.Cleanup(c.close)
	return c
}

// hangGuard bounds waits for a response: generous, because a 3 MB message is
// schema-validated under the race detector on a loaded 2-core CI machine;
// it catches hangs, it does not measure speed.
const hangGuard = 60 * time.Second

func (c *tclient) close() {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		c.w.Close()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			c.t.Errorf("Serve did not return after stdin EOF")
		}
	})
}

// drain ends the connection and waits until every message the server
// wrote has been read.
func (c *tclient) drain() {
	c.close()
	<-c.readDone
}

func (c *tclient) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		var m wire
		if e := json.Unmarshal(line, &m); e != nil || strings.Count(string(line), "\n") != 1 {
			c.t.Errorf("server wrote a non-JSON line: %q", line)
			continue
		}
		c.validate(m)
		if !c.forget.Load() {
			c.mu.Lock()
			c.log = append(c.log, m)
			c.mu.Unlock()
		}
		select {
		case c.seen <- struct{}{}:
		default:
		}
		switch {
		case m.Method != "" && m.ID != nil:
			go c.serveRequest(m)
		case m.Method == "":
			c.mu.Lock()
			ch := c.waits[string(m.ID)]
			if c.forget.Load() {
				delete(c.waits, string(m.ID))
				delete(c.method, string(m.ID))
			}
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

var resultDefs = map[string]string{
	"initialize": "InitializeResponse", "session/new": "NewSessionResponse", "session/load": "LoadSessionResponse",
	"session/resume": "ResumeSessionResponse", "session/list": "ListSessionsResponse", "session/prompt": "PromptResponse",
	"session/set_config_option": "SetSessionConfigOptionResponse", "session/set_mode": "SetSessionModeResponse",
	"session/close": "CloseSessionResponse", "session/delete": "DeleteSessionResponse",
}

var requestDefs = map[string]string{
	"session/update": "SessionNotification", "session/request_permission": "RequestPermissionRequest",
	"fs/read_text_file": "ReadTextFileRequest", "fs/write_text_file": "WriteTextFileRequest",
	"elicitation/create": "CreateElicitationRequest", "$/cancel_request": "CancelRequestNotification",
}

func (c *tclient) validate(m wire) {
	if m.Error != nil {
		b, _ := json.Marshal(m.Error)
		validateDef(c.t, "Error", b)
		return
	}
	if m.Method != "" {
		validateDef(c.t, requestDefs[m.Method], m.Params)
		return
	}
	c.mu.Lock()
	meth := c.method[string(m.ID)]
	c.mu.Unlock()
	if def, ok := resultDefs[meth]; ok {
		validateDef(c.t, def, m.Result)
	}
}

func (c *tclient) serveRequest(m wire) {
	var res any
	var e *jsonrpc.Error
	switch {
	case m.Method == "session/request_permission" && c.perm != nil:
		var p schema.RequestPermissionRequest
		_ = json.Unmarshal(m.Params, &p)
		res, e = c.perm(p)
	case c.fs != nil:
		res, e = c.fs(m.Method, m.Params)
	default:
		e = jsonrpc.NewError(schema.CodeMethodNotFound, "no handler", nil)
	}
	if res == nil && e == nil {
		return // test answers later or never
	}
	out := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if e != nil {
		out["error"] = e
	} else {
		out["result"] = res
	}
	b, _ := json.Marshal(out)
	c.raw(string(b))
}

func (c *tclient) raw(line string) {
	// A late answer (to a permission request the server already resolved
	// on cancel) may race with the end of the test; only earlier writes
	// must succeed.
	if _, err := io.WriteString(c.w, line+"\n"); err != nil && !c.closing.Load() {
		c.t.Errorf("write: %v", err)
	}
}

// send issues a request with a given raw id and returns the channel of its response.
func (c *tclient) sendID(id, method string, params any) chan wire {
	b, _ := json.Marshal(params)
	ch := make(chan wire, 1)
	c.mu.Lock()
	c.waits[id] = ch
	c.method[id] = method
	c.mu.Unlock()
	c.raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, b))
	return ch
}

func (c *tclient) async(method string, params any) chan wire {
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprint(c.nextID)
	c.mu.Unlock()
	return c.sendID(id, method, params)
}

func (c *tclient) wait(ch chan wire) wire {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(cmp.Or(c.guard, hangGuard)):
		c.t.Fatalf("no response within %v", cmp.Or(c.guard, hangGuard))
		return wire{}
	}
}

func (c *tclient) call(method string, params any) (json.RawMessage, *jsonrpc.Error) {
	c.t.Helper()
	m := c.wait(c.async(method, params))
	return m.Result, m.Error
}

func (c *tclient) must(method string, params any, out any) {
	c.t.Helper()
	res, e := c.call(method, params)
	if e != nil {
		c.t.Fatalf("%s: %v", method, e)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			c.t.Fatalf("%s result: %v", method, err)
		}
	}
}

func (c *tclient) notify(method string, params any) {
	b, _ := json.Marshal(params)
	c.raw(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, b))
}

func (c *tclient) init(caps schema.ClientCapabilities) {
	c.t.Helper()
	c.must("initialize", schema.InitializeRequest{ProtocolVersion: 1, ClientCapabilities: caps}, nil)
}

func (c *tclient) newSession(cwd string) string {
	c.t.Helper()
	var r schema.NewSessionResponse
	c.must("session/new", schema.NewSessionRequest{Cwd: cwd, McpServers: []schema.McpServer{}}, &r)
	return r.SessionID
}

func (c *tclient) start(t testing.TB) (string, string) {
	c.init(schema.ClientCapabilities{})
	cwd := t.TempDir()
	return c.newSession(cwd), cwd
}

func (c *tclient) prompt(sid, text string) string {
	c.t.Helper()
	var r schema.PromptResponse
	c.must("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}, &r)
	return r.StopReason
}

// messages returns a copy of the server's messages so far.
func (c *tclient) messages() []wire {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wire(nil), c.log...)
}

// updates returns the session/update updates for sid, in order.
func (c *tclient) updates(sid string) []schema.SessionUpdate {
	var out []schema.SessionUpdate
	for _, m := range c.messages() {
		if m.Method != "session/update" {
			continue
		}
		var n schema.SessionNotification
		if err := json.Unmarshal(m.Params, &n); err != nil {
			c.t.Errorf("bad update: %v", err)
		}
		if n.SessionID == sid {
			out = append(out, n.Update)
		}
	}
	return out
}

// indexOfResponse is the log position of the response with id.
func (c *tclient) indexOfResponse(id string) int {
	for i, m := range c.messages() {
		if m.Method == "" && string(m.ID) == id {
			return i
		}
	}
	return -1
}

func (c *tclient) waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case <-c.seen:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatal("condition not met within 20s")
		}
	}
}
