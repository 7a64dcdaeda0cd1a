package proc

import (
	"regexp"
	"strings"
	"sync"
)

// Ring keeps the last N bytes written to it, cut at a UTF-8 boundary.
type Ring struct {
	mu        sync.Mutex
	buf       []byte
	limit     int
	truncated bool
}

func NewRing(limit int) *Ring { return &Ring{limit: limit} }

func (r *Ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - r.limit; over > 0 {
		for over < len(r.buf) && r.buf[over]&0xC0 == 0x80 {
			over++ // do not start inside a UTF-8 sequence
		}
		r.buf = append(r.buf[:0], r.buf[over:]...)
		r.truncated = true
	}
	return len(p), nil
}

func (r *Ring) String() string {
	s, _ := r.Snapshot()
	return s
}

// Snapshot returns the kept bytes and whether older ones were dropped.
func (r *Ring) Snapshot() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.buf), r.truncated
}

// terminalCodes are a terminal's colour and cursor sequences (CSI, OSC, and
// short ones such as ESC 7 or ESC ( B), noise in an editor or a log.
var terminalCodes = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)|\x1b[ -/]*[0-~]")

// TailLines returns the last n non-empty lines joined by " | ", as plain
// text: of a line a carriage return rewrote (a progress bar), its last part.
func (r *Ring) TailLines(n int) string {
	lines := strings.Split(strings.TrimSpace(r.String()), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		l := strings.TrimSpace(terminalCodes.ReplaceAllString(lines[i], ""))
		if l = strings.TrimSpace(l[strings.LastIndexByte(l, '\r')+1:]); l != "" {
			keep = append([]string{l}, keep...)
		}
	}
	return strings.Join(keep, " | ")
}
