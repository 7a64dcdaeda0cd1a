package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// slowCancel is an adapter whose first turn emits "working", and once its
// ctx is cancelled "after cancel", then ends; later turns just answer
// "working".
type slowCancel struct {
	mu     sync.Mutex
	starts int
}

func (a *slowCancel) Name() string                        { return "slowcancel" }
func (a *slowCancel) Capabilities() adapters.Capabilities { return adapters.Capabilities{} }
func (a *slowCancel) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	a.mu.Lock()
	a.starts++
	a.mu.Unlock()
	return &slowCancelSession{a: a, first: true, grace: o.CancelGrace}, nil
}

type slowCancelSession struct {
	a     *slowCancel
	grace time.Duration
	first bool // only the first turn waits for a cancel
}

func (s *slowCancelSession) ID() string   { return "" }
func (s *slowCancelSession) Close() error { return nil }
func (s *slowCancelSession) Prompt(ctx context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	ch := make(chan adapters.Event)
	go func() {
		defer close(ch)
		ch <- adapters.Event{Type: adapters.EventText, Text: "working"}
		if !s.first {
			ch <- adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
			return
		}
		s.first = false
		<-ctx.Done()
		ch <- adapters.Event{Type: adapters.EventText, Text: "after cancel"}
		ch <- adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopCancelled}
	}()
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{Grace: s.grace})
}

func promptReq(sid, text string) schema.PromptRequest {
	return schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}
}

// within fails the test unless ch yields within d (a hang guard for rules
// about blocking, not a speed measurement).
func within(t *testing.T, ch chan wire, d time.Duration, what string) wire {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(d):
		t.Fatalf("%s: no response within %v", what, d)
		return wire{}
	}
}

// C09, C37, C39: a cancel never stalls the read loop; what the agent sends
// while it stops still reaches the editor, and the prompt is answered
// cancelled after every update of the turn.
func TestCancel_KeepsReadLoopAndLateUpdates(t *testing.T) {
	a := &slowCancel{}
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(a)
		o.DefaultAgent = "slowcancel"
		o.CancelGrace = time.Minute // the agent stops: its stop must win under any load
	})
	sid, _ := c.start(t)
	c.sendID("50", "session/prompt", promptReq(sid, "x"))
	c.waitFor(t, func() bool { return len(c.updates(sid)) == 1 })
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	within(t, c.async("session/list", schema.ListSessionsRequest{}), 5*time.Second, "session/list after cancel")
	c.waitFor(t, func() bool { return c.indexOfResponse("50") >= 0 })
	var r schema.PromptResponse
	for _, m := range c.messages() {
		if string(m.ID) == "50" && m.Method == "" {
			_ = json.Unmarshal(m.Result, &r)
		}
	}
	if r.StopReason != schema.StopCancelled {
		t.Fatalf("stop reason %q", r.StopReason)
	}
	if ups := c.updates(sid); len(ups) != 2 || ups[1].AgentMessageChunk.Content.Text != "after cancel" {
		t.Fatalf("updates the agent sent after cancel were lost: %+v", ups)
	}
	resp := c.indexOfResponse("50")
	for i, m := range c.messages() {
		if m.Method == "session/update" && i > resp {
			t.Fatalf("update after the cancelled prompt's response: %s", m.Params)
		}
	}
	if s := c.prompt(sid, "again"); s != schema.StopEndTurn {
		t.Fatalf("next prompt %q", s)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.starts != 1 {
		t.Fatalf("an agent that stopped in time was replaced: %d starts", a.starts)
	}
}

// C26, C28: concurrent sessions streaming many updates, with other requests
// interleaved; each session's updates arrive complete, in order, with its
// own sessionId, and all before its prompt response.
func TestUpdatesKeepOrderUnderLoad(t *testing.T) {
	const n = 300
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"event":{"type":"text","text":"%d,","messageId":"m"}}`, i)
	}
	c := newClient(t, scriptFile(t, lines...))
	c.init(schema.ClientCapabilities{})
	cwd := t.TempDir()
	sids := []string{c.newSession(cwd), c.newSession(cwd), c.newSession(cwd)}
	for i, sid := range sids {
		c.sendID(fmt.Sprint(100+i), "session/prompt", promptReq(sid, "go"))
	}
	for range 20 {
		c.must("session/list", schema.ListSessionsRequest{}, nil)
	}
	c.waitFor(t, func() bool {
		for i := range sids {
			if c.indexOfResponse(fmt.Sprint(100+i)) < 0 {
				return false
			}
		}
		return true
	})
	var want strings.Builder
	for i := range n {
		fmt.Fprintf(&want, "%d,", i)
	}
	seen := map[string]strings.Builder{}
	for i, m := range c.messages() {
		if m.Method != "session/update" {
			continue
		}
		var sn schema.SessionNotification
		if err := json.Unmarshal(m.Params, &sn); err != nil {
			t.Fatal(err)
		}
		k := -1
		for j, sid := range sids {
			if sn.SessionID == sid {
				k = j
			}
		}
		if k < 0 {
			t.Fatalf("update for unknown session %q", sn.SessionID)
		}
		if resp := c.indexOfResponse(fmt.Sprint(100 + k)); i > resp {
			t.Fatalf("update at %d after session %d's response at %d", i, k, resp)
		}
		if sn.Update.AgentMessageChunk != nil {
			b := seen[sn.SessionID]
			b.WriteString(sn.Update.AgentMessageChunk.Content.Text)
			seen[sn.SessionID] = b
		}
	}
	for _, sid := range sids {
		if b := seen[sid]; b.String() != want.String() {
			t.Fatalf("session %s got %d bytes out of order or incomplete", sid, b.Len())
		}
	}
	hist := OpenStore(c.state).History(sids[0])
	if len(hist) != 2 || hist[1].AgentMessageChunk.Content.Text != want.String() {
		t.Fatalf("history did not merge the streamed chunks: %+v", hist)
	}
}

// C09: while a prompt waits for the editor's permission answer, the read
// loop keeps serving other requests; the late answer then resumes the turn.
func TestPermissionWaitDoesNotBlockReadLoop(t *testing.T) {
	c := newClient(t, scriptFile(t, permScript))
	asked := make(chan wire, 1)
	c.perm = func(schema.RequestPermissionRequest) (any, *jsonrpc.Error) { return nil, nil } // answered below
	sid, cwd := c.start(t)
	c.sendID("60", "session/prompt", promptReq(sid, "x"))
	c.waitFor(t, func() bool {
		for _, m := range c.messages() {
			if m.Method == "session/request_permission" {
				asked <- m
				return true
			}
		}
		return false
	})
	req := <-asked
	within(t, c.async("session/list", schema.ListSessionsRequest{}), 5*time.Second, "session/list while permission pending")
	within(t, c.async("session/new", schema.NewSessionRequest{Cwd: cwd, McpServers: []schema.McpServer{}}), 5*time.Second, "session/new while permission pending")
	if c.indexOfResponse("60") >= 0 {
		t.Fatal("prompt answered before its permission was decided")
	}
	var p schema.RequestPermissionRequest
	_ = json.Unmarshal(req.Params, &p)
	opt := ""
	for _, o := range p.Options {
		if o.Kind == "allow_once" {
			opt = o.OptionID
		}
	}
	c.raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, req.ID, opt))
	c.waitFor(t, func() bool { return c.indexOfResponse("60") >= 0 })
	if got := turnText(c.updates(sid)); got != "ran" {
		t.Fatalf("turn did not resume after the permission answer: text %q", got)
	}
}
