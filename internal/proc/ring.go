package proc

import (
	"strings"
	"sync"
)

// Ring keeps the last N bytes written to it.
type Ring struct {
	mu    sync.Mutex
	buf   []byte
	limit int
}

// NewRing returns a ring that keeps limit bytes.
func NewRing(limit int) *Ring { return &Ring{limit: limit} }

// Write appends p, dropping the oldest bytes beyond the limit.
func (r *Ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	if len(p) >= r.limit {
		r.buf = append(r.buf[:0], p[len(p)-r.limit:]...)
		return n, nil
	}
	if over := len(r.buf) + len(p) - r.limit; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	r.buf = append(r.buf, p...)
	return n, nil
}

// String returns the kept bytes.
func (r *Ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.buf)
}

// TailLines returns the last n non-empty lines joined by " | ".
func (r *Ring) TailLines(n int) string {
	lines := strings.Split(strings.TrimSpace(r.String()), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append([]string{l}, keep...)
		}
	}
	return strings.Join(keep, " | ")
}
