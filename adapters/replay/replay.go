// Package replay is a scripted adapter for tests and demos: it plays a JSONL
// script of events, delays, permission requests and cancellation points,
// or echoes the prompt back when it has no script.
//
// Script steps, one JSON object per line:
//
//	{"event": <adapters.Event>}                emit an event (a done event ends the turn)
//	{"sleep_ms": N}                            cancellable delay
//	{"permission": {"tool": {...}, "options": [...]}, "allowed": [steps], "rejected": [steps]}
//	{"wait_cancel": true}                      block until Cancel
//	{"turn": true}                             end of this prompt's steps
//	{"fail": "message"}                        emit a fatal error (simulated crash)
//
// A turn without a done event ends with end_turn; a cancelled turn ends
// with cancelled. Prompts beyond the script's last turn are echoed.
package replay

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hubdev/hub/adapters"
)

const Name = "replay"

// EnvScript names the env var holding a script path when none is configured.
const EnvScript = "HUB_REPLAY_SCRIPT"

// ErrScript marks an unreadable or malformed script.
var ErrScript = errors.New("invalid replay script")

var (
	_ adapters.Adapter      = (*Adapter)(nil)
	_ adapters.Session      = (*Session)(nil)
	_ adapters.Configurable = (*Session)(nil)
)

// Step is one script line.
type Step struct {
	Event      *adapters.Event `json:"event,omitempty"`
	SleepMS    int             `json:"sleep_ms,omitempty"`
	Permission *PermissionStep `json:"permission,omitempty"`
	// Question asks the user; the answer comes back as a text event ("answers: {...}",
	// "declined", "cannot ask").
	Question   *adapters.QuestionRequest `json:"question,omitempty"`
	Allowed    []Step                    `json:"allowed,omitempty"`
	Rejected   []Step                    `json:"rejected,omitempty"`
	WaitCancel bool                      `json:"wait_cancel,omitempty"`
	Turn       bool                      `json:"turn,omitempty"`
	Fail       string                    `json:"fail,omitempty"`
}

// PermissionStep asks before a tool runs.
type PermissionStep struct {
	Tool    adapters.ToolCall           `json:"tool"`
	Options []adapters.PermissionOption `json:"options,omitempty"`
}

// Adapter plays scripts. Script "" means $HUB_REPLAY_SCRIPT, then echo.
type Adapter struct {
	AgentName string // the registry name; "" means Name
	Script    string
	Caps      adapters.Capabilities

	mu     sync.Mutex
	starts []adapters.SessionOptions
	nextID atomic.Int64
}

// New returns a replay adapter with capabilities useful for tests.
func New(script string) *Adapter {
	return &Adapter{Script: script, Caps: adapters.Capabilities{
		Images: true, Audio: true, EmbeddedContext: true, Resume: true, Permissions: true, MCP: true, MCPHTTP: true,
		Models:       []adapters.Option{{ID: "replay-fast", Name: "Replay fast"}, {ID: "replay-smart", Name: "Replay smart"}},
		Modes:        []adapters.Option{{ID: "default", Name: "Default"}, {ID: "plan", Name: "Plan"}},
		DefaultModel: "replay-fast", DefaultMode: "default",
		Notes: "scripted adapter for tests",
	}}
}

func (a *Adapter) Name() string { return cmp.Or(a.AgentName, Name) }

func (a *Adapter) Capabilities() adapters.Capabilities { return a.Caps }

// Starts returns the options of every Start call so far.
func (a *Adapter) Starts() []adapters.SessionOptions {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.starts)
}

func (a *Adapter) Start(_ context.Context, opts adapters.SessionOptions) (adapters.Session, error) {
	path := cmp.Or(a.Script, os.Getenv(EnvScript))
	var turns [][]Step
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrScript, err)
		}
		if turns, err = Parse(data); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrScript, path, err)
		}
	}
	a.mu.Lock()
	a.starts = append(a.starts, opts)
	a.mu.Unlock()
	id := opts.ResumeID
	if id == "" {
		id = "replay-" + strconv.FormatInt(a.nextID.Add(1), 10)
	}
	return &Session{id: id, turns: turns, opts: opts}, nil
}

// Parse splits a JSONL script into turns.
func Parse(data []byte) ([][]Step, error) {
	var turns [][]Step
	var cur []Step
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var s Step
		if err := json.Unmarshal(line, &s); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if s.Turn {
			turns = append(turns, cur)
			cur = nil
			continue
		}
		cur = append(cur, s)
	}
	if len(cur) > 0 {
		turns = append(turns, cur)
	}
	return turns, nil
}

// Session plays one turn per Prompt.
type Session struct {
	id    string
	opts  adapters.SessionOptions
	turns [][]Step

	mu     sync.Mutex
	next   int
	closed bool
	turn   adapters.Running // started under mu
}

func (s *Session) ID() string { return s.id }

// SetModel and SetMode take any setting live: a script plays the same whatever they are.
func (s *Session) SetModel(context.Context, string) error { return nil }
func (s *Session) SetMode(context.Context, string) error  { return nil }

// Prompt plays the next turn, or echoes the prompt text.
func (s *Session) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	t, err := s.start(prompt)
	if err != nil {
		return "", err
	}
	return t.Run(ctx, emit, adapters.RulesOf(s.opts, s.interrupt, nil))
}

func (s *Session) start(prompt []adapters.Content) (*adapters.Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, adapters.ErrClosed
	}
	t, err := s.turn.Start()
	if err != nil {
		return nil, err
	}
	steps := []Step{{Event: &adapters.Event{Type: adapters.EventText, Text: adapters.PromptText(prompt)}}}
	if s.next < len(s.turns) {
		steps = s.turns[s.next]
	}
	s.next++
	go func() {
		reason := cmp.Or(play(t, steps), adapters.StopEndTurn)
		if t.IsCancelled() {
			reason = adapters.StopCancelled
		}
		s.turn.End(t, adapters.Event{Type: adapters.EventDone, StopReason: reason})
	}()
	return t, nil
}

func (s *Session) interrupt() {
	if t := s.turn.Current(); t != nil {
		t.Cancel()
	}
}

func (s *Session) Close() error {
	s.interrupt()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}

// play plays steps into t, until t is cancelled; it returns a stop reason when a done
// event or a cancellation ends the turn early.
func play(t *adapters.Turn, steps []Step) adapters.StopReason {
	for _, st := range steps {
		if t.IsCancelled() {
			return adapters.StopCancelled
		}
		if r := step(t, st); r != "" {
			return r
		}
	}
	return ""
}

func step(t *adapters.Turn, st Step) adapters.StopReason {
	switch {
	case st.Event != nil:
		if st.Event.Type == adapters.EventDone {
			return st.Event.StopReason
		}
		t.Emit(*st.Event)
	case st.SleepMS > 0:
		select {
		case <-time.After(time.Duration(st.SleepMS) * time.Millisecond):
		case <-t.Cancelled():
			return adapters.StopCancelled
		}
	case st.Permission != nil:
		return permission(t, st)
	case st.Question != nil:
		return question(t, st.Question)
	case st.WaitCancel:
		<-t.Cancelled()
		return adapters.StopCancelled
	case st.Fail != "":
		t.Emit(adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: st.Fail, Code: adapters.CodeCrash, Fatal: true}})
		return adapters.StopEndTurn
	}
	return ""
}

func question(t *adapters.Turn, q *adapters.QuestionRequest) adapters.StopReason {
	req := adapters.NewQuestionRequest(q.ToolID, q.Questions)
	t.Emit(adapters.Event{Type: adapters.EventQuestion, Question: req})
	var a adapters.Answers
	select {
	case a = <-req.Answer():
	case <-t.Cancelled():
		return adapters.StopCancelled
	}
	text := "declined"
	switch {
	case a.Cancelled:
		return adapters.StopCancelled
	case a.Err != nil:
		text = "cannot ask"
	case !a.Declined:
		b, _ := json.Marshal(a.Values)
		text = "answers: " + string(b)
	}
	t.Emit(adapters.Event{Type: adapters.EventText, Text: text})
	return ""
}

func permission(t *adapters.Turn, st Step) adapters.StopReason {
	d := t.Ask(context.Background(), adapters.NewPermissionRequest(st.Permission.Tool, st.Permission.Options))
	if d.Cancelled {
		return adapters.StopCancelled
	}
	if d.Allowed() {
		return play(t, st.Allowed)
	}
	return play(t, st.Rejected)
}
