package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/sandbox"
)

// A command's timeout, unless the call sets one (up to the maximum).
const bashTimeout, maxBashTimeout = 120 * time.Second, 10 * time.Minute

type bashArgs struct {
	Command   string `json:"command"`
	TimeoutMS int    `json:"timeout_ms"`
}

func prepareBash(e *Env, a bashArgs) (*Prepared, error) {
	if strings.TrimSpace(a.Command) == "" {
		return nil, fmt.Errorf("%w: command is empty", ErrBadArgs)
	}
	timeout := bashTimeout
	if a.TimeoutMS > 0 {
		timeout = time.Duration(min(int64(a.TimeoutMS), maxBashTimeout.Milliseconds())) * time.Millisecond
	}
	return &Prepared{
		Title:     firstLine(a.Command),
		Locations: []adapters.Location{{Path: e.Root}},
		Run: func(ctx context.Context, update func(adapters.ToolCall)) Result {
			term := e.Editor != nil && e.Editor.CanTerminal()
			w, cleanup, err := e.Sandbox.Command(e.Root, e.shell.Path, e.shell.args(a.Command, !term))
			if err != nil {
				return failed("sandbox: %v", err)
			}
			defer cleanup()
			if term {
				return e.runTerminal(ctx, w, timeout, update)
			}
			return e.runLocal(ctx, w, timeout)
		},
	}, nil
}

func firstLine(s string) string {
	s, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	if more {
		s = strings.TrimSuffix(s, "\r") + " …"
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// runLocal runs the command in its own process group; cancel or timeout
// stops the whole group.
func (e *Env) runLocal(ctx context.Context, w sandbox.Wrapped, timeout time.Duration) Result {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Shells that cannot merge stderr into stdout themselves (PowerShell)
	// get it merged here, in arrival order.
	out := newHeadTail(e.OutputCap)
	p, err := proc.Start(tctx, proc.Spec{Path: w.Path, Args: w.Args, Dir: e.Root, Env: append(os.Environ(), w.Env...),
		Grace: 2 * time.Second, StderrTee: out})
	if err != nil {
		return failed("start %s: %v", e.shell.Name, err)
	}
	_ = p.Stdin.Close()
	_, _ = io.Copy(out, p.Stdout)
	waitErr := p.Wait()
	body := e.notice() + out.String()
	if note := stopped(ctx, tctx, timeout); note != "" {
		return Result{Output: body + "\n" + note, Failed: true}
	}
	code := p.ExitCode()
	if waitErr != nil && code == 0 {
		code = -1
	}
	return Result{Output: fmt.Sprintf("%s\n[exit code %d]", body, code), Failed: code != 0}
}

// stopped is the note of a command that a cancel of ctx or tctx's deadline
// ended, or "".
func stopped(ctx, tctx context.Context, timeout time.Duration) string {
	switch {
	case ctx.Err() != nil:
		return "[command cancelled]"
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("[command timed out after %s and was killed]", timeout)
	}
	return ""
}

func (e *Env) notice() string {
	if n := e.Sandbox.Notice(); n != "" {
		return n + "\n"
	}
	return ""
}

// headTail keeps the first and the last half of cap bytes. The stdout copy
// and proc's stderr tee write it at once.
type headTail struct {
	mu      sync.Mutex
	head    []byte
	tail    *proc.Ring
	written int
}

func newHeadTail(capBytes int) *headTail {
	return &headTail{head: make([]byte, 0, capBytes/2), tail: proc.NewRing(capBytes / 2)}
}

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.written += len(p)
	k := min(cap(h.head)-len(h.head), len(p))
	h.head = append(h.head, p[:k]...)
	_, _ = h.tail.Write(p[k:])
	return len(p), nil
}

func (h *headTail) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	tail := h.tail.String()
	if dropped := h.written - len(h.head) - len(tail); dropped > 0 {
		return fmt.Sprintf("%s\n[… %d bytes omitted …]\n%s", h.head, dropped, tail)
	}
	return string(h.head) + tail
}

func (e *Env) runTerminal(ctx context.Context, w sandbox.Wrapped, timeout time.Duration, update func(adapters.ToolCall)) Result {
	limit := uint64(e.OutputCap)
	params := schema.CreateTerminalRequest{Command: w.Path, Args: w.Args, Cwd: e.Root, OutputByteLimit: &limit}
	for _, kv := range w.Env {
		k, v, _ := strings.Cut(kv, "=")
		params.Env = append(params.Env, schema.EnvVariable{Name: k, Value: v})
	}
	var created schema.CreateTerminalResponse
	if err := e.call(ctx, "terminal/create", params, &created); err != nil || created.TerminalID == "" {
		return failed("editor terminal/create: %v", err)
	}
	term := schema.TerminalRequest{TerminalID: created.TerminalID}
	// Release and the final reads must happen even after cancel.
	bg, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer stop()
	defer func() { _ = e.call(bg, "terminal/release", term, nil) }()
	shown := []adapters.ToolContent{{Type: adapters.ToolContentTerminal, TerminalID: term.TerminalID}}
	if update != nil {
		update(adapters.ToolCall{Content: shown})
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var exit struct { // not schema's: an editor may report a negative code
		ExitCode *int   `json:"exitCode"`
		Signal   string `json:"signal"`
	}
	note := ""
	if err := e.call(wctx, "terminal/wait_for_exit", term, &exit); err != nil {
		_ = e.call(bg, "terminal/kill", term, nil)
		note = cmp.Or(stopped(ctx, wctx, timeout), fmt.Sprintf("[editor terminal error: %v]", err))
	}
	var out schema.TerminalOutputResponse
	_ = e.call(bg, "terminal/output", term, &out)
	body := e.notice() + out.Output
	if out.Truncated {
		body = "[earlier output truncated]\n" + body
	}
	switch {
	case note != "":
		return Result{Output: body + "\n" + note, Failed: true, Content: shown}
	case exit.ExitCode != nil:
		return Result{Output: fmt.Sprintf("%s\n[exit code %d]", body, *exit.ExitCode), Failed: *exit.ExitCode != 0, Content: shown}
	}
	return Result{Output: fmt.Sprintf("%s\n[killed by signal %s]", body, cmp.Or(exit.Signal, "unknown")), Failed: true, Content: shown}
}

// call: the editor client adds the session's id.
func (e *Env) call(ctx context.Context, method string, params, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	res, err := e.Editor.Call(ctx, method, raw)
	if err != nil {
		return err
	}
	if out == nil || len(res) == 0 || string(res) == "null" {
		return nil
	}
	if err := json.Unmarshal(res, out); err != nil {
		return fmt.Errorf("%s: bad result: %w", method, err)
	}
	return nil
}
