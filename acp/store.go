package acp

import (
	"encoding/json"

	"github.com/hubdev/hub/internal/transcript"
)

// Store is hub acp's session index, for the commands that read it outside
// a server (hub sessions).
type Store struct{ x *index }

// OpenStore opens the index under stateDir.
func OpenStore(stateDir string) *Store { return &Store{x: newIndex(stateDir)} }

// Sessions are every recorded session, newest first.
func (s *Store) Sessions() []*Record { return s.x.all() }

// Get returns one session's metadata.
func (s *Store) Get(id string) (*Record, bool) { return s.x.Get(id) }

// Delete removes a session's files.
func (s *Store) Delete(id string) error { return s.x.Delete(id) }

// Records are one session as the one conversation record: its metadata,
// then its history, for transcript.Markdown; ok is false when unknown.
func (s *Store) Records(id string) (recs []transcript.Record, ok bool) {
	rec, ok := s.x.Get(id)
	if !ok {
		return nil, false
	}
	meta := transcript.Meta{ID: rec.SessionID, Agent: rec.Agent, Cwd: rec.Cwd, Model: rec.Model, Title: rec.Title, Created: rec.UpdatedAt}
	recs = []transcript.Record{{Type: transcript.TypeSession, Session: &meta}}
	for _, u := range s.x.History(id) {
		if b, err := json.Marshal(u); err == nil {
			recs = append(recs, transcript.Record{Type: transcript.TypeUpdate, Update: b})
		}
	}
	return recs, true
}
