package acpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
)

func (s *Session) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	select {
	case <-s.closed:
		return "", fmt.Errorf("%s: %w", s.a.cfg.Name, adapters.ErrClosed)
	default:
	}
	if s.proc.Exited() {
		return "", adapters.CrashError(s.proc, s.a.cfg.Name, adapters.ErrClosed)
	}
	s.mu.Lock()
	t, err := s.turn.Start()
	if err != nil {
		s.mu.Unlock()
		return "", fmt.Errorf("%s: %w", s.a.cfg.Name, err)
	}
	pending := s.pending
	s.pending = nil
	if s.opts.Instructions != "" { // ahead of the first prompt
		prompt = append([]adapters.Content{{Type: adapters.ContentText, Text: s.opts.Instructions}}, prompt...)
		s.opts.Instructions = ""
	}
	s.mu.Unlock()
	_ = s.dec.EndTurn(nil) // an "[Error]" chunk held since a session/load replay is no part of this turn
	t.Emit(pending...)
	params := schema.PromptRequest{SessionID: s.id, Prompt: toBlocks(prompt, s.caps)}
	s.proc.Trace(ctx)
	go s.run(t, params)
	return t.Run(ctx, emit, adapters.RulesOf(s.opts, s.interrupt, s.raw))
}

// run sends the prompt; the turn ends when the agent answers it (a stuck
// agent is the front end's to close).
func (s *Session) run(t *adapters.Turn, params schema.PromptRequest) {
	var res json.RawMessage
	err := s.call(context.Background(), "session/prompt", params, &res)
	s.turn.End(t, s.dec.EndTurn(s.endEvents(t, res, err))...)
}

func (s *Session) endEvents(t *adapters.Turn, res json.RawMessage, err error) []adapters.Event {
	cancelled := t.IsCancelled()
	var re *jsonrpc.Error
	switch {
	case err == nil:
		evs := s.dec.ResultEvents(res)
		if cancelled {
			evs[len(evs)-1].StopReason = adapters.StopCancelled
		}
		return evs
	case cancelled && (errors.As(err, &re) || errors.Is(err, context.Canceled)):
		return []adapters.Event{{Type: adapters.EventDone, StopReason: adapters.StopCancelled}}
	case errors.As(err, &re):
		return adapters.Failure(ACPError(re.Code, re.Message, re.Data))
	}
	return adapters.CrashEnd(s.proc, s.a.cfg.Name)
}

func (s *Session) Exit() *adapters.ErrorInfo {
	return adapters.Exit(s.proc, s.a.cfg.Name, s.conn.Done())
}

func (s *Session) interrupt() {
	if t := s.turn.Current(); t != nil && t.Cancel() {
		_ = s.conn.Notify("session/cancel", schema.SessionIDRequest{SessionID: s.id})
	}
}
