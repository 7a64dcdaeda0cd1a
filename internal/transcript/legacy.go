package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/hubdev/hub/internal/handover"
)

// The formats hub wrote before this one. hub acp's history files held bare
// session/update lines: Read takes each as an update record. hub run kept
// each run as one JSON object, <id>.json: Read and List migrate it to a
// transcript the first time they meet it.

// legacyUpdate is line as an update record when it is a bare
// session/update (it has no type, and r is line read as a Record).
func legacyUpdate(line []byte, r Record) (Record, bool) {
	if r.Type != "" {
		return Record{}, false
	}
	var probe struct {
		Kind string `json:"sessionUpdate"`
	}
	if json.Unmarshal(line, &probe) != nil || probe.Kind == "" {
		return Record{}, false
	}
	return Record{Type: TypeUpdate, Update: slices.Clone(line)}, true
}

// legacyRun is hub run's record of a run before this format.
type legacyRun struct {
	Agent          string         `json:"agent"`
	AgentSessionID string         `json:"sessionId"`
	Cwd            string         `json:"cwd,omitempty"`
	Brief          handover.Brief `json:"brief"`
}

// migrateRun rewrites hub run's old record of session id in dir as its
// transcript, keeping its time, then removes it. It fails when there is
// no old record or a transcript already exists.
func migrateRun(dir, id string) error {
	p, err := Path(dir, id)
	if err != nil {
		return err
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: already a transcript", id)
	}
	old := filepath.Join(dir, id+".json")
	st, err := os.Stat(old)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(old)
	var run legacyRun
	if err != nil || json.Unmarshal(data, &run) != nil || run.Agent == "" || run.AgentSessionID != id {
		return fmt.Errorf("%s is not a hub run record", old)
	}
	at := st.ModTime()
	meta := Meta{ID: id, Agent: run.Agent, Cwd: run.Cwd, Created: at}
	recs := []Record{{Type: TypeSession, Time: at, Session: &meta}, {Type: TypeBrief, Time: at, Brief: &run.Brief}}
	if err := Replace(dir, id, recs); err != nil {
		return err
	}
	_ = os.Chtimes(p, at, at) // --continue takes the newest run
	if err := os.Remove(old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the migrated %s: %w", old, err)
	}
	return nil
}
