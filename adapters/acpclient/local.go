package acpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/proc"
)

// ACP error codes used by the local client methods.
const (
	codeResourceNotFound = -32002
	defaultOutputLimit   = 1 << 20
	terminalStopGrace    = 2 * time.Second
)

// local serves fs/* and terminal/* requests when no editor does: files
// inside the session cwd, commands run under internal/proc with output
// bounded to the requested byte limit.
type local struct {
	root string
	log  zerolog.Logger

	mu    sync.Mutex
	seq   int
	terms map[string]*terminal
}

func newLocal(root string, log zerolog.Logger) *local {
	return &local{root: root, log: log, terms: map[string]*terminal{}}
}

func rpcErr(code int, format string, a ...any) *jsonrpc.Error {
	return jsonrpc.NewError(code, fmt.Sprintf(format, a...), nil)
}

func (l *local) serve(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "fs/read_text_file":
		return l.readFile(params)
	case "fs/write_text_file":
		return l.writeFile(params)
	case "terminal/create":
		return l.createTerminal(params)
	case "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release":
		return l.terminalOp(ctx, method, params)
	}
	return nil, rpcErr(jsonrpc.CodeMethodNotFound, "method not found: %s", method)
}

// inside resolves p and checks it is within the session root.
func (l *local) inside(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", rpcErr(jsonrpc.CodeInvalidParams, "path must be absolute: %q", p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(l.root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", rpcErr(jsonrpc.CodeInvalidParams, "path %s is outside the session directory %s", p, l.root)
	}
	return p, nil
}

func (l *local) readFile(params json.RawMessage) (any, error) {
	var p schema.ReadTextFileRequest
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, rpcErr(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	path, err := l.inside(p.Path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, rpcErr(codeResourceNotFound, "file not found: %s", path)
	}
	if err != nil {
		return nil, rpcErr(jsonrpc.CodeInternalError, "read %s: %v", path, err)
	}
	return schema.ReadTextFileResponse{Content: sliceLines(string(data), deref(p.Line), deref(p.Limit))}, nil
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// sliceLines returns limit lines starting at 1-based line (0 = all).
func sliceLines(s string, line, limit int) string {
	if line <= 1 && limit <= 0 {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	start := max(line-1, 0)
	if start >= len(lines) {
		return ""
	}
	end := len(lines)
	if limit > 0 && start+limit < end {
		end = start + limit
	}
	return strings.Join(lines[start:end], "")
}

func (l *local) writeFile(params json.RawMessage) (any, error) {
	var p schema.WriteTextFileRequest
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, rpcErr(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	path, err := l.inside(p.Path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, rpcErr(jsonrpc.CodeInternalError, "create directory for %s: %v", path, err)
	}
	if err := os.WriteFile(path, []byte(p.Content), 0o644); err != nil {
		return nil, rpcErr(jsonrpc.CodeInternalError, "write %s: %v", path, err)
	}
	return struct{}{}, nil
}

// terminal is one locally run command.
type terminal struct {
	p       *proc.Process
	out     *tailBuffer
	outDone chan struct{} // closed once stdout reached EOF
}

// outputDrainLimit bounds the wait for stdout EOF after exit: a process that
// escaped the group may still hold the pipe open.
const outputDrainLimit = 2 * time.Second

// drained waits, after exit, until the output copier has everything the
// command wrote, so an exit status never comes with output still in flight.
func (t *terminal) drained() {
	timer := time.NewTimer(outputDrainLimit)
	defer timer.Stop()
	select {
	case <-t.outDone:
	case <-timer.C:
	}
}

func (l *local) createTerminal(params json.RawMessage) (any, error) {
	var p schema.CreateTerminalRequest
	if err := json.Unmarshal(params, &p); err != nil || p.Command == "" {
		return nil, rpcErr(jsonrpc.CodeInvalidParams, "terminal/create needs a command")
	}
	dir := l.root
	if p.Cwd != "" {
		d, err := l.inside(p.Cwd)
		if err != nil {
			return nil, err
		}
		dir = d
	}
	limit := defaultOutputLimit
	if p.OutputByteLimit != nil && *p.OutputByteLimit > 0 && *p.OutputByteLimit < 1<<40 {
		limit = int(*p.OutputByteLimit)
	}
	env := os.Environ()
	for _, e := range p.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	buf := &tailBuffer{limit: limit}
	pr, err := proc.Start(context.Background(), proc.Spec{Path: p.Command, Args: p.Args, Dir: dir, Env: env,
		StderrTee: buf, StderrLimit: 1 << 10, Grace: terminalStopGrace})
	if err != nil {
		return nil, rpcErr(jsonrpc.CodeInternalError, "%v", err)
	}
	_ = pr.Stdin.Close()
	t := &terminal{p: pr, out: buf, outDone: make(chan struct{})}
	go func() {
		defer close(t.outDone)
		_, _ = io.Copy(buf, pr.Stdout)
	}()
	l.mu.Lock()
	l.seq++
	id := "hub-term-" + strconv.Itoa(l.seq)
	l.terms[id] = t
	l.mu.Unlock()
	return schema.CreateTerminalResponse{TerminalID: id}, nil
}

func statusOf(p *proc.Process) schema.TerminalExitStatus {
	_ = p.Wait()
	if code := p.ExitCode(); code >= 0 {
		c := uint32(code)
		return schema.TerminalExitStatus{ExitCode: &c}
	}
	sig := cmp.Or(p.ExitSignal(), "SIGKILL")
	return schema.TerminalExitStatus{Signal: &sig}
}

func (l *local) terminalOp(ctx context.Context, method string, params json.RawMessage) (any, error) {
	var p schema.TerminalRequest
	_ = json.Unmarshal(params, &p)
	l.mu.Lock()
	t := l.terms[p.TerminalID]
	l.mu.Unlock()
	if t == nil {
		return nil, rpcErr(codeResourceNotFound, "unknown terminal %q", p.TerminalID)
	}
	switch method {
	case "terminal/output":
		var st *schema.TerminalExitStatus
		if t.p.Exited() {
			t.drained()
			s := statusOf(t.p)
			st = &s
		}
		out, truncated := t.out.snapshot()
		return schema.TerminalOutputResponse{Output: out, Truncated: truncated, ExitStatus: st}, nil
	case "terminal/wait_for_exit":
		select {
		case <-t.p.Done():
			t.drained()
			return statusOf(t.p), nil
		case <-ctx.Done():
			return nil, rpcErr(-32800, "request cancelled")
		}
	case "terminal/kill":
		_ = t.p.StopWithin(terminalStopGrace)
		return struct{}{}, nil
	}
	_ = t.p.StopWithin(terminalStopGrace)
	l.mu.Lock()
	delete(l.terms, p.TerminalID)
	l.mu.Unlock()
	return struct{}{}, nil
}

// inlineTerminals replaces references to local terminals (which no editor
// can show) with their current output as text.
func (l *local) inlineTerminals(evs []adapters.Event) {
	for _, ev := range evs {
		if ev.Tool == nil {
			continue
		}
		for i, c := range ev.Tool.Content {
			if c.Type != adapters.ToolContentTerminal {
				continue
			}
			l.mu.Lock()
			t := l.terms[c.TerminalID]
			l.mu.Unlock()
			if t != nil {
				out, _ := t.out.snapshot()
				ev.Tool.Content[i] = adapters.ToolContent{Type: adapters.ToolContentText, Text: out}
			}
		}
	}
}

func (l *local) releaseAll() {
	l.mu.Lock()
	terms := l.terms
	l.terms = map[string]*terminal{}
	l.mu.Unlock()
	for _, t := range terms {
		_ = t.p.StopWithin(terminalStopGrace)
	}
}

// tailBuffer keeps the last limit bytes written, cut at a UTF-8 boundary.
type tailBuffer struct {
	mu        sync.Mutex
	limit     int
	buf       []byte
	truncated bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		for over < len(b.buf) && b.buf[over]&0xC0 == 0x80 {
			over++ // do not start inside a UTF-8 sequence
		}
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.truncated = true
	}
	return len(p), nil
}

func (b *tailBuffer) snapshot() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf), b.truncated
}
