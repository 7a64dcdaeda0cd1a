package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/transcript"
)

// compactAt is the share of the context window that triggers compaction.
const compactAt = 0.75

// tokens estimates four bytes per token.
func (m *message) tokens() int {
	n := len(m.text())
	parts, _ := m.Content.([]part)
	for _, p := range parts {
		if p.ImageURL != nil {
			n += 4000 // images cost roughly a fixed ~1k tokens
		}
	}
	for _, tc := range m.ToolCalls {
		n += len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	return n/4 + 4
}

// maybeCompact replaces older history with a model-written summary when the
// estimate passes the budget; the system prompt and recent turns stay.
func (s *Session) maybeCompact(ctx context.Context, out *adapters.Turn) {
	budget, used := int(float64(s.profile().window())*compactAt), toolDefsTokens()
	for i := range s.history {
		used += s.history[i].tokens()
	}
	if used <= budget {
		return
	}
	cut := s.compactionCut(budget / 2)
	if cut <= 1 {
		return
	}
	s.compacts++
	id := "openai-compaction-" + strconv.Itoa(s.compacts)
	out.Emit(adapters.Event{Type: adapters.EventCompaction, Compaction: &adapters.Compaction{ID: id, Status: "in_progress"}})
	summary, err := s.summarize(ctx, s.history[1:cut], out)
	end := &adapters.Compaction{ID: id, Status: "completed", Summary: summary}
	if err != nil {
		// Going on with the full history would let it grow past the window
		// with every prompt; the dropped messages stay in the transcript.
		s.log.Warn().Err(err).Int("dropped", cut-1).Msg("compaction failed; dropping the oldest messages")
		summary = "(Not summarized: summarizing failed, so the older messages were dropped to fit the context window.)"
		end = &adapters.Compaction{ID: id, Status: "failed",
			Error: fmt.Sprintf("%s; dropped the %d oldest messages instead", adapters.FirstLine(err.Error()), cut-1)}
	}
	// The system prompt stays; the messages before cut give way to the summary.
	s.history = append([]message{s.history[0], summaryMessage(summary)}, s.history[cut:]...)
	s.tr.Write(transcript.Record{Type: transcript.TypeCompaction, Summary: summary, Kept: len(s.history) - 2})
	out.Emit(adapters.Event{Type: adapters.EventCompaction, Compaction: end})
}

// compactionCut picks the first message to keep: the oldest user or
// assistant message whose tail fits in keep tokens, but never later than
// the last of them (so the current step stays intact).
func (s *Session) compactionCut(keep int) int {
	cut, tail := 0, 0
	for i := len(s.history) - 1; i > 0; i-- {
		tail += s.history[i].tokens()
		if r := s.history[i].Role; r == "user" || r == "assistant" {
			if cut > 0 && tail > keep {
				break
			}
			cut = i
		}
	}
	return cut
}

func (s *Session) summarize(ctx context.Context, msgs []message, out *adapters.Turn) (string, error) {
	req := s.request([]message{
		{Role: "system", Content: strings.TrimSpace(compactText)},
		{Role: "user", Content: conversationText(msgs)},
	}, false)
	r, err := s.client.complete(ctx, req, func(adapters.Event) {})
	if err != nil {
		return "", fmt.Errorf("summarize history: %w", err)
	}
	if r.Usage != nil { // its tokens count, but its context is not the conversation's
		ev := usageEvent(r.Usage, 0)
		ev.Usage.ContextUsed = 0
		out.Emit(ev)
	}
	if strings.TrimSpace(r.Text) == "" {
		return "", fmt.Errorf("summarize history: empty summary")
	}
	return r.Text, nil
}

func (m *message) text() string {
	if parts, ok := m.Content.([]part); ok {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	s, _ := m.Content.(string)
	return s
}

func conversationText(msgs []message) string {
	var b strings.Builder
	for _, m := range msgs {
		text := m.text()
		switch m.Role {
		case "tool":
			fmt.Fprintf(&b, "[tool result]\n%s\n\n", clip(text, 2000))
		default:
			if text != "" {
				fmt.Fprintf(&b, "[%s]\n%s\n\n", m.Role, text)
			}
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "[%s called %s] %s\n\n", m.Role, tc.Function.Name, clip(tc.Function.Arguments, 1000))
			}
		}
	}
	return b.String()
}

var toolDefsTokens = sync.OnceValue(func() int {
	b, _ := json.Marshal(builtinDefs())
	return len(b) / 4
})
