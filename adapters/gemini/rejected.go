package gemini

import (
	"context"
	"sync"

	"github.com/hubdev/hub/adapters"
)

// gemini 0.61 answers a rejected (or cancelled) permission request by
// telling only the model: runTool returns the error without a
// tool_call_update, so the client's tool call would stay "pending" for
// good. endRejectedTools ends such a call as failed itself, as soon as the
// turn moves on or ends without gemini having done so.

// endRejectedTools wraps s; a Configurable session stays Configurable.
func endRejectedTools(s adapters.Session) adapters.Session {
	r := rejectSession{s}
	if c, ok := s.(adapters.Configurable); ok {
		return rejectConfigurable{r, c}
	}
	return r
}

type rejectSession struct{ adapters.Session }

type rejectConfigurable struct {
	rejectSession
	adapters.Configurable
}

// Prompt implements adapters.Session.
func (s rejectSession) Prompt(ctx context.Context, prompt []adapters.Content) (<-chan adapters.Event, error) {
	in, err := s.Session.Prompt(ctx, prompt)
	if err != nil {
		return nil, err
	}
	out := make(chan adapters.Event)
	go forwardTurn(in, out)
	return out, nil
}

// forwardTurn copies one turn's events, ending rejected tool calls.
func forwardTurn(in <-chan adapters.Event, out chan<- adapters.Event) {
	defer close(out)
	var r rejectedTools
	over := make(chan struct{})
	defer close(over)
	for ev := range in {
		if ev.Type == adapters.EventPermission && ev.Permission != nil {
			ev.Permission = r.watch(ev.Permission, over)
		}
		for _, end := range r.end(ev) {
			out <- end
		}
		out <- ev
	}
}

// rejectedTools holds the tool calls the client refused that gemini has
// not ended yet.
type rejectedTools struct {
	mu    sync.Mutex
	tools []adapters.ToolCall
}

// watch returns a copy of p for the consumer and relays its decision to p,
// remembering the tool first when the decision keeps it from running, so
// that everything gemini sends in reply comes after the note.
func (r *rejectedTools) watch(p *adapters.PermissionRequest, over <-chan struct{}) *adapters.PermissionRequest {
	proxy := adapters.NewPermissionRequest(p.Tool, p.Options)
	go func() {
		select {
		case d := <-proxy.Decision():
			if !d.Allowed() && p.Tool.ID != "" {
				r.mu.Lock()
				r.tools = append(r.tools, p.Tool)
				r.mu.Unlock()
			}
			p.Respond(d)
		case <-over:
		}
	}()
	return proxy
}

// end returns the failed updates to send before ev: every refused call ev
// is not about. An update that ends a call itself settles it.
func (r *rejectedTools) end(ev adapters.Event) []adapters.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.tools) == 0 {
		return nil
	}
	var about string
	if (ev.Type == adapters.EventToolCall || ev.Type == adapters.EventToolUpdate) && ev.Tool != nil {
		about = ev.Tool.ID
	}
	var out []adapters.Event
	var keep []adapters.ToolCall
	for _, t := range r.tools {
		switch {
		case t.ID != about:
			out = append(out, adapters.Event{Type: adapters.EventToolUpdate,
				Tool: &adapters.ToolCall{ID: t.ID, Title: t.Title, Kind: t.Kind, Status: adapters.StatusFailed}})
		case ev.Tool.Status != adapters.StatusCompleted && ev.Tool.Status != adapters.StatusFailed:
			keep = append(keep, t)
		}
	}
	r.tools = keep
	return out
}
