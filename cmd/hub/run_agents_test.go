package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
)

// bestOfWorld isolates hub with the native agent mock on srv, puts git
// back on PATH and makes a repository with one commit to run best of N in.
func bestOfWorld(t *testing.T, srv *mockllm.OpenAIServer) (root, repo string) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("best of N needs git, which is not on PATH")
	}
	root = isolate(t)
	t.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+filepath.Dir(git))
	addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n", srv.URL))
	repo = t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "base"}} {
		if out, err := exec.Command(git, append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root, repo
}

// candidateLine is a best of N candidate's own summary line.
type candidateLine struct {
	Type, Budget string
	ExitCode     int
	Denied       []struct{ Reason string }
}

func candidateSummaries(out string) []candidateLine {
	var cs []candidateLine
	for _, l := range strings.Split(out, "\n") {
		var c candidateLine
		if json.Unmarshal([]byte(l), &c) == nil && c.Type == "candidate" {
			cs = append(cs, c)
		}
	}
	return cs
}

// Every hub run flag that makes sense for one candidate reaches each
// candidate's run, as it would a plain run: its budgets (its own), its
// --allow-tool patterns, its --skill and its system prompt.
func TestRunAgents_FlagsReachEachCandidate(t *testing.T) {
	write := mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"a.txt","content":"x"}`}}}
	ok := mockllm.OpenAITurn{Text: "ok"}
	tests := []struct {
		name   string
		args   []string
		turns  []mockllm.OpenAITurn // every candidate's: a turn with a tool call runs one candidate, else two
		exit   int                  // each candidate's
		budget string               // each candidate's summary's
		denied int
		sent   string // in every request's messages
	}{
		{name: "max-tokens", args: []string{"--max-tokens", "1"}, turns: []mockllm.OpenAITurn{ok}, exit: 7, budget: "tokens"},
		{name: "max-turns", args: []string{"--max-turns", "1", "--approve", "all"}, turns: []mockllm.OpenAITurn{write, write, ok}, exit: 7, budget: "turns"},
		{name: "allow-tool", args: []string{"--approve", "none", "--allow-tool", "Write"}, turns: []mockllm.OpenAITurn{write, ok}},
		{name: "without allow-tool", args: []string{"--approve", "none"}, turns: []mockllm.OpenAITurn{write, ok}, exit: 6, denied: 1},
		{name: "skill", args: []string{"--skill", "house-style"}, turns: []mockllm.OpenAITurn{ok}, sent: "Indent with tabs, always."},
		{name: "model", args: []string{"--model", "m2"}, turns: []mockllm.OpenAITurn{ok}, sent: `"model":"m2"`},
		{name: "system-prompt", args: []string{"--system-prompt", "You are a careful reviewer."}, turns: []mockllm.OpenAITurn{ok},
			sent: "You are a careful reviewer."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, turns := 1, tt.turns
			if len(turns) == 1 { // one request each: the candidates may take the turns in any order
				n, turns = 2, append(turns, turns...)
			}
			srv := mockllm.NewOpenAIServer(turns...)
			defer srv.Close()
			root, repo := bestOfWorld(t, srv)
			writeFile(t, filepath.Join(root, "xdg_config_home", "hub", "skills", "house-style", "SKILL.md"),
				"---\nname: house-style\ndescription: How code is written here.\n---\nIndent with tabs, always.\n")
			args := append([]string{"run", "--agents", "mock", "--n", fmt.Sprint(n), "--cwd", repo, "--format", "jsonl"}, tt.args...)
			_, out, errOut := hub(t, nil, append(args, "write a.txt")...)
			cs := candidateSummaries(out)
			if len(cs) != n {
				t.Fatalf("%d candidate summaries, want %d:\n%s\nstderr: %s", len(cs), n, out, errOut)
			}
			for _, c := range cs {
				if c.ExitCode != tt.exit || c.Budget != tt.budget || len(c.Denied) != tt.denied {
					t.Fatalf("candidate exit %d budget %q denied %+v, want exit %d budget %q %d denied\nstderr: %s",
						c.ExitCode, c.Budget, c.Denied, tt.exit, tt.budget, tt.denied, errOut)
				}
			}
			for _, r := range srv.Requests() {
				if tt.sent != "" && !strings.Contains(string(r.Body), tt.sent) {
					t.Fatalf("a request lacks %q: %s", tt.sent, r.Body)
				}
			}
		})
	}
}

// A flag that cannot apply to N candidates at once, or that only best of
// N takes, is a usage error before any candidate starts.
func TestRunAgents_RefusedFlagsStartNoCandidate(t *testing.T) {
	tests := []struct {
		name string
		args []string
		flag string // named on stderr
	}{
		{"resume", []string{"--agents", "mock", "--resume", "abc"}, "--resume"},
		{"continue", []string{"--agents", "mock", "--continue"}, "--continue"},
		{"fork", []string{"--agents", "mock", "--fork"}, "--fork"},
		{"fallback", []string{"--agents", "mock", "--fallback", "mock"}, "--fallback"},
		{"agent", []string{"--agents", "mock", "--agent", "mock"}, "--agent "},
		{"apply without --agents", []string{"--agent", "mock", "--apply"}, "--apply"},
		{"n without --agents", []string{"--agent", "mock", "--n", "2"}, "--n"},
		{"check without --agents", []string{"--agent", "mock", "--check", "true"}, "--check"},
		{"unknown skill", []string{"--agents", "mock", "--skill", "nope"}, "--skill"},
		{"bad allow-tool", []string{"--agents", "mock", "--allow-tool", "Bash("}, "--allow-tool"},
		{"negative max-turns", []string{"--agents", "mock", "--max-turns", "-1"}, "--max-turns"},
		{"bad approve", []string{"--agents", "mock", "--approve", "some"}, "--approve"},
		{"model of one agent for two", []string{"--agents", "mock,claude", "--model", "m2"}, "--model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ok"})
			defer srv.Close()
			_, repo := bestOfWorld(t, srv)
			code, out, errOut := hub(t, nil, append(append([]string{"run", "--cwd", repo}, tt.args...), "hi")...)
			if code != 2 || out != "" || !strings.Contains(errOut, tt.flag) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d stdout %q stderr %q, want exit 2 and one line naming %s", code, out, errOut, tt.flag)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("%d model requests: a candidate started", n)
			}
			if b, _ := exec.Command("git", "-C", repo, "branch", "--list", "hub/*").Output(); len(b) != 0 {
				t.Fatalf("branches left: %s", b)
			}
		})
	}
}

// An agent an untrusted project file redefines is refused as a candidate,
// as it is as --agent: no candidate runs what the user did not trust.
func TestRunAgents_UntrustedProjectAgentIsRefused(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ok"})
	defer srv.Close()
	_, repo := bestOfWorld(t, srv)
	writeFile(t, filepath.Join(repo, ".hub", "config.toml"), "[agents.mock]\ncommand = [\"evil-mock\"]\n")
	chdir(t, repo)
	code, out, errOut := hub(t, nil, "run", "--agents", "mock", "hi")
	if code != 2 || out != "" || !strings.Contains(errOut, "hub trust") {
		t.Fatalf("exit %d stdout %q stderr %q, want exit 2 naming 'hub trust'", code, out, errOut)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d model requests: the candidate ran", n)
	}
}
