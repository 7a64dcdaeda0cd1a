package scenarios

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/acp"
	"github.com/hubdev/hub/acp/schema"
)

// editor is an ACP client driving acp.Serve in process, as an editor
// does: it allows every permission request once and keeps the updates.
type editor struct {
	t    *testing.T
	w    *io.PipeWriter
	done chan error

	mu      sync.Mutex
	next    int
	waits   map[string]chan reply
	updates []schema.SessionUpdate
	asked   []string // the titles of the permission requests it answered
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// hangGuard bounds a wait for an answer: it catches a hang, it measures
// nothing.
const hangGuard = 60 * time.Second

func startEditor(t *testing.T, o acp.Options) *editor {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e := &editor{t: t, w: inW, done: make(chan error, 1), waits: map[string]chan reply{}}
	go func() {
		err := acp.Serve(context.Background(), inR, outW, o)
		outW.Close()
		e.done <- err
	}()
	go e.read(outR)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-e.done:
		case <-time.After(hangGuard):
			t.Error("hub acp did not end after the editor left")
		}
	})
	return e
}

func (e *editor) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			reply
		}
		if err := json.Unmarshal(line, &m); err != nil {
			e.t.Errorf("hub acp wrote a non-JSON line: %q", line)
			continue
		}
		switch {
		case m.Method == "session/update":
			var n schema.SessionNotification
			if err := json.Unmarshal(m.Params, &n); err != nil {
				e.t.Errorf("bad update: %v", err)
			}
			e.mu.Lock()
			e.updates = append(e.updates, n.Update)
			e.mu.Unlock()
		case m.Method != "" && m.ID != nil:
			e.answer(m.ID, m.Method, m.Params)
		case m.Method == "":
			e.mu.Lock()
			ch := e.waits[string(m.ID)]
			e.mu.Unlock()
			if ch != nil {
				ch <- m.reply
			}
		}
	}
}

// answer allows a permission request once; it has nothing else to offer.
func (e *editor) answer(id json.RawMessage, method string, params json.RawMessage) {
	out := map[string]any{"jsonrpc": "2.0", "id": id}
	var p schema.RequestPermissionRequest
	if method == "session/request_permission" && json.Unmarshal(params, &p) == nil {
		e.mu.Lock()
		e.asked = append(e.asked, p.ToolCall.Title)
		e.mu.Unlock()
		for _, o := range p.Options {
			if o.Kind == "allow_once" {
				out["result"] = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.OptionID}}
			}
		}
	}
	if out["result"] == nil {
		out["error"] = map[string]any{"code": -32601, "message": "not offered by this editor"}
	}
	b, _ := json.Marshal(out)
	e.write(string(b))
}

func (e *editor) write(line string) {
	if _, err := io.WriteString(e.w, line+"\n"); err != nil {
		e.t.Errorf("write to hub acp: %v", err)
	}
}

// call sends a request and waits for its answer.
func (e *editor) call(method string, params, out any) error {
	e.t.Helper()
	e.mu.Lock()
	e.next++
	id := fmt.Sprint(e.next)
	ch := make(chan reply, 1)
	e.waits[id] = ch
	e.mu.Unlock()
	b, _ := json.Marshal(params)
	e.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, b))
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %d %s", method, r.Error.Code, r.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-time.After(hangGuard):
		e.t.Fatalf("%s: no answer within %v", method, hangGuard)
		return nil
	}
}

func (e *editor) must(method string, params, out any) {
	e.t.Helper()
	if err := e.call(method, params, out); err != nil {
		e.t.Fatal(err)
	}
}

// open initializes the connection and opens a session in cwd.
func (e *editor) open(cwd string) string {
	e.t.Helper()
	e.must("initialize", schema.InitializeRequest{ProtocolVersion: 1}, nil)
	var s schema.NewSessionResponse
	e.must("session/new", schema.NewSessionRequest{Cwd: cwd, McpServers: []schema.McpServer{}}, &s)
	return s.SessionID
}

// prompt runs one turn; the error is the prompt's failure as the editor
// gets it.
func (e *editor) prompt(sid, text string) (schema.PromptResponse, error) {
	e.t.Helper()
	var r schema.PromptResponse
	err := e.call("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}, &r)
	return r, err
}

// cost is the last cost a usage update told, nil when none did.
func (e *editor) cost() *float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	var c *float64
	for _, u := range e.updates {
		if u.Usage != nil && u.Usage.Cost != nil {
			c = &u.Usage.Cost.Amount
		}
	}
	return c
}

// text is every agent message chunk so far, joined.
func (e *editor) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, u := range e.updates {
		if u.AgentMessageChunk != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text)
		}
	}
	return b.String()
}
