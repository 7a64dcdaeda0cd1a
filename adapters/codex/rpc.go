package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/hubdev/hub/streamparse"
)

// rpcConn is a minimal newline-delimited JSON-RPC 2.0 client for the
// app-server: it sends requests, matches responses, and hands every other
// message (notifications and server requests) to onMessage in order.
type rpcConn struct {
	w       io.Writer
	wmu     sync.Mutex
	mu      sync.Mutex
	next    int
	pending map[string]chan streamparse.CodexMessage
	closed  chan struct{}
}

func newRPCConn(w io.Writer) *rpcConn {
	return &rpcConn{w: w, pending: map[string]chan streamparse.CodexMessage{}, closed: make(chan struct{})}
}

// readLoop reads until EOF; it returns after closing c.closed.
func (c *rpcConn) readLoop(r io.Reader, onMessage func(line []byte, m streamparse.CodexMessage)) {
	defer close(c.closed)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var m streamparse.CodexMessage
			if json.Unmarshal(line, &m) == nil && m.IsResponse() {
				c.deliver(m)
			} else {
				onMessage(line, m)
			}
		}
		if err != nil {
			return
		}
	}
}

func (c *rpcConn) deliver(m streamparse.CodexMessage) {
	c.mu.Lock()
	ch := c.pending[string(m.ID)]
	delete(c.pending, string(m.ID))
	c.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

func (c *rpcConn) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// call sends a request and waits for its result.
func (c *rpcConn) call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	c.next++
	n := c.next
	id := strconv.Itoa(n)
	ch := make(chan streamparse.CodexMessage, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": n, "method": method, "params": params}); err != nil {
		return fmt.Errorf("codex %s: %w", method, err)
	}
	select {
	case m := <-ch:
		if len(m.Error) > 0 && string(m.Error) != "null" {
			var e struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(m.Error, &e)
			return fmt.Errorf("%w: codex %s: %s", errRPC, method, e.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-c.closed:
		return fmt.Errorf("codex %s: %w", method, errExited)
	case <-ctx.Done():
		return fmt.Errorf("codex %s: %w", method, ctx.Err())
	}
}

func (c *rpcConn) notify(method string, params any) error {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	return c.write(m)
}

func (c *rpcConn) reply(id json.RawMessage, result any) error {
	return c.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (c *rpcConn) replyError(id json.RawMessage, code int, msg string) error {
	return c.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}
