package acp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// Record is one session in the on-disk index.
type Record struct {
	SessionID      string                 `json:"sessionId"`
	Agent          string                 `json:"agent"`
	AgentSessionID string                 `json:"agentSessionId,omitempty"`
	Cwd            string                 `json:"cwd"`
	Title          string                 `json:"title,omitempty"`
	Model          string                 `json:"model,omitempty"`
	Mode           string                 `json:"mode,omitempty"`
	Options        map[string]string      `json:"options,omitempty"`
	AddDirs        []string               `json:"additionalDirectories,omitempty"`
	UpdatedAt      time.Time              `json:"updatedAt"`
	History        []schema.SessionUpdate `json:"history,omitempty"`
}

// index stores one JSON file per session under dir; writes are atomic
// (temp file + rename). A nil dir keeps everything in memory.
type index struct {
	dir string
	mu  sync.Mutex
	mem map[string]*Record
}

const listPageSize = 50

func newIndex(dir string) *index { return &index{dir: dir, mem: map[string]*Record{}} }

func (x *index) path(id string) string {
	return filepath.Join(x.dir, "sessions", safeName(id)+".json")
}

func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == '.' {
			return '_'
		}
		return r
	}, id)
}

// Save writes rec, which the index owns from then on.
func (x *index) Save(rec *Record) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	cp := *rec
	x.mem[rec.SessionID] = &cp
	if x.dir == "" {
		return nil
	}
	b, err := json.Marshal(&cp)
	if err != nil {
		return fmt.Errorf("encode session %s: %w", rec.SessionID, err)
	}
	p := x.path(rec.SessionID)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("session index dir: %w", err)
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write session index: %w", err)
	}
	return os.Rename(tmp, p)
}

// Get reads one record; ok is false when unknown.
func (x *index) Get(id string) (*Record, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if r, ok := x.mem[id]; ok {
		cp := *r
		return &cp, true
	}
	if x.dir == "" {
		return nil, false
	}
	b, err := os.ReadFile(x.path(id))
	if err != nil {
		return nil, false
	}
	var r Record
	if json.Unmarshal(b, &r) != nil || r.SessionID != id {
		return nil, false
	}
	return &r, true
}

// Delete removes a record; unknown ids are fine.
func (x *index) Delete(id string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.mem, id)
	if x.dir == "" {
		return nil
	}
	if err := os.Remove(x.path(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

func (x *index) all() []*Record {
	x.mu.Lock()
	defer x.mu.Unlock()
	seen := map[string]*Record{}
	for id, r := range x.mem {
		seen[id] = r
	}
	if x.dir != "" {
		files, _ := filepath.Glob(filepath.Join(x.dir, "sessions", "*.json"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			var r Record
			if json.Unmarshal(b, &r) == nil && r.SessionID != "" && seen[r.SessionID] == nil {
				seen[r.SessionID] = &r
			}
		}
	}
	out := make([]*Record, 0, len(seen))
	for _, r := range seen {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.After(out[j].UpdatedAt)
		}
		return out[i].SessionID < out[j].SessionID
	})
	return out
}

// List returns one page of sessions, newest first, optionally for one cwd.
func (x *index) List(cwd, cursor string) (schema.ListSessionsResponse, error) {
	start := 0
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n < 0 {
			return schema.ListSessionsResponse{}, jsonrpc.NewError(schema.CodeInvalidParams, "invalid cursor", map[string]any{"cursor": cursor})
		}
		start = n
	}
	var match []*Record
	for _, r := range x.all() {
		if cwd == "" || filepath.Clean(r.Cwd) == filepath.Clean(cwd) {
			match = append(match, r)
		}
	}
	resp := schema.ListSessionsResponse{Sessions: []schema.SessionInfo{}}
	for i := start; i < len(match) && i < start+listPageSize; i++ {
		r := match[i]
		resp.Sessions = append(resp.Sessions, schema.SessionInfo{SessionID: r.SessionID, Cwd: r.Cwd, Title: r.Title, UpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339)})
	}
	if start+listPageSize < len(match) {
		resp.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(start + listPageSize)))
	}
	return resp, nil
}
