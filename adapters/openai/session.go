package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai/tools"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/transcript"
)

// doomLoopRepeats identical consecutive calls trigger a question.
const doomLoopRepeats = 3

// Session is one native-loop conversation. History lives in memory and
// in the session's transcript, from which a later process resumes it.
type Session struct {
	id       string
	cwd      string
	env      *tools.Env
	log      zerolog.Logger
	client   *client
	schema   json.RawMessage // the final answer's response_format; nil: free text
	rules    adapters.TurnRules
	compacts int // compactions so far, for their IDs

	mu      sync.Mutex
	closed  bool
	cancel  context.CancelFunc // the running turn's; nil between turns
	history []message
	turns   int
	// steered is input that arrived during the turn, for the next request;
	// steerable says a turn runs that will still read it.
	steered   []message
	steerable bool

	lastCall    string
	repeats     int
	mcp         *mcpTools
	delegate    adapters.DelegateFunc // nil: delegate_agent not offered
	delegateDef []tools.Definition
	tr          *transcript.Writer // a zero Writer when off
	trFailed    bool               // a failed write was reported
	hooks       *hooks.Runner      // nil: none
	// held (under mu) waits for the next turn: warnings of MCP servers that
	// did not start and of hooks run outside a turn (SessionStart).
	held []adapters.Event
	// tools are the front end's (a persona's; nil: all), narrowed by mode
	// (under mu).
	tools *adapters.ToolFilter
	mode  string
}

var (
	_ adapters.Session      = (*Session)(nil)
	_ adapters.Configurable = (*Session)(nil)
)

// ID is also the name of the session's transcript.
func (s *Session) ID() string { return s.id }

func (s *Session) SetModel(_ context.Context, model string) error {
	s.client.mu.Lock()
	s.client.profile.Model = model
	s.client.mu.Unlock()
	return nil
}

func (s *Session) interrupt() {
	s.mu.Lock()
	c := s.cancel
	s.mu.Unlock()
	if c != nil {
		c()
	}
}

// Close cancels any turn; the session cannot be used afterwards.
func (s *Session) Close() error {
	s.mu.Lock()
	s.closed = true
	busy := s.cancel != nil
	s.mu.Unlock()
	s.interrupt()
	if !busy {
		s.tr.Close() // else the turn closes it once its last record is written
	}
	s.mcp.close()
	return nil
}

func (s *Session) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", adapters.ErrClosed
	}
	if s.cancel != nil {
		s.mu.Unlock()
		return "", adapters.ErrBusy
	}
	tctx, cancel := context.WithCancel(ctx)
	s.cancel, s.steerable = cancel, true
	s.turns++
	s.mu.Unlock()
	t := adapters.NewTurn()
	go func() {
		stop := s.run(tctx, prompt, t)
		s.mu.Lock()
		s.add(s.steered...) // input no request read joins the history, as the editor shows it: the next turn reads it
		s.steerable, s.steered = false, nil
		s.mu.Unlock()
		s.hook(context.WithoutCancel(tctx), hooks.Input{Event: hooks.Stop, StopReason: string(stop)}, t) // cancelled or not
		s.endTranscriptTurn(stop)
		s.mu.Lock()
		s.cancel = nil
		closed := s.closed
		s.mu.Unlock()
		if closed {
			s.tr.Close()
		}
		cancel()
		t.Close(adapters.Event{Type: adapters.EventDone, StopReason: stop})
	}()
	return t.Run(ctx, emit, s.rules)
}

// Steer implements adapters.Steerer: the input joins the history before
// the turn's next model request, and a turn whose model had finished asks
// it once more. Its UserPromptSubmit hooks ran before, in the front end,
// as a prompt's run in conversation.RunTurn.
func (s *Session) Steer(_ context.Context, prompt []adapters.Content) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.steerable {
		return adapters.ErrNoTurn
	}
	s.steered = append(s.steered, userMessage(prompt, s.profile().Vision))
	return nil
}

// takeSteered moves steered input into the history; false when none. A
// final call that finds none closes the turn to steering, in the same
// step, so no input is accepted that the turn would not read.
func (s *Session) takeSteered(final bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(s.steered...)
	n := len(s.steered)
	s.steered = nil
	if final && n == 0 {
		s.steerable = false
	}
	return n > 0
}

func (s *Session) run(ctx context.Context, prompt []adapters.Content, out *adapters.Turn) adapters.StopReason {
	s.mu.Lock()
	held := s.held
	s.held = nil
	s.mu.Unlock()
	out.Emit(held...)
	p := s.profile()
	// The model asked, by which the turn's usage is priced.
	out.Emit(adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: s.id, Model: p.Model}})
	s.add(userMessage(prompt, p.Vision))
	maxReq := cmp.Or(max(p.MaxTurnRequests, 0), DefaultMaxTurnRequests)
	for n := 0; ; n++ {
		if ctx.Err() != nil {
			return adapters.StopCancelled
		}
		if n >= maxReq {
			return adapters.StopMaxTurnRequests
		}
		s.maybeCompact(ctx, out)
		msgID := fmt.Sprintf("%s-%d-%d", s.id, s.turns, n)
		r, err := s.client.complete(ctx, s.request(s.noted(s.history), true), func(e adapters.Event) {
			e.MessageID = msgID
			out.Emit(e)
		})
		if err != nil {
			if ctx.Err() != nil {
				return adapters.StopCancelled
			}
			out.Emit(errorEvent(err))
			return adapters.StopEndTurn
		}
		if r.Usage != nil {
			out.Emit(usageEvent(r.Usage, p.window()))
		}
		s.add(assistantMessage(r))
		if len(r.ToolCalls) == 0 {
			if s.takeSteered(true) {
				continue
			}
			s.emitPlan(r.Text, out)
			return finishStop(r.Finish)
		}
		for i, tc := range r.ToolCalls {
			if ctx.Err() != nil {
				for _, tc := range r.ToolCalls[i:] { // answered, so the history stays valid
					s.add(message{Role: "tool", ToolCallID: tc.ID, Content: "cancelled by the user before it ran"})
				}
				return adapters.StopCancelled
			}
			s.add(message{Role: "tool", ToolCallID: tc.ID, Content: s.runTool(ctx, tc, out)})
		}
		if stop := finishStop(r.Finish); stop != adapters.StopEndTurn {
			return stop // the reply was filtered or cut: its calls are answered, the turn ends
		}
		s.takeSteered(false)
	}
}

// tell holds ev for the next turn when out is nil.
func (s *Session) tell(out *adapters.Turn, ev adapters.Event) {
	if out != nil {
		out.Emit(ev)
		return
	}
	s.mu.Lock()
	s.held = append(s.held, ev)
	s.mu.Unlock()
}

var finishStops = map[string]adapters.StopReason{"content_filter": adapters.StopRefusal, "length": adapters.StopMaxTokens}

func finishStop(finish string) adapters.StopReason {
	return cmp.Or(finishStops[finish], adapters.StopEndTurn)
}

func (s *Session) profile() Profile {
	s.client.mu.Lock()
	defer s.client.mu.Unlock()
	return s.client.profile
}

func (s *Session) request(history []message, withTools bool) *chatRequest {
	p := s.profile()
	req := &chatRequest{Model: p.Model, Messages: history}
	if withTools {
		if len(s.schema) > 0 {
			req.ResponseFormat = &responseFormat{Type: "json_schema",
				JSONSchema: jsonSchema{Name: "output", Schema: s.schema, Strict: true}}
		}
		for _, d := range slices.Concat(builtinDefs(), s.delegateDef, s.mcp.defs) {
			if s.permits(d.Name) {
				req.Tools = append(req.Tools, toolDef{Type: "function", Function: d})
			}
		}
		if !p.OmitToolChoice {
			req.ToolChoice = "auto"
		}
	}
	if !p.OmitTemperature && p.Temperature != nil {
		req.Temperature = p.Temperature
	}
	if p.MaxTokensField == "max_completion_tokens" {
		req.MaxCompletionTokens = max(p.MaxTokens, 0)
	} else {
		req.MaxTokens = max(p.MaxTokens, 0)
	}
	return req
}

var builtinDefs = sync.OnceValue(tools.Definitions)

func errorEvent(err error) adapters.Event {
	status := statusOf(err)
	code := adapters.StatusCode(status)
	switch {
	case errors.Is(err, ErrUnreachable):
		code = adapters.CodeNetwork
	case errors.Is(err, ErrMalformed), errors.Is(err, ErrIdle):
		code = adapters.CodeProtocol
	}
	return adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: err.Error(), Code: code, Fatal: true, Status: status}}
}

func usageEvent(u *usage, window int) adapters.Event {
	return adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens,
		CacheReadTokens: u.PromptTokensDetails.CachedTokens, ThoughtTokens: u.CompletionTokensDetails.ReasoningTokens,
		ContextUsed: u.PromptTokens + u.CompletionTokens, ContextSize: int64(window), PerRequest: true}}
}

func userMessage(prompt []adapters.Content, vision bool) message {
	var parts []part
	hasImage := false
	for _, c := range prompt {
		switch c.Type {
		case adapters.ContentText:
			parts = append(parts, part{Type: "text", Text: c.Text})
		case adapters.ContentImage:
			if vision && c.Data != "" {
				hasImage = true
				parts = append(parts, part{Type: "image_url", ImageURL: &imageURL{URL: "data:" + c.MimeType + ";base64," + c.Data}})
			} else {
				parts = append(parts, part{Type: "text", Text: "[an image was attached but this model does not accept images]"})
			}
		case adapters.ContentResourceLink, adapters.ContentResource:
			parts = append(parts, part{Type: "text", Text: adapters.PromptText([]adapters.Content{c})})
		case adapters.ContentAudio:
			parts = append(parts, part{Type: "text", Text: "[audio attachment not supported]"})
		}
	}
	if !hasImage {
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.Text
		}
		return message{Role: "user", Content: strings.Join(texts, "\n")}
	}
	return message{Role: "user", Content: parts}
}

func assistantMessage(r *reply) message {
	m := message{Role: "assistant", ToolCalls: append([]toolCall(nil), r.ToolCalls...)}
	if r.Text != "" || len(r.ToolCalls) == 0 {
		m.Content = r.Text
	}
	for i := range m.ToolCalls {
		if !json.Valid([]byte(m.ToolCalls[i].Function.Arguments)) {
			// Keep history acceptable to strict servers; the tool result explains.
			m.ToolCalls[i].Function.Arguments = "{}"
		}
	}
	return m
}
