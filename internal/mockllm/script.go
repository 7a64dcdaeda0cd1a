package mockllm

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"
)

// Request is what a server records of every request; each API's request
// type embeds it and adds the fields it parses from Body.
type Request struct {
	Path   string
	Header http.Header
	Body   []byte
}

func (q *Request) request() *Request { return q }

// receive reads r as a request of type R: Body parsed as JSON (the fields
// stay zero when it is not JSON), and the Request fields set.
func receive[R any, P interface {
	*R
	request() *Request
}](r *http.Request) R {
	var req R
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	*P(&req).request() = Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	return req
}

// script is what every mock server shares: its scripted turns of type T,
// the requests of type R it received, and the lifetime that ends hanging
// handlers.
type script[T, R any] struct {
	srv       *httptest.Server
	mu        sync.Mutex
	reqs      []R
	turns     []T
	next      int
	loop      bool        // the script starts again when it runs out
	served    []time.Time // when each scripted turn was handed out
	done      chan struct{}
	closeOnce sync.Once
}

func (s *script[T, R]) start(turns []T, h http.Handler) {
	s.turns, s.done = turns, make(chan struct{})
	s.srv = httptest.NewServer(h)
}

// Close unblocks hanging turns and stops the server.
func (s *script[T, R]) Close() {
	s.closeOnce.Do(func() { close(s.done) })
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
func (s *script[T, R]) SetLoop(loop bool) {
	s.mu.Lock()
	s.loop = loop
	s.mu.Unlock()
}

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
	if wants && s.loop && s.next >= len(s.turns) {
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

// wait sleeps d unless the request or the server ends first.
func (s *script[T, R]) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

// hang blocks until the request or the server ends.
func (s *script[T, R]) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}
