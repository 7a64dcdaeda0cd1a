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
// each run as one JSON object, <id>.json: Read, List and Remove migrate it
// to a transcript the first time they meet it.

// legacyUpdate is line as an update record when it is a bare
// session/update (it has no type, and r is line read as a Record).
func legacyUpdate(line []byte, r Record) (Record, bool) {
	var probe struct {
		Kind string `json:"sessionUpdate"`
	}
	if r.Type != "" || json.Unmarshal(line, &probe) != nil || probe.Kind == "" {
		return Record{}, false
	}
	return Record{Type: TypeUpdate, Update: slices.Clone(line)}, true
}

// migrateRun rewrites hub run's old record of session id in dir as its
// transcript, atomically and keeping its time, then removes it. It fails
// when there is no old record or a transcript already exists. The brief
// tells a run's record from hub acp's metadata file, which never has one.
func migrateRun(dir, id string) error {
	var run struct {
		Agent, Cwd string
		ID         string `json:"sessionId"`
		Brief      *handover.Brief
	}
	old := filepath.Join(dir, id+".json")
	st, err := os.Stat(old)
	data, rerr := os.ReadFile(old)
	p, perr := Path(dir, id)
	if _, serr := os.Stat(p); err != nil || rerr != nil || perr != nil || !errors.Is(serr, os.ErrNotExist) ||
		json.Unmarshal(data, &run) != nil || run.Agent == "" || run.ID != id || run.Brief == nil {
		return fmt.Errorf("%s: no old run record to migrate", id)
	}
	at := st.ModTime()
	meta := Meta{ID: id, Agent: run.Agent, Cwd: run.Cwd, Created: at}
	if err := Replace(dir, id, []Record{{Type: TypeSession, Time: at, Session: &meta}, {Type: TypeBrief, Time: at, Brief: run.Brief}}); err != nil {
		return err
	}
	_ = os.Chtimes(p, at, at) // --continue takes the newest run
	if err := os.Remove(old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the migrated %s: %w", old, err)
	}
	return nil
}
