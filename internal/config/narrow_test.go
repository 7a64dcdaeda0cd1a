package config

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/safefile"
)

// TestMain lets a test re-execute this binary as a `hub trust` writer.
func TestMain(m *testing.M) {
	if f := os.Getenv("HUB_TEST_TRUST_FILE"); f != "" {
		if err := TrustFiles([]string{f}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testRepo makes a user config dir, a state dir and a repository; it
// writes user and project (the repository's .hub/config.toml) when given.
func testRepo(t *testing.T, user, project string) (repo string) {
	t.Helper()
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "cfg"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	repo = filepath.Join(root, "repo")
	for _, d := range []string{filepath.Join(root, "cfg", "hub"), filepath.Join(repo, ".git"), filepath.Join(repo, ".hub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, s := range map[string]string{filepath.Join(root, "cfg", "hub", "config.toml"): user, ProjectPath(repo): project} {
		if s == "" {
			continue
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

// An untrusted project's mode is judged against the user's own: it may
// only narrow it, whatever the mode is on its own.
func TestLoad_UntrustedModeOnlyNarrowsTheUsers(t *testing.T) {
	tests := []struct{ user, project, want string }{
		{"read-only", "default", "read-only"},
		{"plan", "default", "plan"},
		{"plan", "", "plan"},
		{"read-only", "plan", "read-only"},
		{"default", "acceptEdits", "default"},
		{"", "bypassPermissions", ""},
		{"", "default", "default"},
		{"", "read-only", "read-only"},
		{"default", "plan", "plan"},
		{"acceptEdits", "default", "default"},
	}
	for _, tt := range tests {
		t.Run(tt.user+"<-"+tt.project, func(t *testing.T) {
			user := "[agents.claude]\nmodel = \"u\"\n"
			if tt.user != "" {
				user += fmt.Sprintf("mode = %q\n", tt.user)
			}
			project := "[agents.claude]\nmodel = \"p\"\n"
			if tt.project != "" {
				project += fmt.Sprintf("mode = %q\n", tt.project)
			}
			c, err := Load(testRepo(t, user, project), "")
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Agents["claude"].Mode; got != tt.want {
				t.Errorf("mode %q, want %q", got, tt.want)
			}
			if c.Agents["claude"].Model != "p" {
				t.Errorf("model %q: the project's model should be kept", c.Agents["claude"].Model)
			}
			ignored := slices.ContainsFunc(c.Ignored, func(ig Ignored) bool { return strings.HasPrefix(ig.Key, "agents.claude.mode") })
			if want := tt.want != tt.project && tt.project != ""; ignored != want {
				t.Errorf("mode recorded as ignored: %v, want %v (%v)", ignored, want, c.Ignored)
			}
		})
	}
}

// An untrusted project file may not hide what hub does in it: it cannot
// turn the user's audit transcripts off, nor quiet the log below warn,
// where hub says which of its keys it ignored; it may make either louder.
func TestLoad_UntrustedProjectCannotHideItself(t *testing.T) {
	tests := []struct {
		name, user, project string
		transcripts         bool
		level               string
	}{
		{"transcripts off", "transcripts = true\n", "transcripts = false\n", true, ""},
		{"transcripts on", "", "transcripts = true\n", true, ""},
		{"log error", "[log]\nlevel = \"info\"\n", "[log]\nlevel = \"error\"\n", false, "info"},
		{"log disabled", "", "[log]\nlevel = \"Disabled\"\n", false, ""},
		{"log numeric", "", "[log]\nlevel = \"100\"\n", false, ""},
		{"log debug", "", "[log]\nlevel = \"debug\"\n", false, "debug"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(testRepo(t, tt.user, tt.project), "")
			if err != nil {
				t.Fatal(err)
			}
			if got := c.AuditDir() != ""; got != tt.transcripts {
				t.Errorf("transcripts on: %v, want %v", got, tt.transcripts)
			}
			if c.Log.Level != tt.level {
				t.Errorf("log level %q, want %q", c.Log.Level, tt.level)
			}
		})
	}
}

// An untrusted preset is refused when it changes the endpoint, as
// base_url is.
func TestLoad_UntrustedPresetCannotRepointAnEndpoint(t *testing.T) {
	tests := []struct {
		name, user, project, provider, want string
	}{
		{"re-points openai", "", "[providers.openai]\npreset = \"lmstudio\"\n", "openai", ""},
		{"re-points the user's profile", "[providers.work]\npreset = \"openrouter\"\n", "[providers.work]\npreset = \"lmstudio\"\n", "work", "openrouter"},
		{"new profile", "", "[providers.evil]\npreset = \"lmstudio\"\nmodel = \"m\"\n", "evil", ""},
		{"the user's own preset", "[providers.work]\npreset = \"openrouter\"\n", "[providers.work]\npreset = \"openrouter\"\nmodel = \"m\"\n", "work", "openrouter"},
		{"its own name", "", "[providers.ollama]\npreset = \"ollama\"\n", "ollama", "ollama"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(testRepo(t, tt.user, tt.project), "")
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Providers[tt.provider].Preset; got != tt.want {
				t.Errorf("preset %q, want %q", got, tt.want)
			}
		})
	}
}

// A trusted project file overlays the user's agent entry field by field:
// command and env the project does not set stay; env merges by key.
func TestLoad_TrustedProjectOverlaysTheUsersAgent(t *testing.T) {
	repo := testRepo(t, "[agents.fake]\ncommand = [\"/opt/fake\", \"--acp\"]\nenv = { A = \"1\", B = \"2\" }\nmode = \"plan\"\n",
		"[agents.fake]\nmodel = \"m\"\nenv = { B = \"3\" }\n")
	c, err := LoadTrusting(repo, "", true)
	if err != nil {
		t.Fatal(err)
	}
	fake := c.Agents["fake"]
	if !slices.Equal(fake.Command, Command{"/opt/fake", "--acp"}) || fake.Model != "m" || fake.Mode != "plan" ||
		fake.Env["A"] != "1" || fake.Env["B"] != "3" || len(fake.Env) != 2 {
		t.Errorf("fake %+v: want the user's command and mode, the project's model, env A=1 B=3", fake)
	}
}

// The same holds for a provider profile: the project's model, the user's
// endpoint and key; headers merge by key.
func TestLoad_TrustedProjectOverlaysTheUsersProvider(t *testing.T) {
	user := "[providers.work]\nbase_url = \"https://llm.internal/v1\"\napi_key_env = \"WORK_KEY\"\nheaders = { A = \"1\", B = \"2\" }\n"
	repo := testRepo(t, user, "[providers.work]\nmodel = \"m\"\nheaders = { B = \"3\" }\n")
	c, err := LoadTrusting(repo, "", true)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Providers["work"]
	if p.BaseURL != "https://llm.internal/v1" || p.APIKeyEnv != "WORK_KEY" || p.Model != "m" || p.Headers["A"] != "1" || p.Headers["B"] != "3" {
		t.Errorf("work %+v: want the user's endpoint and key, the project's model, headers A=1 B=3", p)
	}
}

// A project config file that is a FIFO or a symlink to /dev/zero is an
// error at once: never a hang or a read until memory runs out.
func TestLoad_ProjectConfigThatIsNoRegularFileFails(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and /dev/zero are Unix files")
	}
	for _, kind := range []string{"fifo", "dev-zero"} {
		t.Run(kind, func(t *testing.T) {
			repo := testRepo(t, "", "")
			makeSpecial(t, kind, ProjectPath(repo))
			done := make(chan error, 1)
			go func() { _, err := Load(repo, ""); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, safefile.ErrNotRegular) || !strings.Contains(err.Error(), ProjectPath(repo)) {
					t.Errorf("Load = %v, want an error naming the file as not regular", err)
				}
			case <-time.After(30 * time.Second): // a hang, not a timing assertion
				t.Fatal("Load blocked on the file")
			}
			if _, err := Trust(repo); !errors.Is(err, safefile.ErrNotRegular) {
				t.Errorf("Trust = %v, want ErrNotRegular", err)
			}
		})
	}
}

// Concurrent `hub trust` runs, in goroutines and in processes, keep every
// entry.
func TestTrustFiles_ConcurrentWritersKeepEveryEntry(t *testing.T) {
	repo := testRepo(t, "", "")
	const n = 20
	files := make([]string, n)
	for i := range files {
		files[i] = filepath.Join(repo, fmt.Sprintf("f%d.toml", i))
		if err := os.WriteFile(files[i], []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				errs <- TrustFiles([]string{f})
				return
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "HUB_TEST_TRUST_FILE="+f)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer process: %v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if !IsTrusted(f, data) {
			t.Errorf("%s lost from the trust store", f)
		}
	}
}
