package transcript

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/safefile"
)

// The formats hub wrote before this one. hub acp's history files held bare
// session/update lines: Read takes each as an update record. The others
// kept an old record, <id>.json: hub run one JSON object per run, with its
// brief; hub acp's index a session's metadata, with its history inside
// (the oldest) or in a .jsonl beside it. Every reader migrates an old
// record to a transcript the first time it meets it.

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

// oldRecord is an old record as read; its history stays raw, so an update
// this version cannot read loses only itself, never the session.
type oldRecord struct {
	ID                       string `json:"sessionId"`
	Agent, Cwd, Title, Model string
	UpdatedAt                time.Time
	Brief                    *handover.Brief
	History                  []json.RawMessage
}

// migrate rewrites the old record of session id in dir as its transcript,
// atomically and keeping its time, then removes it. It fails when there
// is no old record. A transcript that starts with a session record was
// migrated already, by a process that stopped before the removal (or
// saved since by an older hub: then its metadata is appended). It
// works under the transcript's lock and reads under it: a second process
// finds the work done, and never replaces the transcript a save of the
// first appended to since.
func migrate(dir, id string) error {
	name := filepath.Join(dir, id+".json")
	p, err := Path(dir, id)
	if _, serr := os.Stat(name); err != nil || serr != nil {
		return fmt.Errorf("%s: no old record to migrate", id)
	}
	unlock, err := safefile.Lock(filepath.Join(dir, ".migrate")) // one lock file, not one beside each session
	if err != nil {
		return err
	}
	defer unlock()
	st, err := os.Stat(name)
	data, rerr := readFile(name)
	var old oldRecord
	if err != nil || rerr != nil || json.Unmarshal(data, &old) != nil || old.ID != id {
		return fmt.Errorf("%s: no old record to migrate", id)
	}
	beside, err := readFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var later []Record
	for _, line := range bytes.Split(beside, []byte{'\n'}) { // a bad line loses only itself
		recs, _ := parse(line, p)
		later = append(later, recs...)
	}
	at := cmp.Or(old.UpdatedAt, st.ModTime())
	recs := old.records(data, at, later)
	switch {
	case len(later) == 0 || later[0].Session == nil:
		if err := Replace(dir, id, recs); err != nil {
			return err
		}
		_ = os.Chtimes(p, at, at) // --continue takes the newest run
	case old.Brief == nil && old.savedSince(later): // by an older hub, which appended its turns
		if err := Append(dir, id, recs[len(recs)-1:]); err != nil {
			return err
		}
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the migrated %s: %w", name, err)
	}
	return nil
}

// savedSince reports whether the old record is newer than the transcript's
// last session record: an index session saved after its migration.
func (o oldRecord) savedSince(later []Record) bool {
	for i := len(later) - 1; i >= 0; i-- {
		var last struct{ UpdatedAt time.Time }
		if later[i].Session != nil {
			return json.Unmarshal(later[i].Session.State, &last) == nil && o.UpdatedAt.After(last.UpdatedAt)
		}
	}
	return false
}

// records are the old record data as a transcript: a run's session and
// brief; an index session's record (its metadata, as the session record's
// State, without the history), its history, the records of the .jsonl
// beside it, and its record again, last, where Latest looks.
func (o oldRecord) records(data []byte, at time.Time, later []Record) []Record {
	meta := &Meta{ID: o.ID, Agent: o.Agent, Cwd: o.Cwd, Model: o.Model, Title: o.Title, Created: at}
	head := Record{Type: TypeSession, Time: at, Session: meta}
	if o.Brief != nil {
		return []Record{head, {Type: TypeBrief, Time: at, Brief: o.Brief}}
	}
	var state map[string]json.RawMessage
	_ = json.Unmarshal(data, &state)
	delete(state, "history")
	meta.State, _ = json.Marshal(state)
	recs := []Record{head}
	for _, u := range o.History {
		recs = append(recs, Record{Type: TypeUpdate, Time: at, Update: u})
	}
	return append(append(recs, later...), head)
}
