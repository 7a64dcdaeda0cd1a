package runner

import (
	"errors"
	"os"
	"strings"
	"time"

	"github.com/hubdev/hub/adapters"
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

// turnNotes collects this run's turn for the transcript.
type turnNotes struct {
	tools []string
	files []string
	plan  []handover.PlanEntry
}

func (n *turnNotes) note(ev adapters.Event) {
	switch ev.Type {
	case adapters.EventToolCall, adapters.EventToolUpdate:
		if ev.Tool == nil {
			return
		}
		if ev.Type == adapters.EventToolCall {
			n.tools = append(n.tools, titleOf(*ev.Tool))
		}
		if ev.Tool.Kind.ChangesFiles() {
			for _, l := range ev.Tool.Locations {
				n.files = append(n.files, l.Path)
			}
		}
	case adapters.EventPlan:
		n.plan = n.plan[:0]
		for _, e := range ev.Plan {
			n.plan = append(n.plan, handover.PlanEntry{Content: e.Content, Status: e.Status})
		}
	}
}

// handover prepares a run that continues another agent's session: the
// agent starts afresh, briefed on the transcript through its best channel.
// It reports whether the run is such a handover.
func (r *run) handover(name string, caps adapters.Capabilities, so *adapters.SessionOptions, prefix *string) bool {
	t := r.from
	if t == nil || t.Agent == name {
		return false
	}
	b := t.Brief
	b.Cwd = so.Cwd
	brief := handover.Render(b)
	so.ResumeID, so.Fork = "", false
	if caps.Instructions {
		so.Instructions = strings.TrimSpace(brief + so.Instructions)
	} else {
		*prefix = brief + *prefix
	}
	r.out.progress("continuing %s session %s: %s is briefed on it", t.Agent, t.ID, name)
	return true
}

// saveTranscript keeps this run's conversation (the resumed one's first)
// under the session id the run printed.
func (r *run) saveTranscript(prompt string) {
	if r.o.TranscriptDir == "" || r.sessionID == "" {
		return
	}
	t := runRecord{Meta: transcript.Meta{ID: r.sessionID, Agent: r.o.Agent, Cwd: canonicalDir(r.cwd), Created: time.Now()}}
	if r.from != nil {
		t.Brief = r.from.Brief
	}
	answer := strings.TrimSpace(r.final.String())
	if answer == "" {
		answer = r.lastFinal
	}
	t.Brief.Turns = append(t.Brief.Turns, handover.Turn{Request: prompt, Answer: answer, Tools: r.notes.tools})
	for _, f := range r.notes.files {
		t.Brief.AddFile(f)
	}
	if len(r.notes.plan) > 0 {
		t.Brief.Plan = r.notes.plan
	}
	if err := t.save(r.o.TranscriptDir); err != nil && !errors.Is(err, os.ErrNotExist) {
		r.o.Log.Warn().Err(err).Msg("run transcript not saved")
	}
}
