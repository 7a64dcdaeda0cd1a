package openai

import (
	"encoding/json"
	"fmt"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/transcript"
)

func (s *Session) add(msgs ...message) {
	s.history = append(s.history, msgs...)
	for i := range msgs {
		if data, err := json.Marshal(&msgs[i]); err == nil {
			s.tr.Write(transcript.Record{Type: transcript.TypeMessage, Message: data})
		}
	}
}

// endTranscriptTurn reports a transcript that cannot be written once, and
// the session goes on.
func (s *Session) endTranscriptTurn(stop adapters.StopReason) {
	s.tr.Write(transcript.Record{Type: transcript.TypeTurnEnd, Stop: string(stop)})
	if err := s.tr.Sync(); err != nil && !s.trFailed {
		s.trFailed = true
		s.log.Warn().Err(err).Msg("native session transcript not saved; it cannot be resumed")
	}
}

func summaryMessage(summary string) message {
	return message{Role: "user", Content: "Summary of the earlier conversation (older messages were compacted):\n\n" + summary}
}

// openTranscript appends on a resume; it returns a zero Writer, which writes
// nothing, when transcripts are off or the file cannot be opened.
func (a *Adapter) openTranscript(meta transcript.Meta) *transcript.Writer {
	if a.opts.TranscriptDir == "" {
		return &transcript.Writer{}
	}
	w, err := transcript.Open(a.opts.TranscriptDir, meta)
	if err != nil {
		a.opts.Logger.Warn().Err(err).Msg("native session transcript off; the session cannot be resumed")
		return &transcript.Writer{}
	}
	return w
}

// loadHistory rebuilds session id's conversation (without the system
// prompt) from its transcript; none for id "".
func (a *Adapter) loadHistory(id string) ([]message, error) {
	if id == "" {
		return nil, nil
	}
	if a.opts.TranscriptDir == "" {
		return nil, fmt.Errorf("resume %s: native transcripts are off: %w", id, adapters.ErrUnsupported)
	}
	recs, err := transcript.Read(a.opts.TranscriptDir, id)
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", id, err)
	}
	var hist []message
	for _, r := range recs {
		switch r.Type {
		case transcript.TypeMessage:
			m, err := decodeMessage(r.Message)
			if err != nil {
				return nil, fmt.Errorf("resume %s: %w", id, err)
			}
			hist = append(hist, m)
		case transcript.TypeCompaction:
			kept := hist[max(0, len(hist)-r.Kept):]
			hist = append([]message{summaryMessage(r.Summary)}, kept...)
		}
	}
	return trimDangling(hist), nil
}

// trimDangling drops an assistant's tool calls that have no results (the
// process died while they ran), which strict servers refuse.
func trimDangling(hist []message) []message {
	i := len(hist) - 1
	for i >= 0 && hist[i].Role == "tool" {
		i--
	}
	if i >= 0 && hist[i].Role == "assistant" && len(hist[i].ToolCalls) > len(hist)-1-i {
		return hist[:i]
	}
	return hist
}

// decodeMessage gives Content the types the loop uses (a string or parts).
func decodeMessage(data json.RawMessage) (message, error) {
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return message{}, fmt.Errorf("transcript message: %w", err)
	}
	if _, text := m.Content.(string); m.Content != nil && !text {
		var parts struct {
			Content []part `json:"content"`
		}
		if json.Unmarshal(data, &parts) != nil {
			return message{}, fmt.Errorf("transcript message: content is neither text nor parts")
		}
		m.Content = parts.Content
	}
	return m, nil
}
