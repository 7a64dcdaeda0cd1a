package delegation

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/safefile"
	"github.com/hubdev/hub/internal/transcript"
)

// maxRecords are the delegate records kept: the newest win.
const maxRecords = 500

// RecordsIn is where a delegator keeps its delegate conversations under
// hub's state dir; "" for none.
func RecordsIn(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return filepath.Join(stateDir, "delegates")
}

// recordState is what a delegate's record keeps besides transcript.Meta
// and its conversation (a brief record).
type recordState struct {
	Mode         string   `json:"mode,omitempty"`
	Persona      string   `json:"persona,omitempty"`
	AgentSession string   `json:"agentSessionId,omitempty"`
	Unbriefed    bool     `json:"unbriefed,omitempty"` // its agent never read the briefing: start it afresh, briefed
	Chain        []string `json:"chain,omitempty"`     // the agents it ran for
}

// session is delegate session id, in memory or read from its record; one
// read from its record passes the checks a new request would here.
func (d *Delegator) session(id string) (*live, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if l := d.sessions[id]; l != nil {
		return l, nil
	}
	if d.o.Records == "" || d.closed {
		return nil, fmt.Errorf("%w %q", ErrUnknownSession, id)
	}
	l, err := d.load(id)
	if err != nil {
		return nil, err
	}
	d.sessions[id] = l // a placeholder, closed: its first turn starts the agent (converse)
	return l, nil
}

func (d *Delegator) load(id string) (*live, error) {
	if _, err := transcript.Path(d.o.Records, id); err != nil || !strings.HasPrefix(id, "d-") {
		return nil, fmt.Errorf("%w: session %q is none hub gave; pass the session a delegate call returned", ErrRefused, id)
	}
	recs, err := transcript.Read(d.o.Records, id)
	var meta *transcript.Meta
	var brief handover.Brief
	for _, r := range recs {
		switch {
		case r.Session != nil:
			meta = r.Session
		case r.Brief != nil:
			brief = *r.Brief
		}
	}
	var st recordState
	if err == nil && (meta == nil || meta.ID != id || meta.Agent == "" || json.Unmarshal(meta.State, &st) != nil) {
		err = errors.New("its record is incomplete")
	}
	if errors.Is(err, transcript.ErrNotFound) {
		return nil, fmt.Errorf("%w %q", ErrUnknownSession, id)
	}
	if err != nil {
		d.o.Log.Warn().Err(err).Str("session", id).Msg("delegate record unreadable")
		return nil, fmt.Errorf("%w %q: its record in %s cannot be read", ErrUnknownSession, id, d.o.Records)
	}
	l := &live{id: id, agent: meta.Agent, cwd: meta.Cwd, model: meta.Model, mode: st.Mode, persona: st.Persona, brief: brief, created: meta.Created}
	if l.unbriefed = st.Unbriefed; !st.Unbriefed {
		l.resume = st.AgentSession
	}
	if l.cwd, err = d.admit(l); err != nil {
		return nil, err
	}
	l.gone.Store(true)
	return l, nil
}

// admit is the directory l goes on in, or ErrRefused when this delegator
// would refuse it as a new request: an agent of its chain or one its
// persona may not use, a directory outside its workspace.
func (d *Delegator) admit(l *live) (string, error) {
	as := cmp.Or(l.persona, l.agent)
	chain := names(d.o.Chain)
	if slices.Contains(chain, l.agent) || slices.Contains(chain, as) {
		return "", fmt.Errorf("%w: %w: session %s runs %s, which is already working in this chain (%s); delegate to another agent", ErrRefused, ErrLoop, l.id, as, strings.Join(chain, " → "))
	}
	if _, err := d.settle(Request{Agent: as, Model: l.model, Mode: l.mode}); err != nil {
		return "", fmt.Errorf("%w; session %s cannot go on here", err, l.id)
	}
	if l.cwd == d.o.Cwd {
		return l.cwd, nil
	}
	cwd, ok := d.inside(l.cwd)
	if !ok {
		return "", fmt.Errorf("%w: session %s worked in %s, not a directory inside the workspace %s; delegate anew here", ErrRefused, l.id, l.cwd, d.o.Cwd)
	}
	return cwd, nil
}

// claim holds from's record for a turn, so that two hub processes never
// start two agents on one conversation: ErrBusy while another holds it.
func (d *Delegator) claim(from *live) (release func(), err error) {
	if from == nil || d.o.Records == "" {
		return func() {}, nil
	}
	release, err = safefile.Hold(filepath.Join(d.o.Records, from.id+".lock"))
	if errors.Is(err, safefile.ErrLocked) {
		return nil, ErrBusy
	}
	if err != nil { // no state dir to lock in: the in-process claim stands alone
		d.o.Log.Warn().Err(err).Str("session", from.id).Msg("the delegate's record was not locked")
		return func() {}, nil
	}
	return release, nil
}

// save writes session id's record whole (a reader sees the old or the
// new), after each turn; a new one makes room for itself.
func (d *Delegator) save(id string) {
	d.mu.Lock()
	l := d.sessions[id]
	d.mu.Unlock()
	if d.o.Records == "" || l == nil {
		return
	}
	l.tmu.Lock()
	fresh := l.created.IsZero()
	l.created = cmp.Or(l.created, time.Now())
	st, _ := json.Marshal(recordState{Mode: l.mode, Persona: l.persona, AgentSession: cmp.Or(l.agentSession, l.resume), Unbriefed: l.unbriefed, Chain: names(d.o.Chain)})
	brief := l.brief
	err := transcript.Replace(d.o.Records, id, []transcript.Record{
		{Type: transcript.TypeSession, Session: &transcript.Meta{ID: id, Agent: l.agent, Cwd: l.cwd, Model: l.model, Created: l.created, State: st}},
		{Type: transcript.TypeBrief, Brief: &brief}})
	l.tmu.Unlock()
	if err != nil {
		d.o.Log.Warn().Err(err).Str("session", id).Msg("the delegate's record was not written: it cannot go on after hub restarts")
	} else if fresh {
		prune(d.o.Records, maxRecords)
	}
}

// prune removes the oldest records beyond keep, with their lock files.
func prune(dir string, keep int) {
	for _, p := range transcript.Prune(dir, keep) {
		_ = os.Remove(strings.TrimSuffix(p, ".jsonl") + ".lock") // claim's
	}
}
