package permission

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/safefile"
)

// clock is an injectable time that tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

const week = 7 * 24 * time.Hour

// session is a fresh Service (as a new hub process or session builds it)
// keeping grants in path for project and agent "claude".
func session(t *testing.T, path string, c *clock, project string, userWide bool, rules ...config.PermissionRule) *Service {
	t.Helper()
	s := mustNew(t, rules...)
	s.UseGrants(GrantPolicy{Store: OpenGrants(path, c.now), Project: project, UserWide: userWide, Lifetime: week, Agent: "claude"})
	return s
}

func bash(cmd string) Request {
	return Request{Tool: "Bash", Kind: adapters.KindExecute, Command: cmd, Cwd: projP}
}

func granted(s *Service, req Request) bool {
	v, ok := s.Decide(req)
	return ok && v.Decision == Allow && strings.Contains(v.Reason, "grant")
}

func TestGrants_RoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "grants.json")
	c := newClock()
	st := OpenGrants(path, c.now)
	a, err := st.Add(Grant{Project: projP, Agent: "claude", Tool: "Bash", Scope: "go test", Expires: c.now().Add(week)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Add(Grant{Project: AnyProject, Tool: "write_file", Scope: "path=/p/a.go", Expires: c.now().Add(week)})
	if err != nil {
		t.Fatal(err)
	}
	list, err := OpenGrants(path, c.now).List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0] != b || list[1] != a {
		t.Fatalf("read back %+v, want %+v then %+v", list, b, a)
	}
	if a.ID == "" || a.ID == b.ID || !a.Created.Equal(c.now()) {
		t.Fatalf("ids %q %q, created %v", a.ID, b.ID, a.Created)
	}
	again, err := st.Add(Grant{Project: projP, Agent: "claude", Tool: "Bash", Scope: "go test", Expires: c.now().Add(2 * week)})
	if err != nil || again.ID != a.ID {
		t.Fatalf("granting the same again: %+v %v, want grant %s renewed", again, err, a.ID)
	}
	if err := st.Revoke("nope"); !errors.Is(err, ErrNoGrant) {
		t.Fatalf("revoke of an unknown id: %v", err)
	}
	if err := st.Revoke(b.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := st.List(); len(list) != 1 || list[0].ID != a.ID || !list[0].Expires.Equal(c.now().Add(2*week)) {
		t.Fatalf("after revoke: %+v", list)
	}
	if n, err := st.Clear(projOther); n != 0 || err != nil {
		t.Fatalf("clear of another project removed %d (%v)", n, err)
	}
	if n, err := st.Clear(projP); n != 1 || err != nil {
		t.Fatalf("clear removed %d (%v)", n, err)
	}
}

// A grant kept in one session allows the same scope in a new Service on
// the same file (hub restarted), and nothing once it expired.
func TestGrants_SurviveRestartAndExpire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	c := newClock()
	first := session(t, path, c, projP, false)
	g, err := first.Keep(bash("go test ./a"))
	if err != nil {
		t.Fatal(err)
	}
	if !g.Expires.Equal(c.now().Add(week)) || g.Project != projP || g.Agent != "claude" {
		t.Fatalf("kept %+v", g)
	}
	restarted := session(t, path, c, projP, false)
	if !granted(restarted, bash("go test ./b")) {
		t.Fatal("the grant did not survive a new service")
	}
	if v, _ := restarted.Decide(bash("go test ./b")); !strings.Contains(v.Reason, g.ID) {
		t.Errorf("the reason does not name the grant to revoke: %q", v.Reason)
	}
	c.advance(week - time.Second)
	if !granted(session(t, path, c, projP, false), bash("go test ./b")) {
		t.Fatal("expired a second early")
	}
	c.advance(time.Second)
	if _, ok := session(t, path, c, projP, false).Decide(bash("go test ./b")); ok {
		t.Fatal("an expired grant still decides")
	}
	if _, err := session(t, path, c, projP, false).Keep(bash("make")); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), g.ID) {
		t.Fatalf("the expired grant was not pruned on write: %s", raw)
	}
}

// A grant covers what the session's "always" covers, never more: another
// subcommand, new flags, a compound command or another destructive
// target is asked again.
func TestGrants_BroaderCommandAskedAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	c := newClock()
	s := session(t, path, c, projP, false)
	for _, cmd := range []string{"go test ./a", "rm -rf build"} {
		if _, err := s.Keep(bash(cmd)); err != nil {
			t.Fatal(err)
		}
	}
	later := session(t, path, c, projP, false)
	tests := []struct {
		cmd  string
		want bool
	}{
		{"go test ./b", true},
		{"bash -lc 'go test ./c'", true},
		{"rm -rf build", true},
		{"go test -exec x ./b", false},
		{"go build ./...", false},
		{"go test ./a && rm -rf /tmp/x", false},
		{"rm -rf build2", false},
		{"rm -rf build src", false},
	}
	for _, tt := range tests {
		if got := granted(later, bash(tt.cmd)); got != tt.want {
			t.Errorf("%q granted=%v, want %v", tt.cmd, got, tt.want)
		}
	}
	if _, err := later.Keep(bash("$(echo ls) -la")); !errors.Is(err, ErrNotGrantable) {
		t.Errorf("a command hub cannot read was kept: %v", err)
	}
	if _, ok := later.GrantOffer(bash("$(echo ls) -la")); ok {
		t.Error("a command hub cannot read was offered as a grant")
	}
}

// The hard deny list and deny rules win over every grant, even one whose
// scope names the very command.
func TestGrants_HardDenyWins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	c := newClock()
	st := OpenGrants(path, c.now)
	envWrite := Request{Tool: "write_file", Kind: adapters.KindEdit, Path: "/p/.env"}
	for _, req := range []Request{bash("rm -rf /"), bash("git push --force origin main"), envWrite, bash("go generate ./...")} {
		tool, scope := splitKey(AlwaysKey(req))
		if _, err := st.Add(Grant{Project: AnyProject, Tool: tool, Scope: scope, Expires: c.now().Add(week)}); err != nil {
			t.Fatal(err)
		}
	}
	s := session(t, path, c, projP, false, config.PermissionRule{Tool: "bash", Command: "go generate", Decision: "deny"})
	for _, req := range []Request{bash("rm -rf /"), bash("git push --force origin main"), envWrite} {
		if v, _ := s.Decide(req); v.Decision != Deny || !v.Hard {
			t.Errorf("%+v: %+v, want a hard deny", req, v)
		}
	}
	if v, _ := s.Decide(bash("go generate ./...")); v.Decision != Deny {
		t.Errorf("a deny rule lost to a grant: %+v", v)
	}
}

// A project grant holds in its project only, for the agent it was given
// to; a user-wide one in every project.
func TestGrants_ProjectAndAgentScoping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	c := newClock()
	if _, err := session(t, path, c, projP, false).Keep(bash("go test ./a")); err != nil {
		t.Fatal(err)
	}
	if _, err := session(t, path, c, projP, true).Keep(bash("npm run lint")); err != nil {
		t.Fatal(err)
	}
	other := session(t, path, c, projQ, false)
	if granted(other, bash("go test ./a")) {
		t.Error("a project grant holds in another project")
	}
	if !granted(other, bash("npm run lint")) {
		t.Error("a user-wide grant does not hold in another project")
	}
	codex := bash("go test ./a")
	codex.Agent = "codex"
	if granted(session(t, path, c, projP, false), codex) {
		t.Error("a grant given to claude holds for codex")
	}
	s := session(t, path, c, projP, false)
	s.Remember(bash("go test ./a"), adapters.RejectAlways)
	if v, _ := s.Decide(bash("go test ./a")); v.Decision != Deny {
		t.Errorf("this session's reject always lost to a grant: %+v", v)
	}
}

// A grant for a git command, even a user-wide one, holds in its
// repository only, while its hooks are unchanged; the offer and the list
// name the repository.
func TestGrants_GitCommandHoldsInItsRepositoryOnly(t *testing.T) {
	fakeHome(t)
	path, c, ws := filepath.Join(t.TempDir(), "grants.json"), newClock(), t.TempDir()
	a, b := filepath.Join(ws, "a"), filepath.Join(ws, "b")
	hookedRepo(t, a, "#!/bin/sh\nmake lint\n")
	hookedRepo(t, b, "#!/bin/sh\n./.payload\n")
	in := func(dir string) Request {
		return Request{Tool: "Bash", Kind: adapters.KindExecute, Command: "git commit -m wip", Cwd: dir}
	}
	s := session(t, path, c, a, true)
	if offer, _ := s.GrantOffer(in(a)); !strings.Contains(offer, "`git commit -m …` in the repository ") || !strings.Contains(offer, "/a/.git (its hooks") {
		t.Errorf("offer %q names no repository", offer)
	}
	g, err := s.Keep(in(a))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(g.What(), "git commit -m … (in ") || !strings.HasSuffix(g.What(), "/a/.git)") {
		t.Errorf("the grant lists as %q", g.What())
	}
	other := session(t, path, c, b, false)
	if !granted(other, in(filepath.Join(a, "sub"))) || granted(other, in(b)) {
		t.Errorf("a user-wide git commit grant of a: in a/sub %v, in b %v; want true, false", granted(other, in(filepath.Join(a, "sub"))), granted(other, in(b)))
	}
	write(t, filepath.Join(a, ".git", "hooks", "pre-commit"), "#!/bin/sh\n./.payload\n")
	if granted(other, in(a)) {
		t.Error("the grant holds after a's hook changed")
	}
}

// A corrupt grants file is reported, never overwritten; meanwhile nothing
// is granted (the user is asked).
func TestGrants_CorruptFileReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	junk := []byte("{not json")
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	c := newClock()
	s := session(t, path, c, projP, false)
	if _, err := s.Keep(bash("go test ./a")); !errors.Is(err, ErrGrantsCorrupt) {
		t.Fatalf("keep: %v", err)
	}
	if _, err := OpenGrants(path, c.now).List(); !errors.Is(err, ErrGrantsCorrupt) {
		t.Fatalf("list: %v", err)
	}
	if raw, _ := os.ReadFile(path); string(raw) != string(junk) {
		t.Fatalf("the corrupt file was rewritten: %q", raw)
	}
	if _, ok := session(t, path, c, projP, false).Decide(bash("go test ./a")); ok {
		t.Fatal("a grant decided from a corrupt file")
	}
}

// Two stores on one file (two hub processes) granting at once lose none
// of each other's grants.
func TestGrants_ConcurrentWritersKeepAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	c := newClock()
	stores := []*Grants{OpenGrants(path, c.now), OpenGrants(path, c.now)}
	var wg sync.WaitGroup
	for i, st := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				if _, err := st.Add(Grant{Project: projP, Tool: "Bash", Scope: "cmd" + string(rune('a'+i)) + string(rune('a'+j)),
					Expires: c.now().Add(week)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if list, err := OpenGrants(path, c.now).List(); err != nil || len(list) != 20 {
		t.Fatalf("%d grants (%v), want 20", len(list), err)
	}
	release, err := safefile.Hold(path + ".lock") // the file stays; its OS lock must not
	if err != nil {
		t.Fatalf("lock left held: %v", err)
	}
	release()
}

// The option name says what the grant covers, where and how long.
func TestGrants_OfferNamesWhatIsGranted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	c := newClock()
	project := filepath.Join(t.TempDir(), "p")
	edit := Request{Tool: "write_file", Kind: adapters.KindEdit, Path: filepath.Join(project, "internal", "x.go")}
	tests := []struct {
		req      Request
		userWide bool
		want     string
	}{
		{bash("go test ./..."), false, "Always allow `go test …` in this project for 7 days"},
		{bash("rm -rf build"), true, "Always allow `rm -rf build` in every project for 7 days"},
		{edit, false, "Always allow write_file on `internal/x.go` in this project for 7 days"},
	}
	for _, tt := range tests {
		got, ok := session(t, path, c, project, tt.userWide).GrantOffer(tt.req)
		if !ok || got != tt.want {
			t.Errorf("offer %q (%v), want %q", got, ok, tt.want)
		}
	}
	if _, ok := mustNew(t).GrantOffer(bash("go test ./...")); ok {
		t.Error("a service without grants offers one")
	}
}

// Project directories as the OS spells absolute paths: "/p" has no drive
// on Windows, where hub's paths always do.
var projP, projQ, projOther = osAbs("/p"), osAbs("/q"), osAbs("/other")

func osAbs(p string) string {
	if runtime.GOOS == "windows" {
		return `C:` + filepath.FromSlash(p)
	}
	return p
}
