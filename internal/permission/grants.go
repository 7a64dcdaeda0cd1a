package permission

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/safefile"
)

var (
	ErrNoGrant = errors.New("no such grant")
	// ErrGrantsCorrupt: hub reports the file and never overwrites it.
	ErrGrantsCorrupt = errors.New("grants file is corrupt")
	// ErrGrantsLocked: another hub held the grants file's lock too long.
	ErrGrantsLocked = errors.New("grants file is locked")
)

// AnyProject is the project of a user-wide grant.
const AnyProject = "*"

// Grant is an "always allow" kept beyond the session: Agent may run what Tool and Scope cover
// (as AlwaysKey) in Project, until Expires.
type Grant struct {
	ID      string    `json:"id"`
	Project string    `json:"project"` // project root, or AnyProject
	Agent   string    `json:"agent,omitempty"`
	Tool    string    `json:"tool"`
	Scope   string    `json:"scope,omitempty"` // AlwaysKey without the tool
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
}

// Key is the AlwaysKey the grant covers.
func (g Grant) Key() string {
	if g.Scope == "" {
		return g.Tool
	}
	return g.Tool + "\x00" + g.Scope
}

// Covers is what the grant allows, as a user reads it.
func (g Grant) Covers() string {
	scope, repo, _ := strings.Cut(g.Scope, repoSep)
	switch {
	case g.Scope == "":
		return "`" + g.Tool + "`"
	case strings.HasPrefix(g.Scope, "path="):
		return g.Tool + " on `" + g.What() + "`"
	case repo != "":
		return "`" + Grant{Scope: scope}.What() + "` in the repository " + strings.Split(repo, " #")[0] + " (its hooks as they are)"
	}
	return "`" + g.What() + "`"
}

// What is the grant's scope alone: a command ("…" for its other arguments) and the repository
// it runs git in, a file, or "(any call)".
func (g Grant) What() string {
	if scope, repo, ok := strings.Cut(g.Scope, repoSep); ok {
		return Grant{Scope: scope}.What() + " (in " + strings.Split(repo, " #")[0] + ")"
	}
	switch {
	case g.Scope == "":
		return "(any call)"
	case strings.HasPrefix(g.Scope, "path="):
		return strings.TrimPrefix(g.Scope, "path=")
	case strings.HasPrefix(g.Scope, "="):
		return strings.TrimPrefix(g.Scope, "=")
	}
	return g.Scope + " …"
}

func splitKey(key string) (tool, scope string) {
	tool, scope, _ = strings.Cut(key, "\x00")
	return tool, scope
}

func GrantsFile(stateDir string) string { return filepath.Join(stateDir, "grants.json") }

// Grants is the durable grant store: one JSON file, rewritten atomically under a lock, re-read
// before every change so two hubs do not lose each other's grants. Expired grants are dropped
// whenever the file is written.
type Grants struct {
	path string
	now  func() time.Time
}

// OpenGrants returns the store at path; now is its clock (nil: time.Now).
func OpenGrants(path string, now func() time.Time) *Grants {
	if now == nil {
		now = time.Now
	}
	return &Grants{path: path, now: now}
}

type grantsFile struct {
	Version int     `json:"version"`
	Grants  []Grant `json:"grants"`
}

// List returns the live grants, by project then age.
func (g *Grants) List() ([]Grant, error) {
	live, err := g.read()
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(live, func(a, b Grant) int {
		return cmp.Or(strings.Compare(a.Project, b.Project), a.Created.Compare(b.Created))
	})
	return live, nil
}

// Match returns the live grant, of project or user-wide, that lets agent run what key covers.
func (g *Grants) Match(project, agent, key string) (Grant, bool, error) {
	live, err := g.read()
	if err != nil {
		return Grant{}, false, err
	}
	for _, gr := range live {
		if (gr.Project == project || gr.Project == AnyProject) && (gr.Agent == "" || gr.Agent == agent) && gr.Key() == key {
			return gr, true, nil
		}
	}
	return Grant{}, false, nil
}

// Add stores gr and returns it with its id. A live grant of the same project, agent and scope
// is renewed instead: same id, the new expiry.
func (g *Grants) Add(gr Grant) (Grant, error) {
	gr.Created = g.now().UTC()
	gr.Expires = gr.Expires.UTC()
	err := g.update(func(list []Grant) ([]Grant, error) {
		if i := slices.IndexFunc(list, func(old Grant) bool {
			return old.Project == gr.Project && old.Agent == gr.Agent && old.Key() == gr.Key()
		}); i >= 0 {
			gr.ID = list[i].ID
			list[i] = gr
			return list, nil
		}
		id, err := newGrantID(list)
		if err != nil {
			return nil, err
		}
		gr.ID = id
		return append(list, gr), nil
	})
	return gr, err
}

func (g *Grants) Revoke(id string) error {
	return g.update(func(list []Grant) ([]Grant, error) {
		i := slices.IndexFunc(list, func(gr Grant) bool { return gr.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("%w %q (see 'hub grants list')", ErrNoGrant, id)
		}
		return slices.Delete(list, i, i+1), nil
	})
}

// Clear removes every grant of project ("" for all) and returns how many live ones it removed.
func (g *Grants) Clear(project string) (int, error) {
	n := 0
	err := g.update(func(list []Grant) ([]Grant, error) {
		kept := slices.DeleteFunc(list, func(gr Grant) bool { return project == "" || gr.Project == project })
		n = len(list) - len(kept)
		return kept, nil
	})
	return n, err
}

// read returns the file's live grants.
func (g *Grants) read() ([]Grant, error) {
	b, err := os.ReadFile(g.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read grants: %w", err)
	}
	var f grantsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v (fix it, or remove it to drop every grant)", ErrGrantsCorrupt, g.path, err)
	}
	now := g.now()
	return slices.DeleteFunc(f.Grants, func(gr Grant) bool { return !now.Before(gr.Expires) }), nil
}

// update applies change to the live grants under the lock and writes the result.
func (g *Grants) update(change func([]Grant) ([]Grant, error)) error {
	unlock, err := safefile.Lock(g.path)
	if errors.Is(err, safefile.ErrLocked) {
		return fmt.Errorf("%w: %w", ErrGrantsLocked, err)
	}
	if err != nil {
		return fmt.Errorf("grants: %w", err)
	}
	defer unlock()
	live, err := g.read()
	if err != nil {
		return err
	}
	list, err := change(live)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(grantsFile{Version: 1, Grants: append([]Grant{}, list...)}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode grants: %w", err)
	}
	if err := safefile.WriteAtomic(g.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("grants: %w", err)
	}
	return nil
}

func newGrantID(taken []Grant) (string, error) {
	for {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("grant id: %w", err)
		}
		id := hex.EncodeToString(b[:])
		if !slices.ContainsFunc(taken, func(g Grant) bool { return g.ID == id }) {
			return id, nil
		}
	}
}

// ErrNotGrantable: the service keeps no grants, or no "always" may cover the request.
var ErrNotGrantable = errors.New("cannot keep a grant for this")

type GrantPolicy struct {
	Store    *Grants
	Project  string        // the root of the project the session runs in
	UserWide bool          // new grants cover every project
	Lifetime time.Duration // how long a new grant lasts
	Agent    string        // the agent of requests that name none
}

func (s *Service) UseGrants(p GrantPolicy) {
	s.mu.Lock()
	s.grants = &p
	s.mu.Unlock()
}

func (s *Service) grantPolicy() *GrantPolicy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.grants
}

// granted finds the live grant covering req. An unreadable store grants nothing (Keep reports it).
func (s *Service) granted(req Request) (Grant, bool) {
	p := s.grantPolicy()
	if p == nil || !Coverable(req) {
		return Grant{}, false
	}
	g, ok, err := p.Store.Match(p.Project, cmp.Or(req.Agent, p.Agent), AlwaysKey(req))
	return g, ok && err == nil
}

// GrantOffer names the option that keeps req's "always allow" beyond the session ("Always
// allow `go test …` in this project for 7 days"); ok is false when no grant can be kept.
func (s *Service) GrantOffer(req Request) (name string, ok bool) {
	p := s.grantPolicy()
	if p == nil || !Coverable(req) || req.Tool == "" {
		return "", false
	}
	tool, scope := splitKey(AlwaysKey(req))
	what := Grant{Tool: tool, Scope: scope}.Covers()
	if req.Command == "" && req.Path != "" {
		what = req.Tool + " on `" + relTo(p.Project, req.Path) + "`"
	}
	where := " in this project"
	if p.UserWide {
		where = " in every project"
	}
	return "Always allow " + what + where + " for " + days(p.Lifetime), true
}

// Keep stores a grant for exactly AlwaysKey(req), and remembers it for the session too.
func (s *Service) Keep(req Request) (Grant, error) {
	s.Remember(req, adapters.AllowAlways)
	p := s.grantPolicy()
	if p == nil || !Coverable(req) || req.Tool == "" {
		return Grant{}, ErrNotGrantable
	}
	project := p.Project
	if p.UserWide {
		project = AnyProject
	}
	tool, scope := splitKey(AlwaysKey(req))
	return p.Store.Add(Grant{Project: project, Agent: cmp.Or(req.Agent, p.Agent), Tool: tool, Scope: scope, Expires: p.Store.now().Add(p.Lifetime)})
}

func relTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

func days(d time.Duration) string {
	n := int((d + 12*time.Hour) / (24 * time.Hour))
	if n <= 1 {
		return "1 day"
	}
	return fmt.Sprintf("%d days", n)
}
