package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// peer is the far end of a Conn under test, over io.Pipe.
type peer struct {
	t    *testing.T
	w    io.WriteCloser
	sc   *bufio.Scanner
	conn *Conn
	done chan error
}

func newPeer(t *testing.T, opts Options) *peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := New(inR, outW, opts)
	p := &peer{t: t, w: inW, sc: bufio.NewScanner(outR), conn: c, done: make(chan error, 1)}
	p.sc.Buffer(nil, 1<<20)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { p.done <- c.Serve(ctx); _ = outW.Close() }()
	t.Cleanup(func() { cancel(); _ = inW.Close(); <-p.done })
	return p
}

func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *peer) next() map[string]json.RawMessage {
	p.t.Helper()
	if !p.sc.Scan() {
		p.t.Fatalf("no message: %v", p.sc.Err())
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(p.sc.Bytes(), &m); err != nil {
		p.t.Fatalf("bad line %q: %v", p.sc.Text(), err)
	}
	return m
}

func echo(_ context.Context, r *Request) Job {
	return func() (any, func(), error) { return r.Params, nil, nil }
}

func errCode(t *testing.T, m map[string]json.RawMessage) int {
	t.Helper()
	var e Error
	if err := json.Unmarshal(m["error"], &e); err != nil {
		t.Fatalf("not an error: %v", m)
	}
	return e.Code
}

func TestConn_ParseErrorAndConnectionGoesOn(t *testing.T) {
	p := newPeer(t, Options{Request: echo})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"x",`)
	if m := p.next(); errCode(t, m) != CodeParseError || string(m["id"]) != "null" {
		t.Fatalf("answer %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"x","params":[7]}`)
	if m := p.next(); string(m["result"]) != "[7]" {
		t.Fatalf("after a bad line: %v", m)
	}
}

func TestConn_EchoesIDs(t *testing.T) {
	p := newPeer(t, Options{Request: echo})
	for _, id := range []string{"-5", "null", `"abc"`, "0"} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"x","params":1}`)
		if m := p.next(); string(m["id"]) != id || string(m["result"]) != "1" {
			t.Fatalf("id %s answered %v", id, m)
		}
	}
}

func TestConn_RefusesBatch(t *testing.T) {
	p := newPeer(t, Options{Request: echo})
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"x"}]`)
	if m := p.next(); errCode(t, m) != CodeInvalidRequest {
		t.Fatalf("batch answered %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"x","params":3}`)
	if m := p.next(); string(m["result"]) != "3" {
		t.Fatalf("after a batch: %v", m)
	}
}

func TestConn_UnknownMethodWithoutHandler(t *testing.T) {
	p := newPeer(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"nope"}`)
	if m := p.next(); errCode(t, m) != CodeMethodNotFound {
		t.Fatalf("answer %v", m)
	}
}

// A handler may call the peer while its request is open; the read loop
// keeps reading, so the nested answer arrives.
func TestConn_NestedCallsBothWays(t *testing.T) {
	var p *peer
	p = newPeer(t, Options{Request: func(ctx context.Context, r *Request) Job {
		return func() (any, func(), error) {
			var inner int
			if err := p.conn.Call(ctx, "inner", nil, &inner); err != nil {
				return nil, nil, err
			}
			return inner + 1, nil, nil
		}
	}})
	p.send(`{"jsonrpc":"2.0","id":"outer","method":"outer"}`)
	m := p.next() // the nested call
	if string(m["method"]) != `"inner"` {
		t.Fatalf("want the nested call, got %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"result":41}`)
	if m := p.next(); string(m["id"]) != `"outer"` || string(m["result"]) != "42" {
		t.Fatalf("outer answered %v", m)
	}
}

func TestConn_NotificationsInOrder(t *testing.T) {
	var mu sync.Mutex
	var got []string
	all := make(chan struct{})
	p := newPeer(t, Options{Notify: func(r *Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(r.Params))
		if len(got) == 100 {
			close(all)
		}
	}})
	var want []string
	for i := range 100 {
		n, _ := json.Marshal(i)
		want = append(want, string(n))
		p.send(`{"jsonrpc":"2.0","method":"n","params":` + string(n) + `}`)
	}
	<-all
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("order %v", got)
	}
}

func TestConn_OversizedLineRefused(t *testing.T) {
	p := newPeer(t, Options{Request: echo, MaxLine: 100})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"x","params":"` + strings.Repeat("a", 200) + `"}`)
	var e Error
	m := p.next()
	if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != CodeInvalidRequest || !strings.Contains(e.Message, "longer than 100 bytes") {
		t.Fatalf("oversized line answered %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"x","params":2}`)
	if m := p.next(); string(m["result"]) != "2" {
		t.Fatalf("after an oversized line: %v", m)
	}
}

// With Cancellable, the peer's CancelMethod ends its request's ctx (and
// only that one's): the request is answered -32800. A call whose ctx ends
// first sends the peer CancelMethod for it.
func TestConn_RequestCancellation(t *testing.T) {
	p := newPeer(t, Options{CancelMethod: "$/cancel_request", Cancellable: true, Request: func(ctx context.Context, r *Request) Job {
		return func() (any, func(), error) {
			if r.Method == "quick" {
				return "ok", nil, nil
			}
			<-ctx.Done()
			return nil, nil, ctx.Err()
		}
	}})
	p.send(`{"jsonrpc":"2.0","id":"slow","method":"slow"}`)
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"other"}}`)
	p.send(`{"jsonrpc":"2.0","id":"q","method":"quick"}`)
	if m := p.next(); string(m["id"]) != `"q"` {
		t.Fatalf("want the quick answer first (the other id cancelled nothing), got %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"slow"}}`)
	if m := p.next(); string(m["id"]) != `"slow"` || errCode(t, m) != CodeCancelled {
		t.Fatalf("cancelled request answered %v", m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- p.conn.Call(ctx, "mine", nil, nil) }()
	id := p.next()["id"]
	cancel()
	if m := p.next(); string(m["method"]) != `"$/cancel_request"` || !strings.Contains(string(m["params"]), string(id)) {
		t.Fatalf("want $/cancel_request for %s, got %v", id, m)
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the call ended with %v", err)
	}
}

func TestConn_CloseFailsPendingCalls(t *testing.T) {
	p := newPeer(t, Options{})
	errc := make(chan error, 1)
	go func() { errc <- p.conn.Call(context.Background(), "never", nil, nil) }()
	p.next() // the call went out
	p.conn.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("pending call ended with %v", err)
	}
	if err := p.conn.Call(context.Background(), "late", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
}

// Serve ends when ctx ends even though the peer keeps its end open.
func TestConn_ServeEndsOnContextWithInputOpen(t *testing.T) {
	inR, _ := io.Pipe()
	c := New(inR, io.Discard, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Serve(ctx) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-c.Done()
}

func TestConn_ErrorAnswerIsError(t *testing.T) {
	p := newPeer(t, Options{})
	errc := make(chan error, 1)
	go func() { errc <- p.conn.Call(context.Background(), "x", nil, nil) }()
	m := p.next()
	p.send(`{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"error":{"code":-32000,"message":"Authentication required"}}`)
	var e *Error
	if err := <-errc; !errors.As(err, &e) || e.Code != -32000 {
		t.Fatalf("call ended with %v", err)
	}
}

// {"id":N,"result":null} is a response (a null result), not an invalid
// request: the call gets "null".
func TestConn_NullResultIsAnswer(t *testing.T) {
	p := newPeer(t, Options{})
	type answer struct {
		raw json.RawMessage
		err error
	}
	got := make(chan answer, 1)
	go func() {
		raw, err := p.conn.CallRaw(context.Background(), "x", nil)
		got <- answer{raw, err}
	}()
	m := p.next()
	p.send(`{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"result":null}`)
	if a := <-got; a.err != nil || string(a.raw) != "null" {
		t.Fatalf("call ended with %q, %v; want null", a.raw, a.err)
	}
}

// A strict connection (hub's ACP server) answers every malformed message
// with the right code, echoing the id when it can be read, and goes on.
func TestConn_StrictRefusesWhatJSONRPCForbids(t *testing.T) {
	tests := []struct {
		line, code, id string
	}{
		{`[[[`, "-32700", "null"},
		{`{"jsonrpc":"2.0","id":1,"method":`, "-32700", "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, "-32600", "null"},
		{`{"jsonrpc":"1.0","id":4,"method":"x"}`, "-32600", "4"},
		{`{"id":5,"method":"x"}`, "-32600", "5"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`, "-32600", "null"},
		{`{"jsonrpc":"2.0","id":[1],"method":"x"}`, "-32600", "null"},
		{`{"jsonrpc":"2.0","id":7,"method":42}`, "-32600", "7"},
		{`{"jsonrpc":"2.0","method":42,"id":8}`, "-32600", "8"},
		{`{"jsonrpc":2,"id":10,"method":"x"}`, "-32600", "10"},
		{`{"JSONRPC":"2.0","id":11,"method":"x"}`, "-32600", "11"},
		{`{"jsonrpc":"1.0","JsonRpc":"2.0","id":12,"method":"x"}`, "-32600", "12"},
		{`"just a string"`, "-32600", "null"},
	}
	p := newPeer(t, Options{Request: echo, Strict: true})
	for _, tc := range tests {
		p.send(tc.line)
		m := p.next()
		if code := strconv.Itoa(errCode(t, m)); code != tc.code || string(m["id"]) != tc.id {
			t.Errorf("%s answered %v; want %s with id %s", tc.line, m, tc.code, tc.id)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":9,"method":"x","params":9}`)
	if m := p.next(); string(m["result"]) != "9" {
		t.Fatalf("after the bad lines: %v", m)
	}
}

// "jsonrpc" must be the string "2.0" (JSON-RPC 2.0, section 4): a JSON
// escape spells the same string, so it is accepted; any other string is not.
func TestConn_StrictVersionIsTheString(t *testing.T) {
	tests := []struct {
		version string
		ok      bool
	}{
		{`"2.0"`, true},
		{`"2\u002e0"`, true},
		{`"\u0032.\u0030"`, true},
		{`"2.0 "`, false},
		{`"2.00"`, false},
		{`"2\u002e1"`, false},
		{`null`, false},
	}
	p := newPeer(t, Options{Request: echo, Strict: true})
	for i, tc := range tests {
		p.send(`{"jsonrpc":` + tc.version + `,"id":` + strconv.Itoa(i) + `,"method":"x","params":"ok"}`)
		if m := p.next(); (string(m["result"]) == `"ok"`) != tc.ok || string(m["id"]) != strconv.Itoa(i) {
			t.Errorf("version %s answered %v; accepted: want %v", tc.version, m, tc.ok)
		}
	}
}

// A line that is JSON but no object (null, a string, a number, true) is
// refused -32600 for what it is, and the connection goes on.
func TestConn_NotAnObjectSaysWhatItIs(t *testing.T) {
	tests := []struct{ line, says string }{
		{`null`, "null"},
		{`"just a string"`, "a string"},
		{`42`, "a number"},
		{`true`, "true"},
	}
	p := newPeer(t, Options{Request: echo, Strict: true})
	for _, tc := range tests {
		p.send(tc.line)
		m := p.next()
		var e Error
		if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != CodeInvalidRequest || !strings.Contains(e.Message, "is "+tc.says+", not an object") {
			t.Errorf("%s answered %v; want -32600 saying it is %s", tc.line, m, tc.says)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":9,"method":"x","params":9}`)
	if m := p.next(); string(m["result"]) != "9" {
		t.Fatalf("after the lines: %v", m)
	}
}

// A lenient connection (to codex app-server, which omits "jsonrpc")
// accepts messages without the version.
func TestConn_LenientAcceptsAMissingVersion(t *testing.T) {
	p := newPeer(t, Options{Request: echo})
	p.send(`{"id":1,"method":"x","params":1}`)
	if m := p.next(); string(m["result"]) != "1" {
		t.Fatalf("answer %v", m)
	}
}

// A line over its limit is answered for the id its head names: -32600 (or
// the method's own refusal, also for a request whose params come before
// its method) when the id precedes the params, -32700 when no id can be
// read; the connection goes on.
func TestConn_OversizedLineAnsweredForItsID(t *testing.T) {
	big := strings.Repeat("a", 200<<10)
	refusal := NewError(CodeInvalidParams, "prompt over the limit", nil)
	limit := func(method string) (int, *Error) {
		if method == "prompt" || method == "" {
			return 100 << 10, refusal
		}
		return 0, nil
	}
	tests := []struct {
		name, line, id string
		code           int
	}{
		{"id first", `{"jsonrpc":"2.0","id":1,"method":"x","params":"` + big + `"}`, "1", CodeInvalidRequest},
		{"string id", `{"id":"a b","jsonrpc":"2.0","method":"x","params":"` + big + `"}`, `"a b"`, CodeInvalidRequest},
		{"params first: the limit of a request of unknown method", `{"jsonrpc":"2.0","params":"` + big + `","id":2,"method":"x"}`, "null", CodeInvalidParams},
		{"result first", `{"jsonrpc":"2.0","result":"` + big + `","id":2}`, "null", CodeParseError},
		{"not an object", `["` + big + `"]`, "null", CodeParseError},
		{"method limit", `{"jsonrpc":"2.0","id":3,"method":"prompt","params":"` + big + `"}`, "3", CodeInvalidParams},
		{"method limit, id after method", `{"jsonrpc":"2.0","method":"prompt","id":4,"params":"` + big + `"}`, "4", CodeInvalidParams},
		{"object id is not echoed", `{"jsonrpc":"2.0","id":{"x":1},"method":"x","params":"` + big + `"}`, "null", CodeParseError},
	}
	p := newPeer(t, Options{Request: echo, MaxLine: 150 << 10, LineLimit: limit})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			p.send(tc.line)
			m := p.next()
			if got := errCode(t, m); got != tc.code || string(m["id"]) != tc.id {
				t.Fatalf("answered code %d id %s, want %d id %s", got, m["id"], tc.code, tc.id)
			}
			p.send(`{"jsonrpc":"2.0","id":9,"method":"prompt","params":9}`)
			if m := p.next(); string(m["result"]) != "9" {
				t.Fatalf("after the oversized line: %v", m)
			}
		})
	}
}

// A line far over a method's limit is skipped as it streams in: reading
// it allocates about the limit, not the line.
func TestConn_OversizedLineIsNotHeldWhole(t *testing.T) {
	const lineLen, limit = 48 << 20, 1 << 20
	limitFn := func(string) (int, *Error) { return limit, NewError(CodeInvalidParams, "too big", nil) }
	p := newPeer(t, Options{Request: echo, LineLimit: limitFn})
	chunk := []byte(strings.Repeat("a", 64<<10))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	go func() {
		_, _ = io.WriteString(p.w, `{"jsonrpc":"2.0","id":1,"method":"prompt","params":"`)
		for n := 0; n < lineLen; n += len(chunk) {
			_, _ = p.w.Write(chunk)
		}
		_, _ = io.WriteString(p.w, "\"}\n")
	}()
	if m := p.next(); errCode(t, m) != CodeInvalidParams || string(m["id"]) != "1" {
		t.Fatalf("answered %v", m)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*limit {
		t.Fatalf("skipping a %d MiB line allocated %d MiB", lineLen>>20, got>>20)
	}
}

// An agent's "Internal error" names its cause in data (the ACP SDK's
// {"details": ...}): gemini refusing yolo in a folder it does not trust
// said only "Internal error" to the user.
func TestError_SaysTheDetails(t *testing.T) {
	tests := []struct{ data, want string }{
		{`{"details":"Cannot enable privileged approval modes in an untrusted folder."}`, "json-rpc error -32603: Internal error: Cannot enable privileged approval modes in an untrusted folder."},
		{`"no such mode"`, "json-rpc error -32603: Internal error: no such mode"},
		{`{"other":1}`, "json-rpc error -32603: Internal error"},
		{`null`, "json-rpc error -32603: Internal error"},
	}
	for _, tt := range tests {
		p := newPeer(t, Options{})
		errc := make(chan error, 1)
		go func() { errc <- p.conn.Call(context.Background(), "session/set_mode", nil, nil) }()
		id := p.next()["id"]
		p.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32603,"message":"Internal error","data":` + tt.data + `}}`)
		if err := <-errc; err == nil || err.Error() != tt.want {
			t.Errorf("data %s: error %v, want %q", tt.data, err, tt.want)
		}
	}
}
