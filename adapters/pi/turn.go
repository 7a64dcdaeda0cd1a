package pi

import (
	"context"
	"fmt"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// Prompt implements adapters.Session: one `prompt` command per turn.
func (s *session) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	id := s.replies.NewID("hub-prompt-")
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", fmt.Errorf("pi session: %w", adapters.ErrClosed)
	}
	t, err := s.turn.StartOn(s.proc, Name, adapters.ErrClosed)
	if err != nil {
		s.mu.Unlock()
		return "", err
	}
	if !s.announced && s.state.SessionID != "" {
		s.announced = true
		t.Emit(adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{
			AgentSessionID: s.state.SessionID, Model: s.state.Model.ref()}})
	}
	if s.notice != "" {
		t.Emit(adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: s.notice, Code: adapters.CodeWarning}})
		s.notice = ""
	}
	s.promptID = id
	s.mu.Unlock()

	if s.write(promptCommand(id, prompt)) != nil { // pi is gone
		s.turn.End(t, adapters.CrashEnd(s.proc, Name)...)
	}
	return t.Run(ctx, emit, s.rules)
}

func promptCommand(id string, prompt []adapters.Content) map[string]any {
	cmd := map[string]any{"id": id, "type": "prompt", "message": adapters.PromptText(prompt)}
	var images []map[string]string
	for _, c := range prompt {
		if c.Type == adapters.ContentImage && c.Data != "" {
			images = append(images, map[string]string{"type": "image", "data": c.Data, "mimeType": c.MimeType})
		}
	}
	if len(images) > 0 {
		cmd["images"] = images
	}
	return cmd
}

// Steer implements adapters.Steerer: pi's `steer` command, which pi
// delivers before its next model request within the running turn.
func (s *session) Steer(ctx context.Context, prompt []adapters.Content) error {
	if s.turn.Current() == nil {
		return adapters.ErrNoTurn
	}
	cmd := promptCommand("", prompt) // call gives it its id
	cmd["type"] = "steer"
	return s.call(ctx, cmd, nil)
}

// interrupt sends `abort`; the turn ends with pi's agent_end.
func (s *session) interrupt() {
	if s.turn.Current() == nil {
		return
	}
	if err := s.write(map[string]any{"id": s.replies.NewID("hub-abort-"), "type": "abort"}); err != nil {
		s.log.Warn().Err(err).Msg("send abort to pi")
	}
}

func (s *session) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	_ = s.proc.Stop()
	<-s.done
	return nil
}

// SetModel implements adapters.Configurable via pi's set_model command.
// model is "provider/id", or an id of the current provider.
func (s *session) SetModel(ctx context.Context, model string) error {
	provider, id, ok := strings.Cut(model, "/")
	if !ok {
		s.mu.Lock()
		if s.state.Model != nil {
			provider = s.state.Model.Provider
		}
		s.mu.Unlock()
		id = model
	}
	if err := s.call(ctx, map[string]any{"type": "set_model", "provider": provider, "modelId": id}, nil); err != nil {
		return fmt.Errorf("switch pi to model %q: %w", model, err)
	}
	return s.loadState(ctx)
}

// SetMode implements adapters.Configurable; pi has no modes.
func (s *session) SetMode(context.Context, string) error {
	return fmt.Errorf("pi modes: %w", adapters.ErrUnsupported)
}
