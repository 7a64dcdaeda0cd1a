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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"mvdan.cc/sh/v3/syntax"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fspath"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/safefile"
	"github.com/hubdev/hub/internal/sandbox"
)

const (
	codeRefused        = -32001 // the permission gate or the deny list refused a local call
	defaultOutputLimit = 1 << 20
	terminalStopGrace  = 2 * time.Second
	maxFileBytes       = 1 << 30 // a file read for an agent; never a FIFO or device (safefile)
)

// askFunc is the permission gate a local call passes before it runs (see
// Session.askLocal); done reports how it went.
type askFunc func(ctx context.Context, tc adapters.ToolCall) (done func(ok bool), err error)

// local serves fs/* and terminal/* requests when no editor does: each call
// asked first, paths confined to the session's directories by what they
// resolve to, commands run in the sandbox.
type local struct {
	cwd     string   // the session directory as given
	roots   []string // cwd and the additional directories, links resolved
	agent   string
	ask     askFunc
	sandbox func() *sandbox.Sandbox // checked on first use

	mu    sync.Mutex
	seq   int
	calls int
	terms map[string]*terminal
}

func newLocal(cwd string, addDirs []string, agent string, policy sandbox.Policy, ask askFunc, log zerolog.Logger) *local {
	l := &local{cwd: cwd, agent: agent, ask: ask, terms: map[string]*terminal{}, sandbox: sync.OnceValue(func() *sandbox.Sandbox {
		sb := sandbox.Checked(context.Background(), policy, nil)
		if n := sb.Notice(); n != "" {
			log.Warn().Str("agent", agent).Msg("terminal commands of the agent run " + strings.Trim(n, "[]"))
		}
		return sb
	})}
	for _, d := range append([]string{cwd}, addDirs...) {
		if real, err := fspath.RealPath(d); err == nil {
			l.roots = append(l.roots, real)
		}
	}
	return l
}

func rpcErr(code int, format string, a ...any) *jsonrpc.Error {
	return jsonrpc.NewError(code, fmt.Sprintf(format, a...), nil)
}

func (l *local) serve(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "fs/read_text_file":
		return l.readFile(ctx, params)
	case "fs/write_text_file":
		return l.writeFile(ctx, params)
	case "terminal/create":
		return l.createTerminal(ctx, params)
	case "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release":
		return l.terminalOp(ctx, method, params)
	}
	return nil, rpcErr(jsonrpc.CodeMethodNotFound, "method not found: %s", method)
}

// inside resolves the absolute path p and checks it lies in one of the
// session's directories, top, under name: files open by name through top's
// os.Root (safefile), so a link swapped in since the check is not followed.
func (l *local) inside(p string) (real, top, name string, err error) {
	if !filepath.IsAbs(p) {
		return "", "", "", rpcErr(jsonrpc.CodeInvalidParams, "path must be absolute: %q", p)
	}
	if name, ok := aliasName(runtime.GOOS, p); ok {
		return "", "", "", rpcErr(jsonrpc.CodeInvalidParams, "path %s: Windows opens %q under another name; use the name itself", p, name)
	}
	for _, root := range l.roots {
		if real, err := fspath.Resolve(runtime.GOOS, root, p); err == nil {
			return real, root, fspath.RelTo(runtime.GOOS, root, real), nil
		}
	}
	return "", "", "", rpcErr(jsonrpc.CodeInvalidParams, "path %s is outside the session directory %s", filepath.Clean(p), l.cwd)
}

// aliasName finds a name Windows opens as another one, which the deny
// list would not recognise: trailing dots and spaces are dropped (".env "
// is .env) and "name:stream" is a stream of name (".env::$DATA").
func aliasName(goos, p string) (string, bool) {
	if goos != "windows" {
		return "", false
	}
	_, names := fspath.SplitPath(goos, p)
	for _, n := range names {
		if strings.HasSuffix(n, ".") || strings.HasSuffix(n, " ") || strings.Contains(n, ":") {
			return n, true
		}
	}
	return "", false
}

// call describes a local call for the permission gate, titled with who asks.
func (l *local) call(name string, kind adapters.ToolKind, what string, input map[string]any) adapters.ToolCall {
	l.mu.Lock()
	l.calls++
	id := "hub-local-" + strconv.Itoa(l.calls)
	l.mu.Unlock()
	raw, _ := json.Marshal(input)
	return adapters.ToolCall{ID: id, Name: name, Kind: kind, Title: l.agent + ": " + what, RawInput: raw}
}

// show is path relative to the session directory when inside it.
func (l *local) show(path string) string {
	if len(l.roots) > 0 && fspath.Within(runtime.GOOS, l.roots[0], path) {
		return fspath.RelTo(runtime.GOOS, l.roots[0], path)
	}
	return path
}

func (l *local) readFile(ctx context.Context, params json.RawMessage) (any, error) {
	var p schema.ReadTextFileRequest
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, rpcErr(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	path, top, name, err := l.inside(p.Path)
	if err != nil {
		return nil, err
	}
	tc := l.call("read_file", adapters.KindRead, "read "+l.show(path), map[string]any{"path": path})
	tc.Locations = []adapters.Location{{Path: path}}
	done, err := l.ask(ctx, tc)
	if err != nil {
		return nil, err
	}
	data, err := safefile.ReadIn(top, name, maxFileBytes)
	done(err == nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, rpcErr(schema.CodeResourceNotFound, "file not found: %s", path)
	}
	if err != nil {
		return nil, rpcErr(jsonrpc.CodeInternalError, "read %s: %v", path, err)
	}
	return schema.ReadTextFileResponse{Content: sliceLines(string(data), deref(p.Line), deref(p.Limit))}, nil
}

func deref[T any](p *T) (v T) {
	if p != nil {
		v = *p
	}
	return v
}

// sliceLines returns limit lines starting at 1-based line (0 = all).
func sliceLines(s string, line, limit int) string {
	if line <= 1 && limit <= 0 {
		return s
	}
	lines := slices.Collect(strings.Lines(s))
	start, end := min(max(line, 1)-1, len(lines)), len(lines)
	if limit > 0 {
		end = start + min(limit, end-start) // limit may be any int the agent sends
	}
	return strings.Join(lines[start:end], "")
}

func (l *local) writeFile(ctx context.Context, params json.RawMessage) (any, error) {
	var p schema.WriteTextFileRequest
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, rpcErr(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	path, top, name, err := l.inside(p.Path)
	if err != nil {
		return nil, err
	}
	tc := l.call("write_file", adapters.KindEdit, "write "+l.show(path), map[string]any{"path": path})
	tc.Locations = []adapters.Location{{Path: path}}
	diff := adapters.ToolContent{Type: adapters.ToolContentDiff, Path: path, NewText: p.Content}
	switch old, err := safefile.ReadIn(top, name, maxFileBytes); {
	case err == nil:
		diff.OldText = new(string(old))
	case !errors.Is(err, fs.ErrNotExist): // a FIFO would hold the write until something read it
		return nil, rpcErr(jsonrpc.CodeInternalError, "write %s: %v", path, err)
	}
	tc.Content = []adapters.ToolContent{diff}
	done, err := l.ask(ctx, tc)
	if err != nil {
		return nil, err
	}
	err = safefile.WriteIn(top, name, []byte(p.Content))
	done(err == nil)
	if err != nil {
		return nil, rpcErr(jsonrpc.CodeInternalError, "write %s: %v", path, err)
	}
	return struct{}{}, nil
}

type terminal struct {
	p   *proc.Process
	out *proc.Ring
	// outDone is closed at stdout's EOF: an exit status waits for it
	// (drained), never coming with output still in flight.
	outDone chan struct{}
}

func (l *local) createTerminal(ctx context.Context, params json.RawMessage) (any, error) {
	var p schema.CreateTerminalRequest
	if err := json.Unmarshal(params, &p); err != nil || p.Command == "" {
		return nil, rpcErr(jsonrpc.CodeInvalidParams, "terminal/create needs a command")
	}
	if len(l.roots) == 0 {
		return nil, rpcErr(jsonrpc.CodeInternalError, "session directory %s cannot be resolved", l.cwd)
	}
	dir := l.roots[0]
	if p.Cwd != "" {
		d, _, _, err := l.inside(p.Cwd)
		if err != nil {
			return nil, err
		}
		dir = d
	}
	line, err := commandLine(p)
	if err != nil {
		return nil, err
	}
	tc := l.call("bash", adapters.KindExecute, line, map[string]any{"command": line, "cwd": dir})
	done, err := l.ask(ctx, tc)
	if err != nil {
		return nil, err
	}
	t, err := l.start(p, dir)
	done(err == nil)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.seq++
	id := "hub-term-" + strconv.Itoa(l.seq)
	l.terms[id] = t
	l.mu.Unlock()
	return schema.CreateTerminalResponse{TerminalID: id}, nil
}

func (l *local) start(p schema.CreateTerminalRequest, dir string) (*terminal, error) {
	w, cleanup, err := l.sandbox().Command(l.roots[0], p.Command, p.Args)
	if err != nil {
		return nil, rpcErr(jsonrpc.CodeInternalError, "sandbox: %v", err)
	}
	limit := defaultOutputLimit
	if p.OutputByteLimit != nil && *p.OutputByteLimit > 0 && *p.OutputByteLimit < 1<<40 {
		limit = int(*p.OutputByteLimit)
	}
	env := os.Environ()
	for _, e := range p.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	env = append(env, w.Env...)
	buf := proc.NewRing(limit)
	pr, err := proc.Start(context.Background(), proc.Spec{Path: w.Path, Args: w.Args, Dir: dir, Env: env,
		StderrTee: buf, StderrLimit: 1 << 10, Grace: terminalStopGrace})
	if err != nil {
		cleanup()
		return nil, rpcErr(jsonrpc.CodeInternalError, "%v", err)
	}
	_ = pr.Stdin.Close()
	t := &terminal{p: pr, out: buf, outDone: make(chan struct{})}
	go func() {
		defer close(t.outDone)
		_, _ = io.Copy(buf, pr.Stdout)
	}()
	go func() {
		<-pr.Done()
		cleanup()
	}()
	return t, nil
}

// commandLine is the shell line a terminal/create runs, for the deny list,
// the rules and the user: env as assignments (BASH_ENV or LD_PRELOAD change
// what runs), the program as sent (agents put whole lines there), arguments
// quoted. An env name that is no shell name would hide the command.
func commandLine(p schema.CreateTerminalRequest) (string, error) {
	var parts []string
	for _, e := range p.Env {
		if !syntax.ValidName(e.Name) {
			return "", rpcErr(jsonrpc.CodeInvalidParams, "terminal/create: environment variable name %q is not a shell name", e.Name)
		}
		parts = append(parts, e.Name+"="+shellQuote(e.Value))
	}
	if len(p.Args) == 0 {
		return strings.Join(append(parts, p.Command), " "), nil
	}
	parts = append(parts, shellQuote(p.Command))
	for _, a := range p.Args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " "), nil
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func statusOf(p *proc.Process) schema.TerminalExitStatus {
	_ = p.Wait()
	if code := p.ExitCode(); code >= 0 {
		return schema.TerminalExitStatus{ExitCode: new(uint32(code))}
	}
	return schema.TerminalExitStatus{Signal: new(cmp.Or(p.ExitSignal(), "SIGKILL"))}
}

func (l *local) terminalOp(ctx context.Context, method string, params json.RawMessage) (any, error) {
	var p schema.TerminalRequest
	_ = json.Unmarshal(params, &p)
	l.mu.Lock()
	t := l.terms[p.TerminalID]
	l.mu.Unlock()
	if t == nil {
		return nil, rpcErr(schema.CodeResourceNotFound, "unknown terminal %q", p.TerminalID)
	}
	switch method {
	case "terminal/output":
		var st *schema.TerminalExitStatus
		if t.p.Exited() {
			drained(t.outDone)
			st = new(statusOf(t.p))
		}
		out, truncated := t.out.Snapshot()
		return schema.TerminalOutputResponse{Output: out, Truncated: truncated, ExitStatus: st}, nil
	case "terminal/wait_for_exit":
		select {
		case <-t.p.Done():
			drained(t.outDone)
			return statusOf(t.p), nil
		case <-ctx.Done():
			return nil, rpcErr(jsonrpc.CodeCancelled, "request cancelled")
		}
	}
	_ = t.p.StopWithin(terminalStopGrace) // terminal/kill, and terminal/release, which forgets it too
	if method == "terminal/release" {
		l.mu.Lock()
		delete(l.terms, p.TerminalID)
		l.mu.Unlock()
	}
	return struct{}{}, nil
}

// inlineTerminals replaces local terminals, which no editor can show, with
// their output.
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
				out, _ := t.out.Snapshot()
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
