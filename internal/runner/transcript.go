package runner

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/safefile"
	"github.com/hubdev/hub/internal/transcript"
)

const (
	// ResumeLast is the --resume value that names the latest run of the
	// agent in the directory, like --continue.
	ResumeLast     = "last"
	ContinuePrompt = "continue" // the prompt of a resumed run given none
	maxTranscripts = 500        // the transcripts kept: the newest win
)

// runRecord is what hub keeps of a run's conversation, by the agent session
// id the run printed: enough to brief another agent that continues it (hub
// run --resume ID --agent OTHER). Meta.Cwd is canonical, for --continue.
type runRecord struct {
	transcript.Meta
	Brief handover.Brief
}

// loadTranscript reads the record of session id; nil when hub has none.
func loadTranscript(dir, id string) *runRecord {
	if dir == "" || id == "" {
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
	transcript.Prune(dir, maxTranscripts)
	return nil
}

// handover decides how the run's agent starts (conversation.PlanStart):
// resuming or forking the session --resume names, or, continuing another
// agent's session (sessionOptions left no id), afresh and briefed on it.
func (r *run) handover(name string, caps adapters.Capabilities, so *adapters.SessionOptions, prefix *string) {
	var brief string
	if t := r.o.from; t != nil && t.Agent != name {
		b := t.Brief
		b.Cwd = so.Cwd
		brief = handover.Render(b)
		r.out.progress("continuing %s session %s: %s is briefed on it", t.Agent, t.ID, name)
	}
	p := conversation.PlanStart(caps, so.ResumeID, so.Fork, "", brief)
	p.Apply(so)
	*prefix = p.Lead + *prefix
}

// saveTranscript keeps this run's conversation (the resumed one's first)
// under the session id the run printed.
func (r *run) saveTranscript(prompt string) {
	if r.o.TranscriptDir == "" || r.digest.AgentSessionID == "" {
		return
	}
	t := runRecord{Meta: transcript.Meta{ID: r.digest.AgentSessionID, Agent: r.o.Agent, Cwd: canonicalDir(r.o.Cwd), Created: r.o.Now()}}
	if r.o.from != nil {
		t.Brief = r.o.from.Brief
	}
	r.digest.AddTo(&t.Brief, prompt)
	if err := t.save(r.o.TranscriptDir); err != nil && !errors.Is(err, os.ErrNotExist) {
		r.o.Log.Warn().Err(err).Msg("run transcript not saved")
	}
}

// resolveResume turns --continue (or --resume last) into the session id of
// the agent's latest run in Cwd, and reads the record of the session resumed.
func (o *Options) resolveResume() error {
	if o.ResumeID == ResumeLast {
		o.ResumeID, o.Continue = "", true
	}
	switch {
	case o.Continue && o.ResumeID != "":
		return fmt.Errorf("%w: --continue and --resume %s name two sessions; pass one", ErrUsage, o.ResumeID)
	case o.Continue:
		cwd := canonicalDir(o.Cwd)
		runs, _ := transcript.List(o.TranscriptDir) // newest first; none without a directory
		i := slices.IndexFunc(runs, func(s transcript.Summary) bool { return s.Agent == o.Agent && s.Cwd == cwd })
		if i < 0 {
			return fmt.Errorf("%w: no earlier run of %s in %s to continue", ErrUsage, o.Agent, cwd)
		}
		o.ResumeID = runs[i].ID
	}
	o.from = loadTranscript(o.TranscriptDir, o.ResumeID)
	return nil
}

// canonicalDir is dir (absolute: see prepare) with its symbolic links
// resolved, as transcripts record it.
func canonicalDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// holdSession takes the lock of the session a run resumes, so a second run
// resuming it at the same time fails instead of interleaving its turns
// with the first's. A fork leaves the session as it was: no lock.
func (o *Options) holdSession() (release func(), err error) {
	if o.ResumeID == "" || o.Fork || o.TranscriptDir == "" {
		return func() {}, nil
	}
	name := o.ResumeID
	if _, err := transcript.Path(o.TranscriptDir, name); err != nil { // any id an agent prints may be resumed
		name = fmt.Sprintf("%x", sha256.Sum256([]byte(name)))
	}
	release, err = safefile.Hold(filepath.Join(o.TranscriptDir, "locks", name+".lock"))
	if errors.Is(err, safefile.ErrLocked) {
		return nil, fmt.Errorf("%w: session %s is in use by another hub run; wait for it to end (%v)", ErrUsage, o.ResumeID, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: lock session %s: %v", ErrUsage, o.ResumeID, err)
	}
	return release, nil
}
