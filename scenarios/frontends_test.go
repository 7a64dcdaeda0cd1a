package scenarios

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/bestof"
	"github.com/hubdev/hub/conversation/delegation"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/runner"
	"github.com/hubdev/hub/personas"
)

// world is what one scenario runs in: a workspace holding README
// (committed, when git is on PATH), the agent "first" (the native loop on the row's mock model, its
// transcripts in records, or the row's fake CLI agent) and the fake agent
// "second", which answers "second answered". audit is where front ends
// that keep audit transcripts (config transcripts = true) write them;
// timeout bounds a turn where the front end bounds turns.
type world struct {
	cwd            string
	reg            *adapters.Registry
	records, audit string
	timeout        time.Duration
	hooks          *hooks.Runner // the row's hooks, nil: none
}

const prompt = "do the task"

func newWorld(t *testing.T, sc scenario, retries int) world {
	t.Helper()
	w := world{cwd: workspace(t), reg: adapters.NewRegistry(), records: t.TempDir(), audit: t.TempDir(), timeout: cmp.Or(sc.timeout, hangGuard)}
	var err error
	if w.hooks, err = hooks.New(sc.hooks); err != nil {
		t.Fatal(err)
	}
	name := "first"
	if sc.persona != nil {
		name = "inner" // the persona is "first"
	}
	var first adapters.Adapter
	if sc.cli != nil {
		c := *sc.cli
		c.name = name
		first = &c
	} else {
		srv := mockllm.NewOpenAIServer(sc.model...)
		t.Cleanup(srv.Close)
		first = openai.New(openai.Profile{Name: name, BaseURL: srv.URL, Model: cmp.Or(sc.priced, "mock-model"), APIKey: "k", Stream: true},
			openai.Options{MaxRetries: &retries, TranscriptDir: w.records, IdleTimeout: 10 * time.Second, Hooks: w.hooks})
	}
	w.reg.Register(first)
	if sc.persona != nil {
		w.reg.Register(&personas.Adapter{P: personas.Persona{Name: "first", Description: "d", Permissions: sc.persona, Mode: sc.modes[0], Trusted: true}, Backend: first})
	}
	second := &fake{name: "second", ask: sc.secondAsks, text: "second answered"}
	if sc.modes[1] != "" {
		second.name, second.modes = "second-cli", []adapters.Option{{ID: personas.ModePlan}, {ID: "acceptEdits"}}
		w.reg.Register(&personas.Adapter{P: personas.Persona{Name: "second", Description: "d", Mode: sc.modes[1], Trusted: true}, Backend: second})
	}
	w.reg.Register(second)
	return w
}

// hasGit says whether git is on PATH (it is not under Wine).
func hasGit() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// workspace makes a directory holding README: a repository with one
// commit holding it when git is on PATH, else a plain directory, where
// the digest lists the files the tool calls named.
func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !hasGit() {
		return dir
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "init"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
			"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// outcome is what a front end told about one turn, in common terms.
type outcome struct {
	Stop  string
	Usage *adapters.Usage
	Files []string
	// Answered is the agent whose answer the turn ended with; FellBack
	// why the next agent took the turn over ("" when none did).
	Answered, FellBack string
	// Failure is the class of the failure the front end reported, Error
	// its message.
	Failure conversation.Class
	Error   string
	// Refusals are the refusals it counted or said, one line each.
	Refusals []string
	// AgentSession names the native loop's transcript of the turn.
	AgentSession string
	// Exit is the exit code, -1 for a front end that has none.
	Exit int
	// Text is the agent's text the front end gave out.
	Text string
	// TimedOut says the front end reported the turn as timed out.
	TimedOut bool
	// Asked are the titles of the permission requests the editor was
	// asked (hub acp only).
	Asked []string
}

// frontEnd runs one turn of prompt on agent "first" in w and says what
// it told. fallback says whether it has a fallback list ("second");
// needsGit, when set, why it cannot run where git is not on PATH.
type frontEnd struct {
	name     string
	fallback bool
	turn     func(t *testing.T, w world) outcome
	needsGit string
}

var frontEnds = []frontEnd{
	{"hub acp", true, acpTurn, ""},
	{"hub run", true, runTurn, ""},
	{"hub mcp delegate", true, delegateTurn, ""},
	{"/compare candidate", false, compareTurn, "each /compare candidate runs in a git worktree"},
}

// acpTurn is one prompt in a hub acp session whose editor allows every
// request once.
func acpTurn(t *testing.T, w world) outcome {
	state := t.TempDir()
	e := startEditor(t, acp.Options{Registry: w.reg, DefaultAgent: "first", Logger: zerolog.Nop(), StateDir: state,
		Fallback: map[string][]string{"first": {"second"}}, ProviderTimeout: time.Millisecond, CancelGrace: time.Second, TranscriptDir: w.audit,
		Settings: func(string) (acp.Settings, error) { return acp.Settings{Hooks: w.hooks}, nil }})
	sid := e.open(w.cwd)
	r, err := e.prompt(sid, prompt)
	text := e.text()
	e.mu.Lock()
	o := outcome{Stop: r.StopReason, Answered: "first", Exit: -1, Text: text, Asked: slices.Clone(e.asked)}
	e.mu.Unlock()
	if u := r.Usage; u != nil {
		o.Usage = &adapters.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: e.cost()}
	}
	if err != nil {
		o.Failure, o.Error = failureOf(err.Error()), err.Error()
	}
	if m := acpFallback.FindStringSubmatch(text); m != nil {
		o.FellBack, o.Answered = m[1], m[2]
	}
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "hub refused") {
			o.Refusals = append(o.Refusals, l)
		}
	}
	if rec, ok := acp.OpenStore(state).Get(sid); ok {
		o.Files, o.AgentSession = rec.Files, rec.AgentSessionID
	}
	return o
}

var acpFallback = regexp.MustCompile(`hub: (.+); continuing with (\w+)\.`)

// runTurn is hub run --approve all --fallback second.
func runTurn(t *testing.T, w world) outcome {
	var out, errb bytes.Buffer
	s := runner.Run(context.Background(), runner.Options{Registry: w.reg, Agent: "first", Fallback: []string{"second"}, Cwd: w.cwd,
		Prompt: prompt, Approve: conversation.ApproveAll, Format: runner.FormatJSONL, Stdout: &out, Stderr: &errb, Timeout: w.timeout,
		Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir(), ProviderTimeout: time.Millisecond, AuditDir: w.audit, Hooks: w.hooks})
	t.Logf("hub run exit %d: %s", s.ExitCode, s.Error)
	return fromSummary(s)
}

func fromSummary(s runner.Summary) outcome {
	o := outcome{Stop: string(s.StopReason), Usage: s.Usage, Answered: s.Agent, AgentSession: s.AgentSessionID, Exit: s.ExitCode, Text: s.Answer,
		TimedOut: s.ExitCode == conversation.ExitTimeout}
	if len(s.Attempts) > 1 {
		o.FellBack = s.Attempts[0].Fallback
	}
	if s.ExitCode != conversation.ExitOK {
		o.Failure, o.Error = failureOf(s.Error), s.Error
	}
	for _, f := range s.FilesChanged {
		o.Files = append(o.Files, f.Path)
	}
	for _, d := range s.Denied {
		o.Refusals = append(o.Refusals, d.Reason)
	}
	return o
}

// delegateTurn is a hub mcp delegate turn under --approve all, first's
// fallback list "second".
func delegateTurn(t *testing.T, w world) outcome {
	d := delegation.New(delegation.Options{Registry: w.reg, Cwd: w.cwd, Approve: conversation.ApproveAll, Log: zerolog.Nop(), Timeout: w.timeout, AuditDir: w.audit,
		Fallback: map[string][]string{"first": {"second"}}, ProviderTimeout: time.Millisecond, Hooks: w.hooks})
	defer d.Close()
	r, err := d.Delegate(context.Background(), delegation.Request{Agent: "first", Prompt: prompt}, nil)
	o := outcome{Stop: r.StopReason, Usage: r.Usage, Files: r.FilesChanged, Answered: r.Agent, Refusals: r.Denied, AgentSession: r.AgentSessionID, Exit: -1, Text: r.Answer}
	if len(r.FellBack) > 0 {
		o.FellBack = r.FellBack[0]
	}
	switch {
	case err != nil:
		o.Failure, o.Error = failureOf(err.Error()), err.Error()
	case r.Error != "":
		o.Failure, o.Error = failureOf(r.Error), r.Error
	}
	o.TimedOut = strings.Contains(r.Error, context.DeadlineExceeded.Error()) // "the delegate turn ended early: context deadline exceeded"
	return o
}

// compareTurn is one candidate of hub run --agents first --approve all
// (/compare runs a candidate the same way, bounded by no --timeout): what
// its lines say.
func compareTurn(t *testing.T, w world) outcome {
	var out bytes.Buffer
	run := runner.Options{Registry: w.reg, Approve: conversation.ApproveAll, Log: zerolog.Nop(), Timeout: w.timeout, AuditDir: w.audit, Hooks: w.hooks}
	s := runner.BestOf(context.Background(), bestof.Options{Candidate: bestof.CandidateRun{Registry: w.reg, Cwd: w.cwd, Prompt: prompt,
		Log: zerolog.Nop()}, Run: run.RunCandidate, Agents: []string{"first"}, StopAll: func() {}},
		runner.FormatJSONL, &out, io.Discard)
	var text strings.Builder
	for _, l := range strings.Split(out.String(), "\n") {
		var s runner.Summary
		var line struct{ Type, Text string }
		switch {
		case json.Unmarshal([]byte(l), &line) != nil:
		case line.Type == "text":
			text.WriteString(line.Text)
		case line.Type == "candidate" && json.Unmarshal([]byte(l), &s) == nil:
			o := fromSummary(s)
			o.Text = text.String()
			return o
		}
	}
	t.Fatalf("no candidate summary line (exit %d: %s):\n%s", s.ExitCode, s.Error, out.String())
	return outcome{}
}

// failureOf is the class of a failure as its message tells it.
func failureOf(msg string) conversation.Class {
	return conversation.Classify(&adapters.ErrorInfo{Message: msg, Fatal: true})
}

// fake is a CLI agent as hub sees one: it says text, and asks permission
// for the shell command ask (when set) first, saying whether it ran.
type fake struct {
	name, ask, text string
	modes           []adapters.Option
}

func (a *fake) Name() string { return a.name }
func (a *fake) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Permissions: true, Modes: a.modes}
}
func (a *fake) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	return &fakeSession{a: a, o: o}, nil
}

type fakeSession struct {
	a *fake
	o adapters.SessionOptions
}

func (s *fakeSession) ID() string   { return s.a.name + "-1" }
func (s *fakeSession) Close() error { return nil }
func (s *fakeSession) Prompt(ctx context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	ch := make(chan adapters.Event)
	go func() {
		defer close(ch)
		if s.a.ask != "" {
			tool := adapters.ToolCall{ID: "t1", Name: "Bash", Title: s.a.ask, Kind: adapters.KindExecute,
				RawInput: json.RawMessage(`{"command":"` + s.a.ask + `"}`)}
			p := adapters.NewPermissionRequest(tool, nil)
			ch <- adapters.Event{Type: adapters.EventPermission, Permission: p}
			if d := <-p.Decision(); d.Allowed() {
				ch <- adapters.Event{Type: adapters.EventText, Text: "ran it. "}
			}
		}
		ch <- adapters.Event{Type: adapters.EventText, Text: s.a.text}
		ch <- adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
	}()
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{Permission: s.o.Permission, Grace: s.o.CancelGrace})
}
