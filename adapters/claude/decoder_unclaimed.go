package claude

import (
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// claudeUnclaimed is text or thinking streamed as deltas before the id of its message
// was known. qodercli streams deltas with no message_start, then repeats each finished
// block in an assistant record, which claims the entry so the text is shown once.
type claudeUnclaimed struct {
	parent string
	index  int
	kind   string // text | thinking
	text   []byte
}

func (d *ClaudeDecoder) noteUnclaimed(parent string, index int, kind, text string) {
	for i := len(d.unclaimed) - 1; i >= 0; i-- {
		u := &d.unclaimed[i]
		if u.parent != parent {
			continue
		}
		if u.index == index && u.kind == kind {
			u.text = append(u.text, text...)
			return
		}
		break // a newer block of this parent started
	}
	d.unclaimed = append(d.unclaimed, claudeUnclaimed{parent: parent, index: index, kind: kind, text: []byte(text)})
}

// claimStreamed returns the part of a complete block not already streamed without a
// message id: all of it, the rest when the stream stopped early, or "".
func (d *ClaudeDecoder) claimStreamed(parent, kind, full string) string {
	i := slices.IndexFunc(d.unclaimed, func(u claudeUnclaimed) bool { return u.parent == parent && u.kind == kind })
	if i < 0 {
		return full
	}
	streamed := string(d.unclaimed[i].text)
	d.unclaimed = slices.Delete(d.unclaimed, i, i+1)
	switch {
	case strings.HasPrefix(full, streamed):
		return full[len(streamed):]
	case strings.HasPrefix(streamed, full), strings.TrimSpace(streamed) == strings.TrimSpace(full):
		return ""
	}
	return full // the deltas were of another block; this one was never shown
}

func claudeBlockEvent(kind, text, msgID string) adapters.Event {
	t := adapters.EventText
	if kind == "thinking" {
		t = adapters.EventThought
	}
	return adapters.Event{Type: t, Text: text, MessageID: msgID}
}
