package runner

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/mask"
	transcripts "github.com/hubdev/hub/internal/transcript"
)

// transcript is what hub keeps of a run's conversation, by the agent
// session id the run printed: enough to brief another agent that
// continues it (hub run --resume ID --agent OTHER).
type transcript struct {
	Agent          string `json:"agent"`
	AgentSessionID string `json:"sessionId"`
	// Cwd is the run's working directory (canonical), for --continue.
	Cwd   string         `json:"cwd,omitempty"`
	Brief handover.Brief `json:"brief"`
}

func transcriptPath(dir, id string) (string, error) {
	if !transcripts.SafeID(id) {
		return "", fmt.Errorf("session id %q cannot name a transcript", id)
	}
	return filepath.Join(dir, id+".json"), nil
}

// loadTranscript reads the transcript of session id; nil when hub has none.
func loadTranscript(dir, id string) *transcript {
	if dir == "" {
		return nil
	}
	p, err := transcriptPath(dir, id)
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var t transcript
	if json.Unmarshal(data, &t) != nil {
		return nil
	}
	return &t
}

func (t *transcript) save(dir string) error {
	p, err := transcriptPath(dir, t.AgentSessionID)
	if err != nil {
		return err
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	data = mask.Default().JSON(data)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	pruneTranscripts(dir, maxTranscripts)
	return nil
}

// maxTranscripts bounds the transcripts kept: the newest win.
const maxTranscripts = 500

// pruneTranscripts removes the oldest transcripts beyond keep.
func pruneTranscripts(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= keep {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var files []aged
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".json") {
			files = append(files, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(files, func(a, b aged) int { return cmp.Compare(b.mod, a.mod) })
	for _, f := range files[min(keep, len(files)):] {
		_ = os.Remove(filepath.Join(dir, f.name))
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
	r.out.progress("continuing %s session %s: %s is briefed on it", t.Agent, t.AgentSessionID, name)
	return true
}

// saveTranscript keeps this run's conversation (the resumed one's first)
// under the session id the run printed.
func (r *run) saveTranscript(prompt string) {
	if r.o.TranscriptDir == "" || r.digest.AgentSessionID == "" {
		return
	}
	t := transcript{Agent: r.o.Agent, AgentSessionID: r.digest.AgentSessionID, Cwd: canonicalDir(r.cwd)}
	if r.from != nil {
		t.Brief = r.from.Brief
	}
	r.digest.AddTo(&t.Brief, prompt)
	if err := t.save(r.o.TranscriptDir); err != nil && !errors.Is(err, os.ErrNotExist) {
		r.o.Log.Warn().Err(err).Msg("run transcript not saved")
	}
}
