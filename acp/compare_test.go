package acp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/bestof"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// compareRepo makes a git repository with one commit.
func compareRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("/compare makes git worktrees, and git is not installed here")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "base"}} {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// gitLines runs git in dir and returns its output's lines.
func gitLines(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		return strings.Split(s, "\n")
	}
	return nil
}

// nativeAgent registers a native agent on a scripted mock model.
func nativeAgent(t *testing.T, reg *adapters.Registry, name string, turns ...mockllm.OpenAITurn) *mockllm.OpenAIServer {
	mock := mockllm.NewOpenAIServer(turns...)
	t.Cleanup(mock.Close)
	reg.Register(openai.New(openai.Profile{Name: name, BaseURL: mock.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: time.Minute}))
	return mock
}

// resultWriter is a candidate that writes result.txt with content.
func resultWriter(t *testing.T, reg *adapters.Registry, name, content string) {
	nativeAgent(t, reg, name,
		mockllm.OpenAITurn{Text: "Writing.", ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file",
			Args: `{"path":"result.txt","content":"` + content + `\n"}`}}},
		mockllm.OpenAITurn{Text: "Wrote " + content + "."})
}

func compareClient(t *testing.T, register func(*adapters.Registry)) *tclient {
	reg := adapters.NewRegistry()
	reg.Register(replay.New(""))
	register(reg)
	return startClient(t, Options{Registry: reg, DefaultAgent: "replay", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Second,
		Candidate: candidate})
}

// candidate runs a /compare candidate as hub run's runner.Candidate does
// (cmd/hub wires that one; acp may not import it): one turn of the agent
// in the candidate's worktree, every side effect put to the editor through
// the rules; cancelled, it is interrupted.
func candidate(ctx context.Context, c bestof.CandidateRun) bestof.CandidateResult {
	a, err := c.Registry.Get(c.Agent)
	if err != nil {
		return bestof.CandidateResult{ExitCode: conversation.ExitUsage, Error: err.Error()}
	}
	gate, err := conversation.NewGate(conversation.GateOptions{Rules: c.Rules, Cwd: c.Cwd, Agent: c.Agent, Answerer: c.Ask})
	if err != nil {
		return bestof.CandidateResult{ExitCode: conversation.ExitUsage, Error: err.Error()}
	}
	sess, err := a.Start(ctx, adapters.SessionOptions{Cwd: c.Cwd, Access: adapters.AccessAskFirst, Permission: gate.Ask})
	if err != nil {
		return bestof.CandidateResult{ExitCode: conversation.ExitAgentError, Error: err.Error()}
	}
	defer sess.Close()
	_, err = conversation.RunTurn(ctx, conversation.TurnSpec{Agent: c.Agent, Session: sess, Prompt: adapters.TextPrompt(c.Prompt), Workspace: c.Cwd, Gate: gate})
	switch {
	case ctx.Err() != nil:
		return bestof.CandidateResult{ExitCode: conversation.ExitInterrupted, Error: "interrupted"}
	case err != nil:
		return bestof.CandidateResult{ExitCode: conversation.ExitAgentError, Error: err.Error()}
	}
	return bestof.CandidateResult{ExitCode: conversation.ExitOK}
}

// cards is each candidate tool call's titles and statuses, in order.
type card struct {
	titles, statuses []string
	text             string // the last content
}

func compareCards(ups []schema.SessionUpdate) map[string]*card {
	cards := map[string]*card{}
	for _, u := range ups {
		var id, title, status string
		switch {
		case u.ToolCall != nil:
			id, title, status = u.ToolCall.ToolCallID, u.ToolCall.Title, u.ToolCall.Status
			cards[id] = &card{}
		case u.ToolCallUpdate != nil:
			id, title, status = u.ToolCallUpdate.ToolCallID, u.ToolCallUpdate.Title, u.ToolCallUpdate.Status
		default:
			continue
		}
		c := cards[id]
		if c == nil {
			continue // an update before its tool call: caught by the lookups below
		}
		if u.ToolCallUpdate != nil && len(u.ToolCallUpdate.Content) > 0 && u.ToolCallUpdate.Content[0].Content != nil {
			c.text = u.ToolCallUpdate.Content[0].Content.Text
		}
		if title != "" && (len(c.titles) == 0 || c.titles[len(c.titles)-1] != title) {
			c.titles = append(c.titles, title)
		}
		if status != "" && (len(c.statuses) == 0 || c.statuses[len(c.statuses)-1] != status) {
			c.statuses = append(c.statuses, status)
		}
	}
	return cards
}

// cardOf finds the candidate's tool call by its title.
func cardOf(t *testing.T, cards map[string]*card, name string) (string, *card) {
	t.Helper()
	for id, c := range cards {
		if len(c.titles) > 0 && strings.HasPrefix(c.titles[0], name+": ") && strings.HasSuffix(id, "/"+name) {
			return id, c
		}
	}
	t.Fatalf("no tool call for %s in %v", name, cards)
	return "", nil
}

// /compare runs both candidates as tool calls of the turn, asks the
// editor for their permissions naming them, names the winner, and applies
// it when the user allows it, or keeps it on its branch when the user
// rejects it or changed the tree meanwhile.
func TestCompare_RunsCandidatesAndAppliesTheWinner(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		edit         bool // the user changes the tree before answering
		apply        bool
		why          string
	}{
		{name: "apply", answer: "allow_once", apply: true},
		{name: "keep", answer: "reject_once", why: "Not applied."},
		{name: "tree changed", answer: "allow_once", edit: true, why: "your working tree changed"},
	} {
		apply := tc.apply
		t.Run(tc.name, func(t *testing.T) {
			repo := compareRepo(t)
			c := compareClient(t, func(reg *adapters.Registry) {
				resultWriter(t, reg, "bad", "fail")
				resultWriter(t, reg, "good", "pass")
			})
			var mu sync.Mutex
			var asked []schema.RequestPermissionRequest
			c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
				mu.Lock()
				asked = append(asked, p)
				mu.Unlock()
				if !strings.HasSuffix(p.ToolCall.ToolCallID, "/apply") {
					return selectKind("allow_once")(p)
				}
				if tc.edit {
					if err := os.WriteFile(filepath.Join(repo, "mine.txt"), []byte("mine\n"), 0o644); err != nil {
						t.Error(err)
					}
				}
				return selectKind(tc.answer)(p)
			}
			c.init(schema.ClientCapabilities{})
			sid := c.newSession(repo)
			stop := c.prompt(sid, "/compare bad,good --check '"+proctest.ShellCommand("has:result.txt:pass")+"' -- write result.txt")
			if stop != schema.StopEndTurn {
				t.Fatalf("stop reason %s", stop)
			}
			ups := c.updates(sid)
			cards := compareCards(ups)
			badID, bad := cardOf(t, cards, "bad-1")
			goodID, good := cardOf(t, cards, "good-1")
			for _, tc := range []struct {
				c    *card
				want string
			}{{bad, "pending in_progress failed"}, {good, "pending in_progress completed"}} {
				if got := strings.Join(tc.c.statuses, " "); got != tc.want {
					t.Errorf("statuses %q, want %q (titles %q, content %q)", got, tc.want, tc.c.titles, tc.c.text)
				}
			}
			if last := good.titles[len(good.titles)-1]; last != "good-1: completed, check passed" {
				t.Errorf("good-1's last title %q", last)
			}
			mu.Lock()
			var candidateAsks, applyAsks []schema.RequestPermissionRequest
			for _, p := range asked {
				if strings.HasSuffix(p.ToolCall.ToolCallID, "/apply") {
					applyAsks = append(applyAsks, p)
				} else {
					candidateAsks = append(candidateAsks, p)
				}
			}
			mu.Unlock()
			var askedOn []string
			for _, p := range candidateAsks {
				askedOn = append(askedOn, p.ToolCall.ToolCallID)
				if p.ToolCall.ToolCallID == goodID && !strings.HasPrefix(p.ToolCall.Title, "good-1: ") {
					t.Errorf("good-1's request titled %q", p.ToolCall.Title)
				}
			}
			if !slices.Contains(askedOn, badID) || !slices.Contains(askedOn, goodID) {
				t.Fatalf("candidate requests on %v, want on %s and %s", askedOn, badID, goodID)
			}
			if len(applyAsks) != 1 || !strings.Contains(applyAsks[0].ToolCall.Title, "good-1") {
				t.Fatalf("apply questions %+v, want one about good-1", applyAsks)
			}
			text := agentText(ups)
			if !strings.Contains(text, "good-1 wins") || !strings.Contains(text, "Ranking: ") {
				t.Fatalf("final message %q does not name the winner and the rule", text)
			}
			got, err := os.ReadFile(filepath.Join(repo, "result.txt"))
			branches := gitLines(t, repo, "branch", "--list", "hub/*")
			if apply && (err != nil || string(got) != "pass\n" || len(branches) != 0) {
				t.Fatalf("allowed: result.txt %q (%v), branches %v", got, err, branches)
			}
			if !apply && (err == nil || len(branches) != 1 || !strings.HasSuffix(branches[0], "/good-1") ||
				!strings.Contains(text, tc.why) || !strings.Contains(text, "git diff")) {
				t.Fatalf("rejected: result.txt %q in the tree, branches %v, message %q", got, branches, text)
			}
			if wt := gitLines(t, repo, "worktree", "list"); len(wt) != 1 {
				t.Fatalf("worktrees left: %v", wt)
			}
		})
	}
}

// A /compare's candidates are the session's spending: the session's cost
// (usage_update's, cumulative) counts what each spent, and the turns after
// it count on from there.
func TestCompare_CandidatesCostTheSession(t *testing.T) {
	repo := compareRepo(t)
	reg := adapters.NewRegistry()
	reg.Register(replay.New(""))
	resultWriter(t, reg, "a", "x")
	resultWriter(t, reg, "b", "y")
	spent := func(ctx context.Context, c bestof.CandidateRun) bestof.CandidateResult {
		r, cost := candidate(ctx, c), 0.25
		r.Usage = &adapters.Usage{InputTokens: 10, CostUSD: &cost}
		return r
	}
	c := startClient(t, Options{Registry: reg, DefaultAgent: "replay", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Second,
		Candidate: spent})
	c.perm = selectKind("reject_once")
	c.init(schema.ClientCapabilities{})
	sid := c.newSession(repo)
	c.prompt(sid, "/compare a,b -- write result.txt")
	var costs []float64
	for _, u := range c.updates(sid) {
		if u.Usage != nil && u.Usage.Cost != nil {
			costs = append(costs, u.Usage.Cost.Amount)
		}
	}
	if len(costs) == 0 || costs[len(costs)-1] != 0.5 {
		t.Fatalf("the session's cost after the comparison: %v, want 0.5 (two candidates at 0.25)", costs)
	}
}

// session/cancel cancels every candidate, leaves no worktree or branch,
// and the prompt ends cancelled.
func TestCompare_CancelLeavesNoWorktree(t *testing.T) {
	repo := compareRepo(t)
	var mocks []*mockllm.OpenAIServer
	c := compareClient(t, func(reg *adapters.Registry) {
		for _, name := range []string{"slow", "slower"} {
			mocks = append(mocks, nativeAgent(t, reg, name, mockllm.OpenAITurn{Hang: true}))
		}
	})
	c.init(schema.ClientCapabilities{})
	sid := c.newSession(repo)
	done := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("/compare slow slower -- wait")}})
	c.waitFor(t, func() bool { return len(mocks[0].Requests()) > 0 && len(mocks[1].Requests()) > 0 }) // both wait on their model
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	if r := c.wait(done); r.Error != nil || !strings.Contains(string(r.Result), `"cancelled"`) {
		t.Fatalf("prompt answered %s %v", r.Result, r.Error)
	}
	if wt, br := gitLines(t, repo, "worktree", "list"), gitLines(t, repo, "branch", "--list", "hub/*"); len(wt) != 1 || len(br) != 0 {
		t.Fatalf("left behind: worktrees %v, branches %v", wt, br)
	}
	for id, cd := range compareCards(c.updates(sid)) {
		if s := cd.statuses[len(cd.statuses)-1]; s != "failed" {
			t.Errorf("%s ended %s, want failed", id, s)
		}
	}
}

// A candidate runs as the session would: its skill /command expanded, its
// MCP servers, and the model the user picked for the session's agent, which
// only that agent's candidates get (a model name is one agent's).
func TestCompare_CandidatesRunAsTheSession(t *testing.T) {
	repo := compareRepo(t)
	var mu sync.Mutex
	ran := map[string]bestof.CandidateRun{}
	reg := adapters.NewRegistry()
	reg.Register(replay.New(""))
	reg.Register(named{replay.New(""), "other"})
	c := startClient(t, Options{Registry: reg, DefaultAgent: "replay", Logger: zerolog.Nop(), StateDir: t.TempDir(), Skills: fakeSkills{},
		Candidate: func(_ context.Context, r bestof.CandidateRun) bestof.CandidateResult {
			mu.Lock()
			defer mu.Unlock()
			ran[r.Name] = r
			return bestof.CandidateResult{ExitCode: conversation.ExitOK}
		}})
	c.init(schema.ClientCapabilities{})
	var r schema.NewSessionResponse
	c.must("session/new", schema.NewSessionRequest{Cwd: repo, McpServers: []schema.McpServer{{Name: "db", Command: "db-server"}}}, &r)
	c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: r.SessionID, ConfigID: "model", Value: json.RawMessage(`"replay-smart"`)}, nil)
	c.prompt(r.SessionID, "/compare replay other -- /review the diff")
	mu.Lock()
	defer mu.Unlock()
	for name, model := range map[string]string{"replay-1": "replay-smart", "other-1": ""} {
		got := ran[name]
		if got.Model != model || got.Prompt != "EXPANDED review: the diff" || len(got.MCPServers) != 1 || got.MCPServers[0].Name != "db" {
			t.Errorf("%s ran with model %q, prompt %q, MCP servers %+v; want model %q, the skill expanded and db", name, got.Model, got.Prompt, got.MCPServers, model)
		}
	}
}

// Usage errors answer as an agent message with one line and end the turn;
// /compare is offered only where it can run.
func TestCompare_UsageErrors(t *testing.T) {
	repo := compareRepo(t)
	c := compareClient(t, func(reg *adapters.Registry) { resultWriter(t, reg, "good", "pass") })
	c.init(schema.ClientCapabilities{})
	for _, tc := range []struct {
		name, cwd, line, want string
	}{
		{"not a git repository", t.TempDir(), "/compare good -- x", "not a git repository"},
		{"unknown agent", repo, "/compare good,nope -- x", `unknown agent "nope"`},
		{"missing --", repo, "/compare good write it", `put "--"`},
		{"no agent", repo, "/compare -- x", "name at least one agent"},
		{"bad --n", repo, "/compare good --n 0 -- x", "--n takes a positive number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sid := c.newSession(tc.cwd)
			if stop := c.prompt(sid, tc.line); stop != schema.StopEndTurn {
				t.Fatalf("stop %s", stop)
			}
			text := agentText(c.updates(sid))
			if !strings.HasPrefix(text, "/compare: ") || !strings.Contains(text, tc.want) || strings.Count(strings.TrimSpace(text), "\n") != 0 {
				t.Fatalf("answer %q, want one line about %q", text, tc.want)
			}
		})
	}
	offered := func(cwd string) bool {
		sid := c.newSession(cwd)
		var found bool
		c.waitFor(t, func() bool {
			for _, u := range c.updates(sid) {
				if u.AvailableCommands != nil {
					found = slices.ContainsFunc(u.AvailableCommands.AvailableCommands, func(a schema.AvailableCommand) bool { return a.Name == "compare" })
					return true
				}
			}
			return cwd != repo // outside a repository nothing is announced
		})
		return found
	}
	if !offered(repo) || offered(t.TempDir()) {
		t.Fatal("/compare must be offered in a git repository, and only there")
	}
}

func TestParseCompare(t *testing.T) {
	for _, tc := range []struct {
		in      string
		agents  string
		n       int
		check   string
		prompt  string
		wantErr string
	}{
		{in: " claude codex -- fix the bug", agents: "claude codex", n: 1, prompt: "fix the bug"},
		{in: ` claude,codex --n 2 --check "go test ./..." -- fix -- it`, agents: "claude codex", n: 2, check: "go test ./...", prompt: "fix -- it"},
		{in: ` a --check='make  x' --n=3 --`, wantErr: "prompt"},
		{in: ` a "--" b`, wantErr: `put "--"`},
		{in: ` a --jobs 2 -- x`, wantErr: "unknown option --jobs"},
		{in: ` a --check -- x`, wantErr: "--check needs a value"},
	} {
		r, err := parseCompare(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || strings.Join(r.Agents, " ") != tc.agents || r.N != tc.n || r.Check != tc.check || r.Candidate.Prompt != tc.prompt {
			t.Errorf("%q: %+v %v", tc.in, r, err)
		}
	}
}
