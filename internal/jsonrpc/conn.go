// Package jsonrpc is hub's one JSON-RPC 2.0 connection over newline-delimited
// JSON, used by every peer: the ACP server towards editors, the ACP client
// towards agents, and codex app-server. Its rules: an undecodable line is
// answered with -32700 and the connection goes on; ids (negative, null,
// strings) are echoed as sent; batches are refused with an error; requests
// flow both ways and may nest, since the read loop never waits for a
// handler; notifications are handled in arrival order; an oversized line is
// skipped without being held whole and refused with a clear error, for its
// id when the line's head names one; closing fails every pending call.
package jsonrpc

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"
)

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeCancelled      = -32800 // the request was cancelled
)

// DefaultMaxLine bounds one message (a prompt with images fits easily).
const DefaultMaxLine = 64 << 20

// ErrClosed is returned by calls on a connection that ended.
var ErrClosed = errors.New("json-rpc connection closed")

// Error is a JSON-RPC error object; it implements error.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Error says the message and, when data gives it, the cause: a bare
// string, or {"details": ...} (the ACP SDK's internal errors).
func (e *Error) Error() string {
	msg := fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message)
	details, ok := e.Data.(string)
	if m, isMap := e.Data.(map[string]any); isMap {
		details, ok = m["details"].(string)
	}
	if ok && details != "" {
		return msg + ": " + details
	}
	return msg
}

// NewError builds an *Error.
func NewError(code int, msg string, data any) *Error {
	return &Error{Code: code, Message: msg, Data: data}
}

// Request is an inbound request, or a notification when ID is nil. Raw is
// the whole message as received.
type Request struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Raw    json.RawMessage
}

// Job computes a response off the read loop. after, when set, runs once the
// response has been written (for messages that must follow it).
type Job func() (result any, after func(), err error)

// Options configures a connection.
type Options struct {
	// Request runs on the read loop, in arrival order, and must be quick:
	// it validates and reserves state, and returns the slow part as a Job,
	// which runs on its own goroutine. Nil answers -32601.
	Request func(ctx context.Context, r *Request) Job
	// Notify handles a notification inline, in arrival order.
	Notify func(r *Request)
	// MaxLine bounds one inbound message; 0 means DefaultMaxLine.
	MaxLine int
	// LineLimit, when set, lowers the bound for a request by its method,
	// read from the head of a line longer than the read buffer (64 KiB)
	// before its params ("" when the params come first): a longer line is
	// discarded, never held whole, and answered with refusal for its id.
	LineLimit func(method string) (limit int, refusal *Error)
	// Strict refuses what JSON-RPC 2.0 forbids: a "jsonrpc" other than
	// "2.0", an id that is not a string, a number or null. The ACP server
	// is strict toward editors; clients of agent CLIs that omit "jsonrpc"
	// (codex app-server) are not.
	Strict bool
	// CancelMethod, when set, is the notification a call whose ctx ends
	// before its answer sends the peer, with the call's id as "requestId"
	// (ACP's "$/cancel_request"). The late answer is dropped either way.
	// With Cancellable, the peer's CancelMethod for one of its requests
	// ends that request's ctx.
	CancelMethod string
	Cancellable  bool
	Logger       zerolog.Logger
}

// Conn is one JSON-RPC 2.0 peer on a pair of streams.
type Conn struct {
	r    *bufio.Reader
	w    io.Writer
	wmu  sync.Mutex
	opts Options

	nextID  atomic.Int64
	pmu     sync.Mutex
	pending map[string]chan message
	serving map[string]context.CancelFunc // the peer's requests, by id (Cancellable)
	done    chan struct{}
	quit    context.Context // ended by Close
	end     context.CancelFunc
	jobs    sync.WaitGroup
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

var (
	nullID    = json.RawMessage("null")
	errClosed = NewError(CodeInternalError, ErrClosed.Error(), nil) // marks calls ended by shutdown
)

// New returns a connection reading r and writing w; Serve starts it.
func New(r io.Reader, w io.Writer, opts Options) *Conn {
	opts.MaxLine = cmp.Or(max(opts.MaxLine, 0), DefaultMaxLine)
	quit, end := context.WithCancel(context.Background())
	return &Conn{r: bufio.NewReaderSize(r, 64<<10), w: w, opts: opts,
		pending: map[string]chan message{}, serving: map[string]context.CancelFunc{}, done: make(chan struct{}), quit: quit, end: end}
}

// Serve reads until EOF (nil), a read error, ctx's end or Close. The reads
// run on their own goroutine, so a peer that keeps its end open cannot
// hold Serve past ctx. Pending calls fail once Serve returns.
func (c *Conn) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.quit, cancel)()
	defer c.shutdown()
	lines := make(chan read)
	go func() {
		for {
			r := c.readLine()
			select {
			case lines <- r:
			case <-ctx.Done():
				return
			}
			if r.err != nil {
				return
			}
		}
	}()
	for {
		var r read
		select {
		case <-ctx.Done():
			return nil
		case r = <-lines:
		}
		if r.skipped != nil {
			c.writeError(r.id, r.skipped)
			continue
		}
		if line := bytes.TrimSpace(r.line); len(line) > 0 {
			c.trace("in", line)
			c.dispatch(ctx, line)
		}
		if errors.Is(r.err, io.EOF) {
			return nil
		}
		if r.err != nil {
			return fmt.Errorf("read: %w", r.err)
		}
	}
}

// read is one line read, or one skipped: the answer it gets (skipped) and
// the id its head named (null when none could be read).
type read struct {
	line    []byte
	err     error
	skipped *Error
	id      json.RawMessage
}

// readLine reads the next line. A line over its limit (MaxLine, or the
// LineLimit of the method its head names) is skipped to its end, never
// held whole.
func (c *Conn) readLine() read {
	chunk, err := c.r.ReadSlice('\n')
	line := slices.Clone(chunk) // the buffer is read into again while line is served
	if !errors.Is(err, bufio.ErrBufferFull) && len(line) <= c.opts.MaxLine {
		return read{line: line, err: err}
	}
	id, method, known := sniffHead(line)
	limit, refusal := c.opts.MaxLine, (*Error)(nil)
	if c.opts.LineLimit != nil && known {
		if l, e := c.opts.LineLimit(method); l > 0 && l < limit {
			limit, refusal = l, e
		}
	}
	over := len(line) > limit
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = c.r.ReadSlice('\n')
		if over = over || len(line)+len(chunk) > limit; over {
			line = nil // skipped, never held whole
		} else {
			line = append(line, chunk...)
		}
	}
	switch {
	case !over:
		return read{line: line, err: err}
	case err != nil:
		return read{err: err}
	case refusal != nil: // the method's own
	case !bytes.Equal(id, nullID):
		refusal = NewError(CodeInvalidRequest, fmt.Sprintf("Invalid request: message longer than %d bytes", limit), nil)
	default:
		refusal = NewError(CodeParseError, fmt.Sprintf("Parse error: message longer than %d bytes", limit), nil)
	}
	return read{id: id, skipped: refusal}
}

// sniffHead reads the id and method from the members that precede the
// params in a line's head (editors send them first); it stops at the
// first other member, so a large params value is never decoded. known
// says the head is a request's: it names the method, or "" when the
// params come first.
func sniffHead(head []byte) (id json.RawMessage, method string, known bool) {
	id = nullID
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return id, "", false
	}
	for dec.More() {
		t, _ := dec.Token()
		key, _ := t.(string) // "" when unreadable
		var raw json.RawMessage
		if key != "id" && key != "method" && key != "jsonrpc" || dec.Decode(&raw) != nil {
			return id, method, method != "" || key == "params"
		}
		switch {
		case key == "id" && validID(raw):
			id = raw
		case key == "method":
			_ = json.Unmarshal(raw, &method)
		}
	}
	return id, method, method != ""
}

// Done is closed when Serve has returned.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close stops Serve and fails pending calls. It does not close the streams.
func (c *Conn) Close() { c.end() }

// Wait waits for the jobs of inbound requests to finish.
func (c *Conn) Wait() { c.jobs.Wait() }

func (c *Conn) shutdown() {
	c.pmu.Lock()
	close(c.done)
	for id, ch := range c.pending {
		ch <- message{Error: errClosed}
		delete(c.pending, id)
	}
	c.pmu.Unlock()
}

func (c *Conn) dispatch(ctx context.Context, line []byte) {
	m, ok := c.decode(line)
	if !ok {
		return
	}
	// A request has a method and an "id" member, even "id":null (echoed
	// back as null). Only responses need a non-null id to find their call.
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, nullID)
	switch {
	case m.Method != "" && len(m.ID) > 0:
		r := &Request{ID: m.ID, Method: m.Method, Params: m.Params, Raw: line}
		var j Job
		rctx, served := c.serve(ctx, m.ID)
		if c.opts.Request != nil {
			j = c.opts.Request(rctx, r)
		}
		if j == nil {
			served()
			c.writeError(r.ID, NewError(CodeMethodNotFound, "Method not found: "+r.Method, nil))
			return
		}
		c.jobs.Go(func() { defer served(); c.run(r, j) })
	case m.Method != "":
		if c.opts.Cancellable && m.Method == c.opts.CancelMethod {
			c.cancelServing(m.Params)
		}
		if c.opts.Notify != nil {
			c.opts.Notify(&Request{Method: m.Method, Params: m.Params, Raw: line})
		}
	case hasID && (m.Result != nil || m.Error != nil): // "result":null decodes as "null"
		c.deliver(m)
	default:
		id := nullID
		if hasID {
			id = m.ID
		}
		c.writeError(id, NewError(CodeInvalidRequest, "Invalid request", nil))
	}
}

// decode parses one message, answering what it cannot accept: -32700 for
// a line that is not JSON, -32600 for anything else wrong, with the id
// echoed whenever it can be read.
func (c *Conn) decode(line []byte) (message, bool) {
	refuse := func(id json.RawMessage, code int, msg string) (message, bool) {
		c.writeError(id, NewError(code, msg, nil))
		return message{}, false
	}
	var m message // a member of the wrong type is left zero; the id is still read
	err := json.Unmarshal(line, &m)
	switch {
	case errors.As(err, new(*json.SyntaxError)): // Unmarshal checks the whole line first
		return refuse(nullID, CodeParseError, "Parse error")
	case line[0] == '[':
		return refuse(nullID, CodeInvalidRequest, "Invalid request: batches are not supported")
	case line[0] != '{':
		kind := map[byte]string{'n': "null", '"': "a string", 't': "true", 'f': "false"}[line[0]]
		return refuse(nullID, CodeInvalidRequest, "Invalid request: the message is "+cmp.Or(kind, "a number")+", not an object")
	}
	idOK := validID(m.ID)
	echo := nullID
	if idOK && len(m.ID) > 0 {
		echo = m.ID
	}
	switch {
	case c.opts.Strict && !idOK:
		return refuse(nullID, CodeInvalidRequest, "Invalid request: id must be a string, a number or null")
	case c.opts.Strict && !version2(line):
		return refuse(echo, CodeInvalidRequest, `Invalid request: "jsonrpc" must be "2.0"`)
	case err != nil:
		return refuse(echo, CodeInvalidRequest, "Invalid request: "+typeError(err))
	}
	return m, true
}

// version2 reports a "jsonrpc" member that is the string "2.0", however
// escaped; the member itself: message decodes a "JSONRPC" or "JsonRpc"
// member into its JSONRPC too.
func version2(line []byte) bool {
	var raw map[string]json.RawMessage
	var v string
	_ = json.Unmarshal(line, &raw)
	return json.Unmarshal(raw["jsonrpc"], &v) == nil && v == "2.0"
}

// validID reports an id JSON-RPC allows: absent, null, a string, a number.
func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	return len(id) == 0 || bytes.IndexByte([]byte(`"n-0123456789`), id[0]) >= 0
}

// typeError names the member of the wrong type.
func typeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("member %q has the wrong type", te.Field)
	}
	return "malformed message"
}

func (c *Conn) run(r *Request, j Job) {
	defer func() {
		if p := recover(); p != nil {
			c.opts.Logger.Error().Interface("panic", p).Str("method", r.Method).Msg("handler panicked")
			c.writeError(r.ID, NewError(CodeInternalError, fmt.Sprintf("internal error: %v", p), nil))
		}
	}()
	res, after, err := j()
	var b []byte
	if err == nil {
		if b, err = json.Marshal(res); err != nil {
			err = fmt.Errorf("marshal result: %w", err)
		}
	}
	switch e := (*Error)(nil); {
	case err == nil:
		_ = c.write(message{JSONRPC: "2.0", ID: r.ID, Result: b})
	case errors.As(err, &e):
		c.writeError(r.ID, e)
	case errors.Is(err, context.Canceled):
		c.writeError(r.ID, NewError(CodeCancelled, "Request cancelled", nil))
	default:
		c.writeError(r.ID, NewError(CodeInternalError, err.Error(), nil))
	}
	if after != nil {
		after()
	}
}

func (c *Conn) deliver(m message) {
	if ch := c.take(m.ID); ch != nil {
		ch <- m
		return
	}
	c.opts.Logger.Debug().RawJSON("id", m.ID).Msg("response to unknown request id dropped")
}

func (c *Conn) writeError(id json.RawMessage, e *Error) {
	_ = c.write(message{JSONRPC: "2.0", ID: id, Error: e})
}

// write sends m, a message or Notify's, as one line, under the write lock.
func (c *Conn) write(m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		c.opts.Logger.Error().Err(err).Msg("marshal outgoing message")
		return err
	}
	c.trace("out", b)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.opts.Logger.Debug().Err(err).Msg("write to peer failed")
		return err
	}
	return nil
}

// Notify sends a notification, its params marshalled with it (not to bytes
// then copied: session/update's hot path); nil params are left out.
func (c *Conn) Notify(method string, params any) error {
	return c.write(&struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", method, params})
}

// Call sends a request and waits for its response, ctx, or the end of the
// connection. A JSON-RPC error answer is returned as *Error; the result is
// decoded into result when it is not nil.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil || result == nil {
		return err
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("decode %s result: %w", method, err)
	}
	return nil
}

// CallRaw is Call returning the raw result.
func (c *Conn) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("marshal %s params: %w", method, err)
	}
	id := json.RawMessage(strconv.FormatInt(c.nextID.Add(1)-1, 10))
	ch := make(chan message, 1)
	c.pmu.Lock()
	select {
	case <-c.done:
		c.pmu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, ErrClosed)
	default:
	}
	c.pending[string(id)] = ch
	c.pmu.Unlock()
	if err := c.write(message{JSONRPC: "2.0", ID: id, Method: method, Params: b}); err != nil {
		c.take(id)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error == errClosed {
			return nil, fmt.Errorf("%s: %w", method, ErrClosed)
		}
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		c.take(id)
		if c.opts.CancelMethod != "" {
			_ = c.Notify(c.opts.CancelMethod, map[string]json.RawMessage{"requestId": id})
		}
		return nil, ctx.Err()
	}
}

// serve is the ctx of the peer's request id: with Cancellable, the peer's
// CancelMethod for id ends it; served forgets it.
func (c *Conn) serve(ctx context.Context, id json.RawMessage) (_ context.Context, served func()) {
	if !c.opts.Cancellable {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	c.pmu.Lock()
	c.serving[string(id)] = cancel
	c.pmu.Unlock()
	return ctx, func() {
		c.pmu.Lock()
		delete(c.serving, string(id))
		c.pmu.Unlock()
		cancel()
	}
}

func (c *Conn) cancelServing(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) == nil {
		c.pmu.Lock()
		cancel := c.serving[string(p.RequestID)]
		c.pmu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
}

// take removes the pending call id and returns its channel (nil: none).
func (c *Conn) take(id json.RawMessage) chan message {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	ch := c.pending[string(id)]
	delete(c.pending, string(id))
	return ch
}
