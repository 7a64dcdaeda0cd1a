package hooks

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/trace"
)

// Observer runs the hooks on a CLI agent's Event stream. hub cannot stop
// such an agent's tools, so every hook only observes: a decision is
// reported, never enforced. Hooks run in order off the stream's goroutine,
// so the stream never waits for them; Flush waits for them.
type Observer struct {
	r      *Runner
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	base     Input
	last     <-chan struct{} // closed once the hooks queued last ran
	warnings []string
	// calls are the turn's tool calls seen, by id, with what later
	// updates added; Event is the last hook event queued for it.
	calls map[string]*Input
}

// Observe returns an observer for one session whose hooks get base's
// session, cwd and agent, and queues SessionStart; nil (which observes
// nothing, for free) when r has no hooks.
func (r *Runner) Observe(base Input) *Observer {
	if r == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	close(ran)
	o := &Observer{r: r, ctx: ctx, cancel: cancel, base: base, last: ran, calls: map[string]*Input{}}
	o.enqueue(Input{Event: SessionStart}) // o is not shared yet
	return o
}

// Prompt runs the UserPromptSubmit hooks of a turn of agent (the
// session's agent may change between turns) before the prompt reaches the
// agent, after the hooks queued before it: hub holds the prompt, so a hook
// may block it (Decision Deny, with its reason). Only ctx ending stops
// the wait.
func (o *Observer) Prompt(ctx context.Context, agent string, prompt []adapters.Content) Outcome {
	defer trace.Mark(ctx, trace.HooksDone)
	if o == nil {
		return Outcome{}
	}
	o.mu.Lock()
	o.base.Agent = agent
	o.mu.Unlock()
	if !o.r.Has(UserPromptSubmit) {
		return Outcome{}
	}
	o.wait(ctx)
	return o.run(ctx, Input{Event: UserPromptSubmit, Prompt: adapters.PromptText(prompt)})
}

// Blocked is the turn error of a prompt a UserPromptSubmit hook blocked:
// fatal, the turn ends there (no agent answered it).
func Blocked(o Outcome) *adapters.TurnError {
	return &adapters.TurnError{Info: adapters.ErrorInfo{Message: "The prompt was blocked by a UserPromptSubmit hook: " + o.Reason, Code: adapters.CodeHook, Fatal: true}}
}

// Wrap returns emit with the tool events observed on the way: PreToolUse
// when a call starts, PostToolUse when it completes or fails. A nil
// observer returns emit itself.
func (o *Observer) Wrap(emit func(adapters.Event)) func(adapters.Event) {
	if o == nil {
		return emit
	}
	return func(ev adapters.Event) {
		o.note(ev)
		emit(ev)
	}
}

// EndTurn queues Stop and forgets the turn's calls.
func (o *Observer) EndTurn(reason adapters.StopReason) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	clear(o.calls)
	o.enqueue(Input{Event: Stop, StopReason: string(reason)})
}

// Flush waits until the queued hooks ran (or ctx ends) and returns the
// warnings since the last Flush, one line each.
func (o *Observer) Flush(ctx context.Context) []string {
	if o == nil {
		return nil
	}
	o.wait(ctx)
	o.mu.Lock()
	defer o.mu.Unlock()
	w := o.warnings
	o.warnings = nil
	return w
}

// wait returns when the queued hooks ran or ctx ended.
func (o *Observer) wait(ctx context.Context) {
	o.mu.Lock()
	last := o.last
	o.mu.Unlock()
	select {
	case <-last:
	case <-ctx.Done():
	}
}

// Close stops the hooks still running; the rest of the queue is dropped.
func (o *Observer) Close() {
	if o != nil {
		o.cancel()
	}
}

func (o *Observer) note(ev adapters.Event) {
	switch {
	case ev.Type == adapters.EventSessionInfo && ev.Session != nil:
		o.mu.Lock()
		o.base.Session = cmp.Or(o.base.Session, ev.Session.AgentSessionID)
		o.mu.Unlock()
	case (ev.Type == adapters.EventToolCall || ev.Type == adapters.EventToolUpdate) && ev.Tool != nil:
		o.noteTool(ev.Type == adapters.EventToolCall, ev.Tool)
	}
}

// noteTool keeps what a call's events say and queues its hooks.
func (o *Observer) noteTool(start bool, t *adapters.ToolCall) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c, seen := o.calls[t.ID]
	if !seen {
		c = &Input{ToolCallID: t.ID}
		o.calls[t.ID] = c
	}
	c.Tool = cmp.Or(t.Name, c.Tool, t.Title)
	c.Kind = cmp.Or(string(t.Kind), c.Kind)
	if len(t.RawInput) > 0 {
		c.Input = t.RawInput
	}
	if start && !seen {
		c.Event = PreToolUse
		o.enqueue(*c)
	}
	if (t.Status == adapters.StatusCompleted || t.Status == adapters.StatusFailed) && c.Event != PostToolUse {
		c.Event = PostToolUse
		post := *c
		post.Status, post.Output = string(t.Status), outputOf(t)
		o.enqueue(post)
	}
}

// enqueue queues in's hooks to run after those queued before; o.mu must
// be held.
func (o *Observer) enqueue(in Input) {
	if o.ctx.Err() != nil || !o.r.Has(in.Event) {
		return
	}
	prev, done := o.last, make(chan struct{})
	o.last = done
	go func() {
		defer close(done)
		<-prev
		if o.ctx.Err() == nil { // once Close was called it runs nothing
			o.run(o.ctx, in)
		}
	}()
}

// run runs one event's hooks, with the session as it is known now, and
// keeps their warnings.
func (o *Observer) run(ctx context.Context, in Input) Outcome {
	o.mu.Lock()
	in.Session, in.Cwd, in.Agent = o.base.Session, o.base.Cwd, o.base.Agent
	o.mu.Unlock()
	out := o.r.Run(ctx, in)
	warnings := out.Warnings
	if out.Decision == Deny && in.Event == PreToolUse && len(warnings) == 0 {
		warnings = append(warnings, fmt.Sprintf("a PreToolUse hook would deny %s (%s), but hub cannot stop %s's tools: observed only",
			in.Tool, out.Reason, cmp.Or(in.Agent, "this agent")))
	}
	o.mu.Lock()
	o.warnings = append(o.warnings, warnings...)
	o.mu.Unlock()
	return out
}

// outputOf is a finished call's output: its text content, else its raw
// output.
func outputOf(t *adapters.ToolCall) string {
	var texts []string
	for _, c := range t.Content {
		if c.Type == adapters.ToolContentText && c.Text != "" {
			texts = append(texts, c.Text)
		}
	}
	s := strings.Join(texts, "\n")
	// A raw output that is not a JSON string is kept as it is.
	if s == "" && len(t.RawOutput) > 0 && json.Unmarshal(t.RawOutput, &s) != nil {
		s = string(t.RawOutput)
	}
	return s
}
