package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse_BadFileIsOneLineWithFileAndLine(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"syntax", "default_agent = \"claude\"\nbad = = 1\n", "cfg.toml:2"},
		{"type", "[agents.claude]\ncommand = 3\n", "command"},
		{"acp without command", "[agents.goose]\nprotocol = \"acp\"\n", "agents.goose.command"},
		{"unknown protocol", "[agents.goose]\nprotocol = \"mcp\"\ncommand = \"goose\"\n", "agents.goose.protocol"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("cfg.toml", []byte(tc.src))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("want ErrInvalid, got %v", err)
			}
			if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q should be one line containing %q", err, tc.want)
			}
		})
	}
}

func TestParse_CommandStringOrArray(t *testing.T) {
	c, err := Parse("c.toml", []byte(`
[agents.a]
command = "/usr/bin/goose"
args = ["acp"]
protocol = "acp"
[agents.b]
command = ["opencode", "acp"]
protocol = "acp"
env = { FOO = "bar" }
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Agents["a"].Argv(), " "); got != "/usr/bin/goose acp" {
		t.Fatalf("a: %q", got)
	}
	if got := strings.Join(c.Agents["b"].Argv(), " "); got != "opencode acp" {
		t.Fatalf("b: %q", got)
	}
	if c.Agents["b"].Env["FOO"] != "bar" {
		t.Fatal("env lost")
	}
}

func TestAgentConfig_IsACP(t *testing.T) {
	cmd := Command{"x"}
	tests := []struct {
		name    string
		a       AgentConfig
		builtin bool
		want    bool
	}{
		{"explicit acp", AgentConfig{Protocol: "acp", Command: cmd}, false, true},
		{"explicit acp replaces a built-in", AgentConfig{Protocol: "acp", Command: cmd}, true, true},
		{"pasted Zed custom entry", AgentConfig{Type: "custom", Command: cmd}, false, true},
		{"pasted JetBrains entry", AgentConfig{Command: cmd}, false, true},
		{"command override of a built-in", AgentConfig{Command: cmd}, true, false},
		{"Zed registry entry", AgentConfig{Type: "registry", Command: cmd}, false, false},
		{"no command", AgentConfig{Type: "custom"}, false, false},
		{"disabled", AgentConfig{Protocol: "acp", Command: cmd, Disabled: true}, false, false},
	}
	for _, tt := range tests {
		if got := tt.a.IsACP(tt.builtin); got != tt.want {
			t.Errorf("%s: IsACP = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParse_UnknownKeyWarns(t *testing.T) {
	c, err := Parse("c.toml", []byte("defualt_agent = \"x\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "defualt_agent") {
		t.Fatalf("warnings %v", c.Warnings)
	}
}

func TestLoad_ProjectOverridesUser(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	must(t, os.MkdirAll(filepath.Join(home, "hub"), 0o755))
	must(t, os.WriteFile(filepath.Join(home, "hub", "config.toml"), []byte("default_agent = \"codex\"\n[agents.claude]\nmodel = \"opus\"\n"), 0o644))
	proj := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(proj, ".hub"), 0o755))
	must(t, os.WriteFile(filepath.Join(proj, ".hub", "config.toml"), []byte("default_agent = \"claude\"\n"), 0o644))
	c, err := Load(proj, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.DefaultAgent != "claude" || c.Agents["claude"].Model != "opus" || len(c.Files) != 2 {
		t.Fatalf("merged %+v", c)
	}
}

// writeTree creates files (slash paths relative to root, "" content for a
// directory).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if content == "" {
			must(t, os.MkdirAll(p, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func TestProjectDirs_StopAtRepositoryRoot(t *testing.T) {
	tests := []struct {
		name  string
		tree  map[string]string
		cwd   string
		want  []string
		whole bool // no .git: the walk reaches the filesystem root
	}{
		{name: "cwd is the repo root", tree: map[string]string{"repo/.git/HEAD": "ref"}, cwd: "repo", want: []string{"repo"}},
		{name: "nested dir walks up to the repo root", tree: map[string]string{"repo/.git/HEAD": "ref", "repo/a/b": ""},
			cwd: "repo/a/b", want: []string{"repo/a/b", "repo/a", "repo"}},
		{name: "a .git file (worktree) marks the root", tree: map[string]string{"repo/.git/HEAD": "ref", "repo/wt/.git": "gitdir: x", "repo/wt/sub": ""},
			cwd: "repo/wt/sub", want: []string{"repo/wt/sub", "repo/wt"}},
		{name: "no repository", tree: map[string]string{"plain/a": ""}, cwd: "plain/a", want: []string{"plain/a", "plain"}, whole: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.tree)
			got := ProjectDirs(filepath.Join(root, filepath.FromSlash(tc.cwd)))
			for i, w := range tc.want {
				if i >= len(got) || got[i] != filepath.Join(root, filepath.FromSlash(w)) {
					t.Fatalf("ProjectDirs = %v, want it to start with %v under %s", got, tc.want, root)
				}
			}
			if last := got[len(got)-1]; tc.whole && last != filepath.Dir(last) {
				t.Errorf("walk without .git ended at %s, want the filesystem root", last)
			}
			if !tc.whole && len(got) != len(tc.want) {
				t.Errorf("ProjectDirs = %v, want %d dirs ending at the repo root", got, len(tc.want))
			}
		})
	}
}

func TestLoad_ProjectFilesFromRepoRootToCwdNearestWins(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".hub/config.toml":            "default_agent = \"outside\"\n[log]\nfile = \"outside.log\"\n",
		"repo/.git/HEAD":              "ref",
		"repo/.hub/config.toml":       "default_agent = \"codex\"\n[log]\nlevel = \"debug\"\n[agents.claude]\nmodel = \"opus\"\n",
		"repo/svc/.hub/config.toml":   "default_agent = \"claude\"\n",
		"repo/svc/deep/dir/keep.txt":  "x",
		"repo/other/.hub/config.toml": "default_agent = \"gemini\"\n",
	})
	c, err := Load(filepath.Join(root, "repo", "svc", "deep", "dir"), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.DefaultAgent != "claude" {
		t.Errorf("default_agent = %q, want the nearest file's claude", c.DefaultAgent)
	}
	if c.Log.Level != "debug" || c.Agents["claude"].Model != "opus" {
		t.Errorf("repo-root settings lost: log %+v, agents %+v", c.Log, c.Agents)
	}
	if c.Log.File != "" {
		t.Errorf("log.file = %q read from above the repository root", c.Log.File)
	}
	want := []string{filepath.Join(root, "repo", ".hub", "config.toml"), filepath.Join(root, "repo", "svc", ".hub", "config.toml")}
	if strings.Join(c.Files, "\n") != strings.Join(want, "\n") {
		t.Errorf("files read = %v, want %v", c.Files, want)
	}
}

func TestLoad_ExplicitMissingFileFails(t *testing.T) {
	_, err := Load(t.TempDir(), filepath.Join(t.TempDir(), "nope.toml"))
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("got %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestAgentConfig_OverFieldByField(t *testing.T) {
	base := AgentConfig{Command: Command{"opencode"}, Args: []string{"acp"}, Env: map[string]string{"A": "1", "B": "1"}}
	tests := []struct {
		name     string
		user     AgentConfig
		wantArgv string
		wantEnv  map[string]string
	}{
		{"nothing set keeps the entry", AgentConfig{}, "opencode acp", map[string]string{"A": "1", "B": "1"}},
		{"a program path keeps the args", AgentConfig{Command: Command{"/opt/oc"}}, "/opt/oc acp", nil},
		{"a command array is the whole argv", AgentConfig{Command: Command{"node", "/x/cli.js"}}, "node /x/cli.js", nil},
		{"args replace args", AgentConfig{Args: []string{"acp", "--print-logs"}}, "opencode acp --print-logs", nil},
		{"env merges, the user's values win", AgentConfig{Env: map[string]string{"B": "2", "C": "3"}}, "opencode acp", map[string]string{"A": "1", "B": "2", "C": "3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.user.Over(base)
			if argv := strings.Join(got.Argv(), " "); argv != tt.wantArgv {
				t.Errorf("argv = %q, want %q", argv, tt.wantArgv)
			}
			if tt.wantEnv != nil && !reflect.DeepEqual(got.Env, tt.wantEnv) {
				t.Errorf("env = %v, want %v", got.Env, tt.wantEnv)
			}
		})
	}
	if base.Env["B"] != "1" {
		t.Fatal("Over changed the entry's env")
	}
}

// An entry without a command runs the agent's default program with the
// entry's args; a configured command replaces the program and its leading
// args, and the default slice is never written through.
func TestAgentConfig_ArgvOrDefaultProgram(t *testing.T) {
	def := []string{"gemini", "--acp"}
	tests := []struct {
		name string
		ac   AgentConfig
		want string
	}{
		{"default", AgentConfig{}, "gemini --acp"},
		{"default with args", AgentConfig{Args: []string{"--debug"}}, "gemini --acp --debug"},
		{"command", AgentConfig{Command: Command{"/opt/g"}, Args: []string{"--x"}}, "/opt/g --x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(tt.ac.ArgvOr(def...), " "); got != tt.want {
				t.Errorf("argv = %q, want %q", got, tt.want)
			}
			tt.ac.ArgvOr(def[:1]...) // room for the args behind it: they must not land in def
			if def[1] != "--acp" {
				t.Fatalf("ArgvOr wrote into the default program: %q", def)
			}
		})
	}
	opts := AgentConfig{Options: map[string]any{"a": "x", "b": 1}}
	if opts.Option("a") != "x" || opts.Option("b") != "" || opts.Option("c") != "" {
		t.Fatal("Option reads only string options")
	}
}

func TestParse_EnabledFalseDisables(t *testing.T) {
	c, err := Parse("t.toml", []byte("[agents.opencode]\nenabled = false\n[agents.kilo]\nenabled = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Agents["opencode"].Disabled || c.Agents["kilo"].Disabled {
		t.Fatalf("opencode disabled %v, kilo disabled %v", c.Agents["opencode"].Disabled, c.Agents["kilo"].Disabled)
	}
}
