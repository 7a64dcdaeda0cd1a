// Package testlog captures zerolog's JSON lines in tests, safely for the
// goroutines that log, and reads them back as entries.
package testlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// awaitGuard bounds AwaitRecords: it catches a warning that never comes,
// it does not measure how fast one does.
const awaitGuard = 20 * time.Second

// Buffer is an io.Writer for zerolog.New.
type Buffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed (and replaced) by the next Write
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.buf.Write(p)
}

// next is closed by the next Write.
func (b *Buffer) next() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written == nil {
		b.written = make(chan struct{})
	}
	return b.written
}

// String returns everything logged so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Records returns the entries at level ("" = any level) that carry a
// "record" field, with every field as a string.
func (b *Buffer) Records(level string) []map[string]string {
	var out []map[string]string
	for _, line := range strings.Split(b.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		e := make(map[string]string, len(m))
		for k, v := range m {
			e[k] = fmt.Sprint(v)
		}
		if e["record"] != "" && (level == "" || e["level"] == level) {
			out = append(out, e)
		}
	}
	return out
}

// AwaitRecords waits until at least n records at level were logged (some
// are logged off the stream's goroutine) and returns them.
func (b *Buffer) AwaitRecords(t testing.TB, level string, n int) []map[string]string {
	t.Helper()
	guard := time.After(awaitGuard)
	for {
		written := b.next() // before reading: a write in between is not missed
		r := b.Records(level)
		if len(r) >= n {
			return r
		}
		select {
		case <-written:
		case <-guard:
			t.Fatalf("%d %s records logged, want %d: %v", len(r), level, n, r)
		}
	}
}
