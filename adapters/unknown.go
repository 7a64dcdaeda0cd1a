package adapters

import (
	"cmp"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/internal/proc"
)

// UnknownRecords warns the first time a stream meets each record type hub does not
// understand, naming the agent's version against the tested one, so a user can tell an
// untested upgrade from a hub bug. One value per session (or adapter) scopes "first".
type UnknownRecords struct {
	log    zerolog.Logger
	agent  string
	tested string
	opts   UnknownOptions

	mu   sync.Mutex
	seen map[string]bool
}

type UnknownOptions struct {
	Version func() string // the agent's version ("" = unknown)
	// SlowVersion means Version may run a process: the warning is then logged off the
	// caller's goroutine so a stream reader never waits.
	SlowVersion bool
	Quiet       func(source string) bool // logged at debug (extensions, banners): not news
}

func NewUnknownRecords(log zerolog.Logger, agent, tested string, o UnknownOptions) *UnknownRecords {
	if o.Version == nil {
		o.Version = func() string { return "" }
	}
	return &UnknownRecords{log: log, agent: agent, tested: tested, opts: o, seen: map[string]bool{}}
}

// Note logs source (a raw event's record type) once.
func (u *UnknownRecords) Note(source string) {
	u.mu.Lock()
	first := !u.seen[source]
	u.seen[source] = true
	u.mu.Unlock()
	if !first {
		return
	}
	if u.opts.SlowVersion {
		go u.warn(source)
		return
	}
	u.warn(source)
}

func (u *UnknownRecords) warn(source string) {
	v := cmp.Or(u.opts.Version(), "unknown")
	about := u.agent + " " + v
	if u.tested != "" {
		about += ", tested with " + u.tested
	}
	e := u.log.Warn()
	if u.opts.Quiet != nil && u.opts.Quiet(source) {
		e = u.log.Debug()
	}
	e.Str("agent", u.agent).Str("record", source).Str("agent_version", v).Str("tested", u.tested).
		Msgf("%s sent %s, which hub does not understand (%s); passing it on raw", u.agent, source, about)
}

// CLIVersion returns a func that runs `argv --version` once (bounded by timeout) and
// reports the first line of its output, "" when it fails. It runs supervised, as an agent
// does: a child the program leaves (a shim's node) ends with it.
func CLIVersion(argv []string, env map[string]string, timeout time.Duration) func() string {
	return sync.OnceValue(func() string {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		p, err := proc.Start(ctx, proc.Spec{Path: argv[0], Args: append(slices.Clone(argv[1:]), "--version"), Env: Environ(nil, env), Grace: time.Second})
		if err != nil {
			return ""
		}
		_ = p.Stdin.Close()
		defer context.AfterFunc(ctx, func() { _ = p.Stdout.Close() })() // a child that left the group holds it
		out, err := io.ReadAll(p.Stdout)
		if err = cmp.Or(err, p.Wait()); err != nil {
			return ""
		}
		return strings.TrimSpace(FirstLine(string(out)))
	})
}
