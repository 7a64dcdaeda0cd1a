package transcript

import (
	"cmp"
	"fmt"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
)

// Audit writes one session's normalized Event stream, for `transcripts =
// true`. Opened without an id, it keeps the records until the agent reports
// its session id (so a resumed run appends to the same file), or until the
// turn ends, when it names the file after the time. A nil *Audit writes
// nothing. Its methods are safe for concurrent use.
type Audit struct {
	mu      sync.Mutex
	dir     string
	meta    Meta
	w       *Writer
	pending []Record
	report  func(error)
	failed  bool
}

// NewAudit starts the audit transcript of one session in dir. report gets
// the first failure to write it; the session goes on.
func NewAudit(dir string, meta Meta, report func(error)) *Audit {
	meta.Created = cmp.Or(meta.Created, time.Now())
	return &Audit{dir: dir, meta: meta, report: report}
}

// Prompt records the user's prompt of a turn, and the agent it goes to.
func (a *Audit) Prompt(agent string, prompt []adapters.Content) {
	a.add(Record{Type: TypePrompt, Agent: agent, Prompt: prompt})
}

// Event records one event; the first that names the agent's session id
// names the file when the session had no id.
func (a *Audit) Event(ev adapters.Event) {
	if a != nil { // &ev would copy every event to the heap, audited or not
		a.add(Record{Type: TypeEvent, Event: new(ev)})
	}
}

// EndTurn records the turn's end and syncs the file.
func (a *Audit) EndTurn(stop adapters.StopReason) {
	a.add(Record{Type: TypeTurnEnd, Stop: string(stop)})
}

// Close syncs and closes the file.
func (a *Audit) Close() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.w != nil {
		a.fail(a.w.Close())
	}
}

// add writes r, after the records kept until the file had a name (the
// session's id), which opens it.
func (a *Audit) add(r Record) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failed {
		return
	}
	r.Time = time.Now()
	if ev := r.Event; a.meta.ID == "" && ev != nil && ev.Type == adapters.EventSessionInfo && ev.Session != nil {
		a.meta.ID = ev.Session.AgentSessionID
	}
	if a.meta.ID == "" && r.Type == TypeTurnEnd {
		a.meta.ID = fmt.Sprintf("run-%s-%d", a.meta.Created.UTC().Format("20060102T150405"), a.meta.Created.Nanosecond())
	}
	if a.w == nil && a.meta.ID != "" {
		var err error
		if a.w, err = Open(a.dir, a.meta); err != nil {
			a.fail(err)
			return
		}
	}
	if a.pending = append(a.pending, r); a.w == nil {
		return
	}
	for _, p := range a.pending {
		a.w.Write(p)
	}
	if a.pending = nil; r.Type == TypeTurnEnd {
		a.fail(a.w.Sync())
	}
}

func (a *Audit) fail(err error) {
	if err != nil && !a.failed {
		a.failed, a.pending = true, nil
		a.report(err)
	}
}
