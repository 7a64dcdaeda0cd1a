package acp

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/transcript"
)

// Record is one session in the on-disk index.
type Record struct {
	SessionID      string            `json:"sessionId"`
	Agent          string            `json:"agent"`
	Persona        string            `json:"persona,omitempty"` // Agent runs as it: Agent took a persona's turn over
	AgentSessionID string            `json:"agentSessionId,omitempty"`
	Cwd            string            `json:"cwd"`
	Title          string            `json:"title,omitempty"`
	Model          string            `json:"model,omitempty"`
	Mode           string            `json:"mode,omitempty"`
	Options        map[string]string `json:"options,omitempty"`
	AddDirs        []string          `json:"additionalDirectories,omitempty"`
	// Files are the files the session's turns changed, for a briefing.
	Files []string `json:"files,omitempty"`
	// ForkOf is the agent session this forked session copies, until its
	// agent started on a copy of it (an agent that cannot fork is briefed).
	ForkOf string `json:"forkOf,omitempty"`
	// Handover is "none" when agents taking the session over start blank ("": brief).
	Handover string `json:"handover,omitempty"`
	// Delegation is "on" or "off" once the option was set ("": the config's).
	Delegation string `json:"delegation,omitempty"`
	// Left holds, per agent the session switched away from, its session id and
	// how much history it saw, so switching back resumes it and tells it the rest.
	Left map[string]AgentMark `json:"left,omitempty"`
	// Since is how many history entries the agent switched back to had
	// seen, until its briefing on the rest reached it; 0: all of them.
	Since int `json:"since,omitempty"`
	// Unbriefed marks the agent's session as a fresh start its briefing
	// has not reached: it holds none of the conversation, so the next
	// start (in this hub or after a restart) is afresh and briefed again.
	Unbriefed bool `json:"unbriefed,omitempty"`
	// Cost is what the session's turns cost so far, in USD (every attempt's,
	// told or priced): the cumulative cost its usage_update tells.
	Cost      float64                `json:"costUsd,omitempty"`
	UpdatedAt time.Time              `json:"updatedAt"`
	History   []schema.SessionUpdate `json:"-"`
}

// clone is r without its history, with maps and lists of its own.
func (r *Record) clone() Record {
	c := *r
	c.History = nil
	c.Options, c.Left = maps.Clone(r.Options), maps.Clone(r.Left)
	c.AddDirs, c.Files = slices.Clone(r.AddDirs), slices.Clone(r.Files)
	return c
}

// AgentMark is where an agent left a session.
type AgentMark struct {
	SessionID string `json:"sessionId"`
	Seen      int    `json:"seen"`
}

// Store is hub acp's session index (hub sessions reads it too). Each session
// is one transcript (internal/transcript) under IndexDir; a save appends the
// turn's updates and a session record whose State is the Record (the last one
// wins) in one write, so a save costs the same however long the session is and
// a crash loses at most the record it tore. An older version's <id>.json
// becomes such a transcript when first read. A "" dir keeps all in memory.
type Store struct {
	dir     string
	mu      sync.Mutex
	mem     map[string]*Record             // metadata only
	memHist map[string][]transcript.Record // history when dir is ""
}

const listPageSize = 50

func IndexDir(stateDir string) string { return filepath.Join(stateDir, "sessions") }

func OpenStore(stateDir string) *Store {
	x := &Store{mem: map[string]*Record{}, memHist: map[string][]transcript.Record{}}
	if stateDir != "" {
		x.dir = IndexDir(stateDir)
	}
	return x
}

// ErrBadSessionID: a session id hub could not have made; ids name files,
// so one is checked before any file is touched, and never rewritten.
var ErrBadSessionID = errors.New("invalid session id")

// maxSessionID bounds a session id's length (hub makes 28-byte ones).
const maxSessionID = 128

// checkID reports an id that is empty, too long, or holds anything but
// ASCII letters, digits, '_' and '-': a transcript's id without '.'.
func checkID(id string) error {
	if _, err := transcript.Path("", id); err != nil || len(id) > maxSessionID || strings.Contains(id, ".") {
		return fmt.Errorf("%w %.40q: use 1-%d letters, digits, '_' or '-'", ErrBadSessionID, id, maxSessionID)
	}
	return nil
}

// Save records rec's metadata (its History is ignored) and appends more to
// its history. persist false keeps it in memory only (a session without a
// turn is not worth a file).
func (x *Store) Save(rec *Record, more []schema.SessionUpdate, persist bool) error {
	if err := checkID(rec.SessionID); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	cp := rec.clone()
	x.mem[rec.SessionID] = &cp
	recs, err := updateRecords(rec.SessionID, more)
	if err != nil || x.dir == "" {
		x.memHist[rec.SessionID] = append(x.memHist[rec.SessionID], recs...)
		return err
	}
	if !persist {
		return nil
	}
	state, _ := json.Marshal(&cp) // strings, numbers and a time: it always marshals
	meta := transcript.Meta{ID: cp.SessionID, Agent: cp.Agent, Cwd: cp.Cwd, Model: cp.Model, Title: cp.Title, State: state}
	head := transcript.Record{Type: transcript.TypeSession, Session: &meta}
	if _, err := transcript.Latest(x.dir, rec.SessionID); err != nil { // a new file starts with its session
		recs = append([]transcript.Record{head}, recs...)
	}
	if err := transcript.Append(x.dir, rec.SessionID, append(recs, head)); err != nil {
		return fmt.Errorf("session %s not saved: %w", rec.SessionID, err)
	}
	return nil
}

// updateRecords are session id's history updates as transcript records.
func updateRecords(id string, updates []schema.SessionUpdate) ([]transcript.Record, error) {
	recs := make([]transcript.Record, 0, len(updates))
	for _, u := range updates {
		b, err := json.Marshal(u)
		if err != nil {
			return nil, fmt.Errorf("encode session %s history: %w", id, err)
		}
		recs = append(recs, transcript.Record{Type: transcript.TypeUpdate, Update: b})
	}
	return recs, nil
}

// Get reads one session in one pass over its file: its record (the last
// session record's, unless this process saved it since) with its whole
// history, oldest first; false when unknown or unreadable.
func (x *Store) Get(id string) (*Record, bool) {
	rec, err := x.Load(id)
	return rec, err == nil && rec != nil
}

// Load is Get telling an unknown session (nil) from one it could not read.
func (x *Store) Load(id string) (*Record, error) {
	if checkID(id) != nil {
		return nil, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	recs, err := x.memHist[id], error(nil)
	if x.dir != "" {
		if recs, err = transcript.Read(x.dir, id); errors.Is(err, transcript.ErrNotFound) {
			err = nil // kept in memory only, or unknown
		}
	}
	if err != nil && len(recs) == 0 { // not an empty history: a load or fork of it would lose the conversation
		return nil, fmt.Errorf("session %s could not be read: %w", id, err)
	}
	var rec Record
	if r := x.mem[id]; r != nil {
		rec = *r
	}
	for _, r := range recs {
		var s Record
		var u schema.SessionUpdate
		switch {
		case r.Session != nil && x.mem[id] == nil && json.Unmarshal(r.Session.State, &s) == nil:
			s.History = rec.History
			rec = s
		case r.Type == transcript.TypeUpdate && json.Unmarshal(r.Update, &u) == nil:
			rec.History = append(rec.History, u)
		}
	}
	if rec.SessionID != id {
		return nil, nil
	}
	return &rec, nil
}

// Delete removes a record; unknown ids are fine.
func (x *Store) Delete(id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.mem, id)
	delete(x.memHist, id)
	if x.dir == "" {
		return nil
	}
	if m, err := transcript.Latest(x.dir, id); err == nil && m.ID != id { // another session's file, on a disk that ignores case
		return nil
	}
	if err := transcript.Remove(x.dir, id); err != nil && !errors.Is(err, transcript.ErrNotFound) {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// Sessions are every recorded session, newest first, each as its file's
// last session record holds it (read from the end of the file).
func (x *Store) Sessions() []*Record {
	x.mu.Lock()
	defer x.mu.Unlock()
	seen := maps.Clone(x.mem)
	entries, _ := os.ReadDir(x.dir) // none in memory
	for _, e := range entries {
		id := strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".jsonl"), ".json") // .json: an older version's
		if seen[id] != nil || checkID(id) != nil {
			continue
		}
		var rec Record
		if meta, err := transcript.Latest(x.dir, id); err == nil && json.Unmarshal(meta.State, &rec) == nil && rec.SessionID == id {
			seen[id] = &rec
		}
	}
	return slices.SortedFunc(maps.Values(seen), func(a, b *Record) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), strings.Compare(a.SessionID, b.SessionID))
	})
}

// List returns one page of sessions, newest first, optionally for one cwd.
func (x *Store) List(cwd, cursor string) (schema.ListSessionsResponse, error) {
	start := 0
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n < 0 {
			return schema.ListSessionsResponse{}, jsonrpc.NewError(schema.CodeInvalidParams, "invalid cursor", map[string]any{"cursor": cursor})
		}
		start = n
	}
	match := slices.DeleteFunc(x.Sessions(), func(r *Record) bool { return cwd != "" && filepath.Clean(r.Cwd) != filepath.Clean(cwd) })
	start = min(start, len(match)) // a cursor past the end (sessions deleted, or any number) is an empty page
	resp := schema.ListSessionsResponse{Sessions: []schema.SessionInfo{}}
	for _, r := range match[start:min(start+listPageSize, len(match))] {
		resp.Sessions = append(resp.Sessions, schema.SessionInfo{SessionID: r.SessionID, Cwd: r.Cwd, Title: r.Title, UpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339)})
	}
	if start+listPageSize < len(match) {
		resp.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(start + listPageSize)))
	}
	return resp, nil
}
