package gemini

import (
	"context"
	"slices"

	"github.com/hubdev/hub/adapters"
)

// rejecter ends the refused tool calls gemini has not ended yet: gemini 0.61 answers a
// rejected (or cancelled) permission request by telling only the model, so the client's
// tool call would stay "pending" for good. It sends the failed update before the next
// event (or question) that is not about that call. Its methods run on the turn's one
// goroutine.
type rejecter struct {
	emit  func(adapters.Event) // the running turn's
	tools []adapters.ToolCall  // refused and not ended
	ended []string             // ended here in this turn
}

// permission wraps ask, noting the tools it keeps from running.
func (r *rejecter) permission(ask adapters.PermissionFunc) adapters.PermissionFunc {
	if ask == nil {
		return nil
	}
	return func(ctx context.Context, p *adapters.PermissionRequest) adapters.PermissionDecision {
		r.endBefore(adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: p.Tool.ID}})
		d := ask(ctx, p)
		if !d.Allowed() && p.Tool.ID != "" {
			r.tools = append(r.tools, p.Tool)
		}
		return d
	}
}

// wrap returns s whose turns end refused tools and pass the retries rl (may be nil) logs on.
func (r *rejecter) wrap(s adapters.Session, rl *retryLog) adapters.Session {
	return rejectSession{adapters.Forward{Session: s}, r, rl}
}

type rejectSession struct {
	adapters.Forward
	r   *rejecter
	log *retryLog
}

// Prompt leaves a refusal still open when the turn ends to the turn itself.
func (s rejectSession) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	r := s.r
	r.emit, r.tools, r.ended = emit, nil, nil
	if n, ok := s.Session.(interface{ Note(adapters.Event) }); ok && s.log != nil {
		defer s.log.during(n.Note)()
	}
	return s.Session.Prompt(ctx, prompt, func(ev adapters.Event) {
		if ev.Type == adapters.EventToolUpdate && ev.Tool != nil && ev.Tool.Status == adapters.StatusFailed && slices.Contains(r.ended, ev.Tool.ID) {
			return // the turn ending a call this already ended
		}
		r.endBefore(ev)
		emit(ev)
	})
}

// Close deletes the debug log hub made too.
func (s rejectSession) Close() error {
	err := s.Session.Close()
	s.log.remove()
	return err
}

// endBefore sends the failed updates due before ev: every refused call ev is not about.
// An update that ends a call itself settles it.
func (r *rejecter) endBefore(ev adapters.Event) {
	var about string
	if (ev.Type == adapters.EventToolCall || ev.Type == adapters.EventToolUpdate) && ev.Tool != nil {
		about = ev.Tool.ID
	}
	var keep []adapters.ToolCall
	for _, t := range r.tools {
		switch {
		case t.ID != about:
			r.ended = append(r.ended, t.ID)
			r.emit(adapters.Event{Type: adapters.EventToolUpdate,
				Tool: &adapters.ToolCall{ID: t.ID, Title: t.Title, Kind: t.Kind, Status: adapters.StatusFailed}})
		case ev.Tool.Status != adapters.StatusCompleted && ev.Tool.Status != adapters.StatusFailed:
			keep = append(keep, t)
		}
	}
	r.tools = keep
}
