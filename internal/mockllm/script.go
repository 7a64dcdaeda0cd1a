package mockllm

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// read parses r's body as JSON into req (its fields stay zero when it is
// not JSON) and returns the body, which every request type records.
func read(r *http.Request, req any) []byte {
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, req)
	return body
}

// script is what every mock server shares: its scripted turns of type T
// and the requests of type R it received.
type script[T, R any] struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []R
	turns  []T
	next   int
	loop   atomic.Bool // the script starts again when it runs out
	served []time.Time // when each scripted turn was handed out
}

func (s *script[T, R]) start(turns []T, h http.Handler) {
	s.turns = turns
	s.srv = httptest.NewServer(h)
}

// Close stops the server; closing the connections first ends hanging
// turns, whose requests' contexts end with them.
func (s *script[T, R]) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns a copy of the requests received so far.
func (s *script[T, R]) Requests() []R {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Served returns when each scripted turn was handed out (a benchmark's
// "the model was asked" hop).
func (s *script[T, R]) Served() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.served)
}

// Remaining returns how many scripted turns have not been served.
func (s *script[T, R]) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns) - s.next
}

// SetLoop makes the script restart from the first turn when it runs out
// (a benchmark's endless turns, a CLI's retries).
func (s *script[T, R]) SetLoop(loop bool) { s.loop.Store(loop) }

// Add appends turns to the script.
func (s *script[T, R]) Add(turns ...T) {
	s.mu.Lock()
	s.turns = append(s.turns, turns...)
	s.mu.Unlock()
}

// take records req and, when it wants a turn, hands out the next one and
// its index; ok is false when it wants none or the script is exhausted.
func (s *script[T, R]) take(req R, wants bool) (t T, idx int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	if wants && s.loop.Load() && s.next >= len(s.turns) {
		s.next = 0
	}
	idx = s.next
	if !wants || idx >= len(s.turns) {
		return t, idx, false
	}
	s.next++
	s.served = append(s.served, time.Now())
	return s.turns[idx], idx, true
}
