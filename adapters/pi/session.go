package pi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
)

var (
	_ adapters.Session      = (*session)(nil)
	_ adapters.Configurable = (*session)(nil)
)

// piState is the part of get_state's data hub uses.
type piState struct {
	SessionID     string   `json:"sessionId"`
	ThinkingLevel string   `json:"thinkingLevel"`
	Model         *piModel `json:"model"`
}

// piModel is a model as get_state and get_available_models describe it.
type piModel struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Provider      string `json:"provider"`
	ContextWindow int64  `json:"contextWindow"`
	Reasoning     bool   `json:"reasoning"`
}

// ref is the model's name in hub, "provider/id"; "" for none.
func (m *piModel) ref() string {
	if m == nil {
		return ""
	}
	return m.Provider + "/" + m.ID
}

// session is one `pi --mode rpc` process. The reader goroutine owns the
// decoder and routes events to the running turn.
type session struct {
	log     zerolog.Logger
	proc    *proc.Process
	dec     *PiDecoder
	unknown *adapters.UnknownRecords
	replies adapters.Replies[PiResponse]
	writeMu sync.Mutex
	done    chan struct{} // closed when the reader has seen the process exit
	rules   adapters.TurnRules
	turn    adapters.Running

	mu        sync.Mutex
	promptID  string // the running turn's prompt command
	closed    bool
	state     piState
	announced bool
	// notice starts the first turn: the project files pi runs without.
	notice string
}

func newSession(log zerolog.Logger, cwd string, p *proc.Process, unknown *adapters.UnknownRecords) *session {
	s := &session{log: log.With().Str("agent", Name).Logger(), proc: p, unknown: unknown,
		dec: NewPiDecoder(cwd), done: make(chan struct{})}
	s.dec.OnUIRequest = s.answerDialog
	s.dec.OnResponse = s.onResponse
	go s.read()
	return s
}

func (s *session) ID() string { s.mu.Lock(); defer s.mu.Unlock(); return s.state.SessionID }

func (s *session) read() {
	defer close(s.done)
	_ = adapters.ReadLines(s.proc.Stdout, func(line []byte) {
		for _, ev := range s.dec.Decode(line) {
			s.route(ev)
		}
		if s.dec.PendingEnd() {
			go s.probeRetry()
		}
	})
	for _, ev := range s.dec.Flush() {
		s.route(ev)
	}
	s.onExit()
}

// probeRetry asks pi for its state after a failed run, so the answer
// releases its held end unless pi retries it (PendingEnd).
func (s *session) probeRetry() {
	if err := s.write(map[string]any{"id": s.replies.NewID("hub-retry-probe-"), "type": "get_state"}); err != nil {
		s.log.Debug().Err(err).Msg("probe pi after a failed run")
	}
}

func (s *session) route(ev adapters.Event) {
	if PiUnknownRecord(ev) != "" {
		s.unknown.Note(ev.Source)
	}
	s.mu.Lock()
	if s.state.Model != nil && ev.Type == adapters.EventUsage {
		ev.Usage.ContextSize = cmp.Or(ev.Usage.ContextSize, s.state.Model.ContextWindow)
	}
	s.mu.Unlock()
	if !s.turn.Emit(ev) {
		s.log.Debug().Str("event", string(ev.Type)).Str("source", ev.Source).Msg("pi event outside a turn dropped")
	}
}

func (s *session) onResponse(r PiResponse) bool {
	if s.replies.Answer(r.ID, r, nil) {
		return true
	}
	s.mu.Lock()
	t, prompt := s.turn.Current(), s.promptID
	s.mu.Unlock()
	switch {
	case t != nil && r.ID == prompt:
		if !r.Success {
			code := PiErrorCode(r.Error)
			if code == adapters.CodeProvider {
				code = adapters.CodeProtocol
			}
			s.turn.End(t, adapters.Failure(&adapters.ErrorInfo{Message: "pi rejected the prompt: " + r.Error, Code: code, Fatal: true})...)
		}
		return true
	case strings.HasPrefix(r.ID, "hub-"):
		if !r.Success {
			s.log.Warn().Str("command", r.Command).Str("error", r.Error).Msg("pi rejected a command")
		}
		return true
	}
	return false
}

// onExit ends the session once pi closed its output (CrashEnd stops a pi
// that still runs).
func (s *session) onExit() {
	end := adapters.CrashEnd(s.proc, Name)
	s.mu.Lock()
	closing := s.closed
	s.mu.Unlock()
	s.replies.Close(adapters.ErrClosed)
	s.turn.Exited(closing, end...)
}

func (s *session) write(cmd map[string]any) error {
	b, _ := json.Marshal(cmd) // strings, bools and lists of them
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := adapters.WriteLine(s.proc, "pi", b); err != nil {
		return fmt.Errorf("send %v to pi: %w", cmd["type"], err)
	}
	return nil
}

// call sends cmd and reads its response's data into result (when not nil).
func (s *session) call(ctx context.Context, cmd map[string]any, result any) error {
	typ := fmt.Sprint(cmd["type"])
	id := s.replies.NewID("hub-" + typ + "-")
	cmd["id"] = id
	r, err := s.replies.Call(ctx, id, func() error { return s.write(cmd) })
	switch {
	case err != nil && errors.Is(err, ctx.Err()):
		return adapters.WithStderr(s.proc, fmt.Errorf("waiting for pi %s: %w", typ, err))
	case err != nil: // the write failed, or pi exited first
		return adapters.Gone(ctx, s.proc, Name, typ, err)
	case !r.Success:
		return fmt.Errorf("pi rejected the command: %s: %s", typ, r.Error)
	case result != nil:
		if err := adapters.Unmarshal(r.Data, result); err != nil {
			return fmt.Errorf("decode pi %s: %w", typ, err)
		}
	}
	return nil
}

func (s *session) loadState(ctx context.Context) error {
	var st piState
	if err := s.call(ctx, map[string]any{"type": "get_state"}, &st); err != nil {
		return adapters.WithStderr(s.proc, err)
	}
	s.mu.Lock()
	s.state = st
	s.mu.Unlock()
	return nil
}

// answerDialog declines extension dialogs (select, confirm, input, editor),
// which would otherwise block pi: hub has no UI to show them.
func (s *session) answerDialog(id, method string) {
	switch method {
	case "select", "confirm", "input", "editor":
		if id == "" {
			return
		}
		s.log.Warn().Str("method", method).Msg("declining a pi extension dialog")
		if err := s.write(map[string]any{"type": "extension_ui_response", "id": id, "cancelled": true}); err != nil {
			s.log.Warn().Err(err).Msg("answer pi extension dialog")
		}
	}
}
