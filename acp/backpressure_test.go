package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// flood is an adapter whose turn streams n text events ("0 ", "1 ", …) as
// fast as its turn takes them, each padded with pad bytes.
type flood struct {
	n, pad int
	// filled closes once the agent got past TurnQueue events after the
	// editor took the first (all of them when nothing holds it back).
	filled chan struct{}
	peak   atomic.Int64 // the most events its turn held queued
	track  bool         // sample Queued after each event
}

func newFlood(n, pad int) *flood { return &flood{n: n, pad: pad, filled: make(chan struct{})} }

func (a *flood) Name() string                        { return "flood" }
func (a *flood) Capabilities() adapters.Capabilities { return adapters.Capabilities{} }
func (a *flood) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	return a, nil
}
func (a *flood) ID() string   { return "" }
func (a *flood) Close() error { return nil }

func (a *flood) Prompt(ctx context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	t := adapters.NewTurn()
	taken := make(chan struct{})
	var once sync.Once
	pad := strings.Repeat("x", a.pad)
	go func() {
		for i := range a.n {
			t.Emit(adapters.Event{Type: adapters.EventText, Text: strconv.Itoa(i) + " " + pad})
			if a.track {
				a.peak.Store(max(a.peak.Load(), int64(t.Queued())))
			}
			switch i {
			case 0:
				<-taken // the consumer is attached: the bound applies from here
			case min(a.n-1, adapters.TurnQueue):
				close(a.filled)
			}
		}
		t.Close(adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn})
	}()
	return t.Run(ctx, func(ev adapters.Event) { once.Do(func() { close(taken) }); emit(ev) }, adapters.TurnRules{})
}

// stallEditor is an editor on raw pipes whose reading the test controls.
type stallEditor struct {
	t    testing.TB
	w    *io.PipeWriter
	r    *bufio.Reader
	next int
}

func newStallEditor(t testing.TB, a adapters.Adapter) *stallEditor {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	reg := adapters.NewRegistry()
	reg.Register(a)
	done := make(chan struct{})
	go func() {
		_ = Serve(context.Background(), inR, outW, Options{Registry: reg, DefaultAgent: a.Name(), Logger: zerolog.Nop(), StateDir: t.TempDir()})
		outW.Close()
		close(done)
	}()
	t.Cleanup(func() { inW.Close(); go io.Copy(io.Discard, outR); <-done })
	return &stallEditor{t: t, w: inW, r: bufio.NewReaderSize(outR, 1<<20)}
}

// send writes a request and returns its id.
func (e *stallEditor) send(method string, params any) string {
	e.next++
	b, _ := json.Marshal(params)
	if _, err := fmt.Fprintf(e.w, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", e.next, method, b); err != nil {
		e.t.Fatal(err)
	}
	return strconv.Itoa(e.next)
}

// readUntil reads messages until the response to id, passing each
// agent_message_chunk's text to text, and returns the response.
func (e *stallEditor) readUntil(id string, text func(string)) wire {
	for {
		line, err := e.r.ReadBytes('\n')
		if err != nil {
			e.t.Fatalf("waiting for response %s: %v", id, err)
		}
		var m wire
		if err := json.Unmarshal(line, &m); err != nil {
			e.t.Fatalf("bad line %q: %v", line, err)
		}
		if string(m.ID) == id && m.Method == "" {
			return m
		}
		var n schema.SessionNotification
		if m.Method == "session/update" && json.Unmarshal(m.Params, &n) == nil && n.Update.AgentMessageChunk != nil && text != nil {
			text(n.Update.AgentMessageChunk.Content.Text)
		}
	}
}

func (e *stallEditor) session() string {
	e.readUntil(e.send("initialize", schema.InitializeRequest{ProtocolVersion: 1}), nil)
	var r schema.NewSessionResponse
	m := e.readUntil(e.send("session/new", schema.NewSessionRequest{Cwd: e.t.TempDir(), McpServers: []schema.McpServer{}}), nil)
	if err := json.Unmarshal(m.Result, &r); err != nil {
		e.t.Fatalf("session/new: %s %v", m.Result, m.Error)
	}
	return r.SessionID
}

// An editor that stops reading while the agent streams holds the agent
// back: the turn queues at most adapters.TurnQueue events, and once the
// editor reads again every update arrives, in order, none dropped.
func TestPrompt_StalledEditorBoundsTheQueue(t *testing.T) {
	const n = 20 * adapters.TurnQueue
	a := newFlood(n, 0)
	a.track = true
	e := newStallEditor(t, a)
	sid := e.session()
	id := e.send("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("go")}})
	<-a.filled // the editor has read nothing of the turn yet
	got := 0
	resp := e.readUntil(id, func(s string) {
		if want := strconv.Itoa(got) + " "; s != want {
			t.Fatalf("update %d is %q, want %q", got, s, want)
		}
		got++
	})
	if resp.Error != nil || got != n {
		t.Fatalf("%d of %d updates, response %s %v", got, n, resp.Result, resp.Error)
	}
	if peak := a.peak.Load(); peak > adapters.TurnQueue {
		t.Fatalf("the turn queued %d events behind a stalled editor, bound %d", peak, adapters.TurnQueue)
	}
}
