package streamparse

import (
	"strings"

	"github.com/hubdev/hub/adapters"
)

// QoderDecoder decodes `qodercli --output-format stream-json` lines. Qoder's
// headless protocol is a clone of Claude Code's stream-json, so the records
// go through ClaudeDecoder; raw sources are renamed "qoder:..." and qoder's
// extra records (system/artifacts_update) stay raw.
type QoderDecoder struct {
	inner *ClaudeDecoder
	done  bool
}

// NewQoderDecoder returns a decoder for one qodercli run.
func NewQoderDecoder() *QoderDecoder {
	inner := NewClaudeDecoder()
	inner.cli = "qodercli"
	return &QoderDecoder{inner: inner}
}

// DecodeQoder decodes a whole stream-json output.
func DecodeQoder(data []byte) []adapters.Event { return acpDecodeLines(NewQoderDecoder(), data) }

// Done reports whether the final result line was seen.
func (d *QoderDecoder) Done() bool { return d.done }

// Decode decodes one line.
func (d *QoderDecoder) Decode(line []byte) []adapters.Event {
	evs := d.inner.Decode(line)
	for i := range evs {
		if strings.HasPrefix(evs[i].Source, "claude:") {
			evs[i].Source = "qoder:" + strings.TrimPrefix(evs[i].Source, "claude:")
		}
		if evs[i].Type == adapters.EventDone {
			d.done = true
		}
	}
	return evs
}
