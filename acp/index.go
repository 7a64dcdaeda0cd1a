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
	"github.com/hubdev/hub/internal/mask"
	"github.com/hubdev/hub/internal/safefile"
	"github.com/hubdev/hub/internal/transcript"
)

// Record is one session in the on-disk index.
type Record struct {
	SessionID      string            `json:"sessionId"`
	Agent          string            `json:"agent"`
	AgentSessionID string            `json:"agentSessionId,omitempty"`
	Cwd            string            `json:"cwd"`
	Title          string            `json:"title,omitempty"`
	Model          string            `json:"model,omitempty"`
	Mode           string            `json:"mode,omitempty"`
	Options        map[string]string `json:"options,omitempty"`
	AddDirs        []string          `json:"additionalDirectories,omitempty"`
	// Files are the files the session's turns changed (their digests'),
	// for the briefing of an agent taking over.
	Files []string `json:"files,omitempty"`
	// ForkOf is the agent session this forked session copies, until its
	// agent started on a copy of it (an agent that cannot fork is briefed).
	ForkOf string `json:"forkOf,omitempty"`
	// Handover is "none" when agents taking the session over start blank
	// (the handover option); "" means hub's default, brief.
	Handover string `json:"handover,omitempty"`
	// Delegation is "on" or "off" once the delegation option was set; ""
	// follows the config.
	Delegation string `json:"delegation,omitempty"`
	// Left holds, per agent the session switched away from, its own
	// session id and how many history entries it had seen, so switching
	// back resumes it and tells it only what happened since.
	Left      map[string]AgentMark   `json:"left,omitempty"`
	UpdatedAt time.Time              `json:"updatedAt"`
	History   []schema.SessionUpdate `json:"history,omitempty"`
}

// onDisk is a metadata file as read: an older version's history in it
// (see Store) stays raw, so an update this version cannot read loses
// only itself, never the session.
type onDisk struct {
	Record
	History []json.RawMessage `json:"history,omitempty"`
}

// read reads the metadata file at path; ok is false when it holds no
// session.
func (d *onDisk) read(path string) (ok bool) {
	b, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(b, d) == nil && d.SessionID != ""
}

// AgentMark is where an agent left a session.
type AgentMark struct {
	SessionID string `json:"sessionId"`
	Seen      int    `json:"seen"`
}

// Store is hub acp's session index, for the server and the commands that
// read it outside one (hub sessions). It stores each session as two files
// under dir: <id>.json holds its metadata (rewritten atomically, temp
// file + rename, small), <id>.jsonl its history, a transcript of update
// records (internal/transcript), appended a turn at a time, so a turn
// costs the same however long the session is. A nil dir keeps everything
// in memory. Records written by older versions kept the history in the
// .json file; it is read first.
type Store struct {
	dir     string
	mu      sync.Mutex
	mem     map[string]*Record             // metadata only
	memHist map[string][]transcript.Record // history when dir is ""
}

const listPageSize = 50

// OpenStore opens the index under stateDir.
func OpenStore(stateDir string) *Store {
	return &Store{dir: stateDir, mem: map[string]*Record{}, memHist: map[string][]transcript.Record{}}
}

func (x *Store) path(id string) string {
	return filepath.Join(x.dir, "sessions", id+".json")
}

func (x *Store) historyPath(id string) string {
	return filepath.Join(x.dir, "sessions", id+".jsonl")
}

// ErrBadSessionID: a session id hub could not have made; ids name files,
// so one is checked before any file is touched, and never rewritten.
var ErrBadSessionID = errors.New("invalid session id")

// maxSessionID bounds a session id's length (hub makes 28-byte ones).
const maxSessionID = 128

// checkID reports an id that is empty, too long, or holds anything but
// ASCII letters, digits, '_' and '-'.
func checkID(id string) error {
	bad := strings.IndexFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	})
	if id == "" || len(id) > maxSessionID || bad >= 0 {
		shown := id
		if len(shown) > 40 {
			shown = shown[:40] + "…"
		}
		return fmt.Errorf("%w %q: use 1-%d letters, digits, '_' or '-'", ErrBadSessionID, shown, maxSessionID)
	}
	return nil
}

// Save writes rec's metadata (its History is ignored) and appends more to
// its history. persist false keeps it in memory only (a session without a
// turn is not worth a file).
func (x *Store) Save(rec *Record, more []schema.SessionUpdate, persist bool) error {
	if err := checkID(rec.SessionID); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	cp := *rec
	cp.History = nil
	x.mem[rec.SessionID] = &cp
	recs, err := updateRecords(rec.SessionID, more)
	if err != nil || x.dir == "" {
		x.memHist[rec.SessionID] = append(x.memHist[rec.SessionID], recs...)
		return err
	}
	if !persist {
		return nil
	}
	if len(recs) > 0 {
		if err := transcript.Append(filepath.Join(x.dir, "sessions"), rec.SessionID, recs); err != nil {
			return fmt.Errorf("session history: %w", err)
		}
	}
	b, err := json.Marshal(&cp)
	if err != nil {
		return fmt.Errorf("encode session %s: %w", rec.SessionID, err)
	}
	b = mask.Default().JSON(b) // a title may quote a prompt
	return safefile.WriteAtomic(x.path(rec.SessionID), b, 0o600)
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

// History reads a session's whole history, oldest first.
func (x *Store) History(id string) []schema.SessionUpdate {
	if checkID(id) != nil {
		return nil
	}
	var out []schema.SessionUpdate
	for _, r := range x.stored(id) {
		var u schema.SessionUpdate
		if json.Unmarshal(r.Update, &u) == nil {
			out = append(out, u)
		}
	}
	return out
}

// stored is a session's history as it is stored, update records oldest
// first: an older version's in the .json (see Store), then the .jsonl's.
func (x *Store) stored(id string) []transcript.Record {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.dir == "" {
		return slices.Clone(x.memHist[id])
	}
	var legacy onDisk // see Store
	var out []transcript.Record
	if legacy.read(x.path(id)) {
		for _, u := range legacy.History {
			out = append(out, transcript.Record{Type: transcript.TypeUpdate, Update: u})
		}
	}
	recs, _ := transcript.Read(filepath.Join(x.dir, "sessions"), id)
	for _, r := range recs {
		if r.Type == transcript.TypeUpdate {
			out = append(out, transcript.Record{Type: r.Type, Update: r.Update})
		}
	}
	return out
}

// Get reads one record; ok is false when unknown.
func (x *Store) Get(id string) (*Record, bool) {
	if checkID(id) != nil {
		return nil, false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if r, ok := x.mem[id]; ok {
		cp := *r
		return &cp, true
	}
	if x.dir == "" {
		return nil, false
	}
	var d onDisk
	if !d.read(x.path(id)) || d.SessionID != id {
		return nil, false
	}
	return &d.Record, true // its History is nil: see History
}

// Records are one session as the one conversation record: its metadata,
// then its history, for transcript.Markdown; ok is false when unknown.
func (x *Store) Records(id string) ([]transcript.Record, bool) {
	rec, ok := x.Get(id)
	if !ok {
		return nil, false
	}
	meta := transcript.Meta{ID: rec.SessionID, Agent: rec.Agent, Cwd: rec.Cwd, Model: rec.Model, Title: rec.Title, Created: rec.UpdatedAt}
	return append([]transcript.Record{{Type: transcript.TypeSession, Session: &meta}}, x.stored(id)...), true
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
	for _, p := range []string{x.path(id), x.historyPath(id)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete session %s: %w", id, err)
		}
	}
	return nil
}

// Sessions are every recorded session, newest first.
func (x *Store) Sessions() []*Record {
	x.mu.Lock()
	defer x.mu.Unlock()
	seen := maps.Clone(x.mem)
	if x.dir != "" {
		files, _ := filepath.Glob(filepath.Join(x.dir, "sessions", "*.json"))
		for _, f := range files {
			var d onDisk
			if d.read(f) && seen[d.SessionID] == nil {
				seen[d.SessionID] = &d.Record
			}
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
	resp := schema.ListSessionsResponse{Sessions: []schema.SessionInfo{}}
	for _, r := range match[min(start, len(match)):min(start+listPageSize, len(match))] {
		resp.Sessions = append(resp.Sessions, schema.SessionInfo{SessionID: r.SessionID, Cwd: r.Cwd, Title: r.Title, UpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339)})
	}
	if start+listPageSize < len(match) {
		resp.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(start + listPageSize)))
	}
	return resp, nil
}
