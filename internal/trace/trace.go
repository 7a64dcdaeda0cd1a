// Package trace logs the hops of one turn or one agent start (the prompt
// received, written to the agent, the agent's first byte, the first update
// sent; the agent spawned, ready, its session created) with monotonic
// offsets from the span's beginning, so a slow first answer can be read hop
// by hop. It is on with HUB_TRACE=1 or at --log-level debug and logs to
// hub's log, never stdout. Off, Begin returns its context unchanged and a
// nil *Span's Mark is one nil check.
package trace

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Hops every front end and adapter marks; a span logs each at most once.
const (
	// A turn's hops.
	Received   = "prompt received"  // the front end read session/prompt
	AgentReady = "agent ready"      // the session's agent was up (or started) for the turn
	HooksDone  = "hooks done"       // the prompt hooks allowed the prompt
	Written    = "prompt written"   // the prompt reached the agent's stdin
	FirstByte  = "agent first byte" // the agent wrote after the prompt
	FirstEvent = "first event"      // the first event of the turn was decoded
	FirstSent  = "first update sent"
	FirstText  = "first text sent"
	// An agent start's hops (Started is the adapter returning: Received's
	// counterpart at the other end).
	Spawned   = "spawned"         // the agent's process runs (supervisor included)
	Handshake = "agent handshake" // the agent answered initialize
	Created   = "session created" // thread/start, session/new or its like answered
	Started   = "agent started"
)

var (
	logger atomic.Pointer[zerolog.Logger]
	spans  atomic.Int64 // numbers the spans, to tell two turns of a session apart
)

// Enable turns tracing on, logging to log (at debug level, whatever log's
// level); Enable(nil) turns it off.
func Enable(log *zerolog.Logger) {
	if log == nil {
		logger.Store(nil)
		return
	}
	l := log.Level(zerolog.DebugLevel)
	logger.Store(&l)
}

// On reports whether tracing is on.
func On() bool { return logger.Load() != nil }

// Span is one traced turn or start.
type Span struct {
	log   *zerolog.Logger
	kind  string
	begin time.Time
	mu    sync.Mutex
	seen  []string
}

type key struct{}

// Begin starts a span of kind ("turn", "start") for session and returns
// ctx carrying it, or ctx itself when tracing is off.
func Begin(ctx context.Context, kind, session string) context.Context {
	l := logger.Load()
	if l == nil {
		return ctx
	}
	sl := l.With().Str("span", kind).Str("session", session).Int64("n", spans.Add(1)).Logger()
	return context.WithValue(ctx, key{}, &Span{log: &sl, kind: kind, begin: time.Now()})
}

// From returns ctx's span, or nil.
func From(ctx context.Context) *Span {
	s, _ := ctx.Value(key{}).(*Span)
	return s
}

// Mark logs ctx's span's hop (see Span.Mark).
func Mark(ctx context.Context, hop string) {
	if logger.Load() != nil {
		From(ctx).Mark(hop)
	}
}

// Mark logs hop with its offset from the span's beginning, the first time
// only; a nil span does nothing.
func (s *Span) Mark(hop string) {
	if s == nil {
		return
	}
	at := time.Since(s.begin) // monotonic
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.seen, hop) {
		return
	}
	s.seen = append(s.seen, hop)
	s.log.Debug().Str("hop", hop).Float64("ms", float64(at.Microseconds())/1000).
		Int64("unix_us", time.Now().UnixMicro()).Msg("trace")
}
