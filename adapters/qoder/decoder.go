package qoder

import (
	"bytes"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/claude"
)

// QoderDecoder decodes `qodercli --output-format stream-json` lines, a clone of Claude
// Code's, through claude.ClaudeDecoder, with raw sources renamed "qoder:...".
//
// qodercli reports a failed model call as an assistant message from model "<synthetic>"
// carrying the error text, then a result with is_error and the same text, without
// claude's is_api_error_message mark. So the decoder holds such a message until the next
// record: dropped when that record's error repeats it, emitted before it otherwise.
type QoderDecoder struct {
	inner *claude.ClaudeDecoder
	held  []adapters.Event // text of a <synthetic> assistant message
}

func NewQoderDecoder() *QoderDecoder {
	inner := claude.NewClaudeDecoder()
	inner.CLI = "qodercli"
	return &QoderDecoder{inner: inner}
}

// Flush returns the "<synthetic>" message the decoder still holds, at the stream's end.
func (d *QoderDecoder) Flush() []adapters.Event {
	held := d.held
	d.held = nil
	return held
}

func (d *QoderDecoder) Decode(line []byte) []adapters.Event {
	evs := d.inner.Decode(line)
	for i := range evs {
		if rest, ok := strings.CutPrefix(evs[i].Source, "claude:"); ok {
			evs[i].Source = "qoder:" + rest
		}
	}
	if len(evs) == 0 {
		return nil // blank lines and status records do not decide a held message
	}
	if held := d.held; len(held) > 0 {
		d.held = nil
		if !qoderErrorRepeats(evs, held) {
			evs = append(held, evs...)
		}
	}
	if qoderSyntheticText(line, evs) {
		d.held = evs
		return nil
	}
	return evs
}

// qoderSyntheticText reports whether line is an assistant message from model
// "<synthetic>" that decoded to text only.
func qoderSyntheticText(line []byte, evs []adapters.Event) bool {
	if !bytes.Contains(line, []byte(`"<synthetic>"`)) || slices.ContainsFunc(evs, func(e adapters.Event) bool { return e.Type != adapters.EventText }) {
		return false
	}
	var l struct {
		Type    string `json:"type"`
		Message struct {
			Model string `json:"model"`
		} `json:"message"`
	}
	return adapters.Unmarshal(line, &l) == nil && l.Type == "assistant" && l.Message.Model == "<synthetic>"
}

// qoderErrorRepeats reports whether evs hold a fatal error that repeats the held text.
func qoderErrorRepeats(evs, held []adapters.Event) bool {
	var b strings.Builder
	for _, e := range held {
		b.WriteString(e.Text)
	}
	return adapters.ErrorRepeats(evs, strings.TrimSpace(b.String()), true)
}
