package runner

import (
	"errors"
	"os"
	"strings"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/transcript"
)

// runRecord is what hub keeps of a run's conversation, by the agent
// session id the run printed (Meta.ID; Meta.Cwd is canonical, for
// --continue): enough to brief another agent that continues it (hub run
// --resume ID --agent OTHER). It is a transcript of two records, the
// session and its brief.
type runRecord struct {
	transcript.Meta
	Brief handover.Brief
}

// loadTranscript reads the record of session id; nil when hub has none.
func loadTranscript(dir, id string) *runRecord {
	if dir == "" {
		return nil
	}
	recs, _ := transcript.Read(dir, id)
	var t runRecord
	for _, r := range recs {
		if r.Session != nil {
			t.Meta = *r.Session
		} else if r.Brief != nil {
			t.Brief = *r.Brief
		}
	}
	if t.Agent == "" {
		return nil
	}
	return &t
}

func (t *runRecord) save(dir string) error {
	recs := []transcript.Record{{Type: transcript.TypeSession, Session: &t.Meta}, {Type: transcript.TypeBrief, Brief: &t.Brief}}
	if err := transcript.Replace(dir, t.ID, recs); err != nil {
		return err
	}
	pruneTranscripts(dir, maxTranscripts)
	return nil
}

// maxTranscripts bounds the transcripts kept: the newest win.
const maxTranscripts = 500

// pruneTranscripts removes the oldest transcripts beyond keep.
func pruneTranscripts(dir string, keep int) {
	if entries, err := os.ReadDir(dir); err != nil || len(entries) <= keep {
		return
	}
	runs, _ := transcript.List(dir) // newest first
	for _, s := range runs[min(keep, len(runs)):] {
		_ = transcript.Remove(dir, s.ID)
	}
}

// handover decides how the run's agent starts (conversation.PlanStart):
// resuming or forking the session --resume names, or, continuing another
// agent's session (sessionOptions left no id), afresh and briefed on it.
func (r *run) handover(name string, caps adapters.Capabilities, so *adapters.SessionOptions, prefix *string) {
	var brief string
	if t := r.from; t != nil && t.Agent != name {
		b := t.Brief
		b.Cwd = so.Cwd
		brief = handover.Render(b)
		r.out.progress("continuing %s session %s: %s is briefed on it", t.Agent, t.ID, name)
	}
	p := conversation.PlanStart(caps, so.ResumeID, so.Fork, "", brief)
	so.ResumeID, so.Fork = p.ResumeID, p.Fork
	so.Instructions = strings.TrimSpace(p.Instructions + so.Instructions)
	*prefix = p.Lead + *prefix
}

// saveTranscript keeps this run's conversation (the resumed one's first)
// under the session id the run printed.
func (r *run) saveTranscript(prompt string) {
	if r.o.TranscriptDir == "" || r.digest.AgentSessionID == "" {
		return
	}
	t := runRecord{Meta: transcript.Meta{ID: r.digest.AgentSessionID, Agent: r.o.Agent, Cwd: canonicalDir(r.o.Cwd), Created: time.Now()}}
	if r.from != nil {
		t.Brief = r.from.Brief
	}
	r.digest.AddTo(&t.Brief, prompt)
	if err := t.save(r.o.TranscriptDir); err != nil && !errors.Is(err, os.ErrNotExist) {
		r.o.Log.Warn().Err(err).Msg("run transcript not saved")
	}
}
