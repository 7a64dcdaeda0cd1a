package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hubdev/hub/acp/schema"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"
)

// message is any JSON-RPC 2.0 object on the wire.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *schema.Error   `json:"error,omitempty"`
}

// request is an inbound request or notification (ID nil).
type request struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

type response struct {
	result json.RawMessage
	err    *schema.Error
}

// job computes a response off the read loop. after, when set, runs once
// the response line has been written (for updates that must follow it).
type job func() (result any, after func(), err error)

// handlerFunc runs in the read loop, in arrival order, and must be quick:
// it validates and reserves state, and returns the slow part as a job.
type handlerFunc func(ctx context.Context, r *request) job

// conn is a newline-delimited JSON-RPC 2.0 peer. Each inbound request runs
// in its own goroutine so the read loop never blocks; notifications run
// inline and must be quick.
type conn struct {
	r      *bufio.Reader
	w      io.Writer
	wmu    sync.Mutex
	log    zerolog.Logger
	handle handlerFunc
	notify func(r *request)

	nextID  atomic.Int64
	pmu     sync.Mutex
	pending map[string]chan response
	done    chan struct{}
	wg      sync.WaitGroup
}

func newConn(in io.Reader, out io.Writer, log zerolog.Logger) *conn {
	return &conn{
		r:       bufio.NewReaderSize(in, 1<<20),
		w:       out,
		log:     log,
		pending: map[string]chan response{},
		done:    make(chan struct{}),
	}
}

// serve reads until EOF or ctx ends; it returns nil on EOF. The read runs
// on its own goroutine so that an editor keeping stdin open cannot hold hub
// past a signal; it ends with the process or the input.
func (c *conn) serve(ctx context.Context) error {
	defer c.shutdown()
	type read struct {
		line []byte
		err  error
	}
	lines := make(chan read)
	go func() {
		for {
			line, err := c.r.ReadBytes('\n')
			select {
			case lines <- read{line, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
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
		if line := bytes.TrimSpace(r.line); len(line) > 0 {
			c.dispatch(ctx, line)
		}
		if errors.Is(r.err, io.EOF) {
			return nil
		}
		if r.err != nil {
			return fmt.Errorf("read stdin: %w", r.err)
		}
	}
}

func (c *conn) shutdown() {
	close(c.done)
	c.pmu.Lock()
	for id, ch := range c.pending {
		ch <- response{err: schema.NewError(schema.CodeInternalError, ErrConnClosed.Error(), nil)}
		delete(c.pending, id)
	}
	c.pmu.Unlock()
}

var nullID = json.RawMessage("null")

func (c *conn) dispatch(ctx context.Context, line []byte) {
	if line[0] == '[' {
		c.writeError(nullID, schema.NewError(schema.CodeInvalidRequest, "Invalid request: batches are not supported", nil))
		return
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		if json.Valid(line) {
			c.writeError(nullID, schema.NewError(schema.CodeInvalidRequest, "Invalid request: not a JSON-RPC object", nil))
		} else {
			c.writeError(nullID, schema.NewError(schema.CodeParseError, "Parse error", nil))
		}
		return
	}
	// A request is a message with a method and an "id" member, even
	// "id":null (RequestId allows null; it is echoed back as null). Only
	// responses need a non-null id to find their caller.
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, nullID)
	switch {
	case m.Method != "" && len(m.ID) > 0:
		r := &request{ID: m.ID, Method: m.Method, Params: m.Params}
		c.wg.Add(1)
		go c.runRequest(r, c.handle(ctx, r))
	case m.Method != "":
		if c.notify != nil {
			c.notify(&request{Method: m.Method, Params: m.Params})
		}
	case hasID && (m.Result != nil || m.Error != nil || hasKey(line, "result")):
		if m.Result == nil && m.Error == nil {
			m.Result = json.RawMessage("null")
		}
		c.deliver(m)
	default:
		id := nullID
		if hasID {
			id = m.ID
		}
		c.writeError(id, schema.NewError(schema.CodeInvalidRequest, "Invalid request", nil))
	}
}

func (c *conn) runRequest(r *request, j job) {
	defer c.wg.Done()
	defer func() {
		if p := recover(); p != nil {
			c.log.Error().Interface("panic", p).Str("method", r.Method).Msg("handler panicked")
			c.writeError(r.ID, schema.NewError(schema.CodeInternalError, fmt.Sprintf("internal error: %v", p), nil))
		}
	}()
	res, after, err := j()
	if err != nil {
		var e *schema.Error
		if !errors.As(err, &e) {
			e = schema.NewError(schema.CodeInternalError, err.Error(), nil)
		}
		c.writeError(r.ID, e)
	} else {
		c.writeResult(r.ID, res)
	}
	if after != nil {
		after()
	}
}

func (c *conn) deliver(m message) {
	c.pmu.Lock()
	ch, ok := c.pending[string(m.ID)]
	delete(c.pending, string(m.ID))
	c.pmu.Unlock()
	if !ok {
		c.log.Debug().RawJSON("id", m.ID).Msg("response to unknown request id dropped")
		return
	}
	ch <- response{result: m.Result, err: m.Error}
}

func (c *conn) writeResult(id json.RawMessage, res any) {
	b, err := json.Marshal(res)
	if err != nil {
		c.writeError(id, schema.NewError(schema.CodeInternalError, "marshal result: "+err.Error(), nil))
		return
	}
	c.write(message{JSONRPC: "2.0", ID: id, Result: b})
}

func (c *conn) writeError(id json.RawMessage, e *schema.Error) {
	c.write(message{JSONRPC: "2.0", ID: id, Error: e})
}

// write sends one JSON object and "\n" atomically.
func (c *conn) write(m message) {
	b, err := json.Marshal(m)
	if err != nil {
		c.log.Error().Err(err).Msg("marshal outgoing message")
		return
	}
	c.writeLine(append(b, '\n'))
}

// writeLine writes one complete line under the write lock.
func (c *conn) writeLine(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(b); err != nil {
		c.log.Debug().Err(err).Msg("write to client failed")
	}
}

// Notify sends a notification.
func (c *conn) Notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("marshal %s params: %w", method, err)
	}
	// Built by hand: re-marshalling b as a RawMessage would scan it again.
	line := make([]byte, 0, len(b)+len(method)+48)
	line = append(line, `{"jsonrpc":"2.0","method":`...)
	line = strconv.AppendQuote(line, method)
	line = append(line, `,"params":`...)
	line = append(append(line, b...), "}\n"...)
	c.writeLine(line)
	return nil
}

// Call sends a request and waits for its response, ctx, or connection end.
// A JSON-RPC error answer is returned as *Error.
func (c *conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("marshal %s params: %w", method, err)
	}
	id := json.RawMessage(strconv.FormatInt(c.nextID.Add(1)-1, 10))
	ch := make(chan response, 1)
	c.pmu.Lock()
	select {
	case <-c.done:
		c.pmu.Unlock()
		return nil, ErrConnClosed
	default:
	}
	c.pending[string(id)] = ch
	c.pmu.Unlock()
	c.write(message{JSONRPC: "2.0", ID: id, Method: method, Params: b})
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return r.result, nil
	case <-ctx.Done():
		c.pmu.Lock()
		delete(c.pending, string(id))
		c.pmu.Unlock()
		return nil, ctx.Err()
	}
}

func hasKey(b []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}
