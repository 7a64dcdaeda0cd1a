// Package scenarios runs one scenario table through every front end (hub
// acp, hub run, a hub mcp delegate, a /compare candidate) on the mock
// model and fake agents: each row asserts the same outcome everywhere,
// so the front ends tell the same truth about the same turn (issue 35).
package scenarios

import (
	"cmp"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc/proctest"
	transcripts "github.com/hubdev/hub/internal/transcript"
)

// scenario is one row: the first agent's model, and what every front end
// must tell of the turn.
type scenario struct {
	name  string
	model []mockllm.OpenAITurn
	// priced, when set, names the mock model after a priced one.
	priced string
	// cli, when set, is the first agent instead of the native loop.
	cli *fake
	// persona, when set, has the first agent run as a persona with these
	// permission rules.
	persona []config.PermissionRule
	// modes, when set, are the modes of the persona and of "second",
	// then a persona of that mode on an agent that has both.
	modes [2]string
	// secondAsks, when set, is the shell command the fallback agent
	// "second" asks to run before it answers.
	secondAsks string
	check      func(t *testing.T, fe frontEnd, w world, o outcome)
	// timeout bounds the turn where the front end bounds turns (default
	// hangGuard).
	timeout time.Duration
	// bugs are the front ends known to tell otherwise, with what they
	// tell; their cells are skipped saying so until the bug is fixed.
	bugs map[string]string
	// without are the front ends that lack what the row is about, and why.
	without map[string]string
	// needsGit, when set, says why the row cannot run where git is not
	// on PATH.
	needsGit string
	// hooks, when set, are the command hooks of every front end and agent.
	hooks map[string][]config.HookConfig
}

func bash(command string) mockllm.OpenAITurn {
	return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"` + command + `"}`}}}
}

var requestUsage = &mockllm.OpenAIUsage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}

func scenarios() []scenario {
	hardDenied := []mockllm.OpenAITurn{bash("rm -rf ~"), {Text: "I will not."}}
	readme := mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "read_file", Args: `{"path":"README"}`}}}
	return []scenario{
		{name: "usage is summed over a two-request turn", model: []mockllm.OpenAITurn{
			{ToolCalls: []mockllm.OpenAIToolCall{{Name: "read_file", Args: `{"path":"README"}`}}, Usage: requestUsage},
			{Text: "done", Usage: requestUsage}},
			check: func(t *testing.T, _ frontEnd, _ world, o outcome) {
				if o.Usage == nil || o.Usage.InputTokens != 20 || o.Usage.OutputTokens != 10 {
					t.Errorf("usage %+v, want 20 in / 10 out", o.Usage)
				}
			},
		},
		{name: "the native loop's cost is priced once, the same everywhere", priced: "gpt-4o", model: []mockllm.OpenAITurn{
			{ToolCalls: []mockllm.OpenAIToolCall{{Name: "read_file", Args: `{"path":"README"}`}}, Usage: requestUsage},
			{Text: "done", Usage: requestUsage}},
			check: func(t *testing.T, _ frontEnd, _ world, o outcome) {
				if want := (20*2.50 + 10*10.00) / 1e6; o.Usage == nil || o.Usage.CostUSD == nil || math.Abs(*o.Usage.CostUSD-want) > 1e-12 {
					t.Errorf("usage %+v, want it to cost $%g", o.Usage, want)
				}
			},
		},
		{name: "finish_reason length is max_tokens", model: []mockllm.OpenAITurn{{Text: "partial answ", FinishReason: "length"}},
			check: stopped(adapters.StopMaxTokens, conversation.ExitMaxTokens)},
		{name: "finish_reason content_filter is refusal", model: []mockllm.OpenAITurn{{Text: "partial answ", FinishReason: "content_filter"}},
			check: stopped(adapters.StopRefusal, conversation.ExitRefusal)},
		// An empty script answers 500 to every request.
		{name: "a provider answering 5xx falls back", model: nil, check: fellBack("first's provider is failing", conversation.ClassProvider)},
		{name: "a provider answering 401 falls back", model: []mockllm.OpenAITurn{{Status: 401}},
			check: fellBack("first is not logged in", conversation.ClassAuth)},
		{name: "a turn past the front end's timeout is a timeout", model: []mockllm.OpenAITurn{{Text: "thinking", Hang: true}},
			timeout: 300 * time.Millisecond,
			check: func(t *testing.T, _ frontEnd, _ world, o outcome) {
				if !o.TimedOut {
					t.Errorf("stop %q exit %d failure %q: not told as timed out", o.Stop, o.Exit, o.Failure)
				}
			},
			without: map[string]string{"hub acp": "hub acp bounds no turn by time; the editor cancels"}},
		// echo more >> README appends in bash, cmd and PowerShell alike.
		{name: "a shell-written file is in the digest", model: []mockllm.OpenAITurn{bash("echo more >> README"), {Text: "Appended."}},
			needsGit: "the workspace's git snapshot finds a file a shell command wrote; the tool call names none",
			check: func(t *testing.T, _ frontEnd, _ world, o outcome) {
				if !slices.Contains(o.Files, "README") {
					t.Errorf("files changed %q, want README", o.Files)
				}
			}},
		// git lists the file from the repository root; without git the
		// digest lists the path the tool call named.
		{name: "a file the agent wrote is in the digest", model: []mockllm.OpenAITurn{
			{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"README","content":"more\n"}`}}}, {Text: "Written."}},
			check: func(t *testing.T, _ frontEnd, w world, o outcome) {
				if !slices.Contains(o.Files, "README") && !slices.Contains(o.Files, filepath.Join(w.cwd, "README")) {
					t.Errorf("files changed %q, want README", o.Files)
				}
			}},
		{name: "a hard-denied call is a refusal counted", model: hardDenied, check: refusedByHardDeny},
		{name: "a CLI agent's hard-denied request is a refusal counted", cli: &fake{ask: "rm -rf ~", text: "done."}, check: refusedByHardDeny},
		{name: "the decision is in the record", model: hardDenied,
			check: func(t *testing.T, _ frontEnd, w world, o outcome) {
				recs, err := transcripts.Read(w.records, o.AgentSession)
				if err != nil {
					t.Fatalf("the native transcript of %q: %v", o.AgentSession, err)
				}
				if !hardDenyIn(recs) {
					t.Errorf("the native transcript does not record the hard deny list's refusal")
				}
			}},
		// A persona's ask rule is asked on every backend, in every shape of
		// the command: the editor answers it; where nobody can (--approve
		// all) it is refused.
		{name: "a persona's ask rule asks a CLI agent's wrapped command", cli: &fake{ask: "bash -c 'git status && git push origin'", text: "done."},
			persona: askPush, check: askedByPersona},
		{name: "a persona's ask rule asks a CLI agent's sudo under env", cli: &fake{ask: "env GIT_TRACE=0 sudo git push; true", text: "done."},
			persona: askPush, check: askedByPersona},
		{name: "a persona's ask rule asks the native loop's chain", model: []mockllm.OpenAITurn{bash("git status; git push"), {Text: "done."}},
			persona: askPush, check: askedByPersona},
		// The agent that takes a persona's turn over runs as the persona:
		// a fallback never widens what the persona narrowed.
		{name: "a persona's ask rule holds on the agent it falls back to", model: nil, persona: askPush, secondAsks: "git push origin",
			check: func(t *testing.T, fe frontEnd, w world, o outcome) {
				switch {
				case !fe.fallback:
					fellBack("", conversation.ClassProvider)(t, fe, w, o)
				case o.Answered != "second":
					t.Errorf("answered by %q (fell back %q), want second", o.Answered, o.FellBack)
				case fe.name == "hub acp" && !slices.Contains(o.Asked, "first: git push origin"):
					t.Errorf("the editor was asked %q, want the persona's rule to ask second's git push", o.Asked)
				default:
					askedByPersona(t, fe, w, o)
				}
			}},
		{name: "a persona's deny rule holds on the agent it falls back to", model: nil, persona: denyPush, secondAsks: "git push origin",
			check: func(t *testing.T, fe frontEnd, w world, o outcome) {
				if !fe.fallback {
					fellBack("", conversation.ClassProvider)(t, fe, w, o)
					return
				}
				if o.Answered != "second" || len(o.Refusals) != 1 || !strings.Contains(o.Refusals[0], "persona first") || strings.Contains(o.Text, "ran it") || (o.Exit >= 0 && o.Exit != conversation.ExitDenied) {
					t.Errorf("answered by %q, refusals %q, exit %d, text %q: want second's git push refused once, naming the persona (exit 6)", o.Answered, o.Refusals, o.Exit, o.Text)
				}
			}},
		// A fallback persona of another mode would run in its own mode
		// (acceptEdits over plan): it is passed over; one of the same
		// mode takes the turn over.
		{name: "a persona's fallback persona of another mode is passed over", model: []mockllm.OpenAITurn{{Status: 401}}, persona: denyPush,
			modes: [2]string{"plan", "acceptEdits"}, check: func(t *testing.T, fe frontEnd, w world, o outcome) {
				if o.Answered == "second" || strings.Contains(o.Text, "second answered") || o.Failure != conversation.ClassAuth {
					t.Errorf("answered by %q (failure %q), text %q: want second passed over and first's auth failure", o.Answered, o.Failure, o.Text)
				}
			}},
		{name: "a persona's fallback persona of its mode takes the turn over", model: []mockllm.OpenAITurn{{Status: 401}}, persona: denyPush,
			modes: [2]string{"plan", "plan"}, check: fellBack("first is not logged in", conversation.ClassAuth)},
		{name: "a persona's ask rule leaves other commands be", cli: &fake{ask: "git status", text: "done."}, persona: askPush,
			check: func(t *testing.T, _ frontEnd, _ world, o outcome) {
				if len(o.Refusals) != 0 || !strings.Contains(o.Text, "ran it") {
					t.Errorf("refusals %q text %q: git status is no git push", o.Refusals, o.Text)
				}
			}},
		{name: "a blocked prompt is told the same everywhere", model: []mockllm.OpenAITurn{{Text: "did the task"}},
			hooks: blockPrompts, check: blocked},
		{name: "a CLI agent's blocked prompt is told the same everywhere", cli: &fake{text: "did the task"},
			hooks: blockPrompts, check: blocked},
		{name: "a call repeated three times is asked, or stopped", model: []mockllm.OpenAITurn{readme, readme, readme, {Text: "done."}},
			check: repeatedAsked},
		// The agent that took the turn over is in the audit record, with
		// its answer; the native first agent's failed attempt in its own.
		{name: "a fallback agent's answer is in the audit record", model: nil,
			check: func(t *testing.T, fe frontEnd, w world, o outcome) {
				if !fe.fallback {
					return
				}
				all, err := transcripts.List(w.audit)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range all { // hub acp's one record names the agent each prompt went to
					recs, _ := transcripts.Read(w.audit, s.ID)
					for agent, r := s.Agent, recs; len(r) > 0; r = r[1:] {
						agent = cmp.Or(r[0].Agent, agent)
						if e := r[0].Event; agent == "second" && e != nil && e.Type == adapters.EventText && strings.Contains(e.Text, "second answered") {
							return
						}
					}
				}
				t.Errorf("none of the %d audit transcripts %+v records second's answer as second's", len(all), all)
			}},
		// With config transcripts = true, every front end keeps an audit
		// transcript of a CLI agent's turn.
		{name: "a CLI agent's decision is in the audit record", cli: &fake{ask: "rm -rf ~", text: "done."},
			check: func(t *testing.T, _ frontEnd, w world, _ outcome) {
				all, err := transcripts.List(w.audit)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range all {
					if recs, err := transcripts.Read(w.audit, s.ID); err == nil && hardDenyIn(recs) {
						return
					}
				}
				t.Errorf("none of the %d audit transcripts records the hard deny list's refusal", len(all))
			}},
	}
}

var askPush, denyPush = []config.PermissionRule{{Tool: "Bash", Command: "git push", Decision: "ask"}},
	[]config.PermissionRule{{Tool: "Bash", Command: "git push", Decision: "deny"}}

var blockPrompts = map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("err:no tasks today\n", "exit:2")}}}

// blocked checks a prompt a UserPromptSubmit hook blocked: the turn
// failed with the hook's reason, told once (as the failure, never as a
// line of the turn), exit 1 where the front end has exit codes, and the
// agent never answered.
func blocked(t *testing.T, _ frontEnd, _ world, o outcome) {
	if !strings.Contains(o.Error, "blocked by a UserPromptSubmit hook: no tasks today") || (o.Exit >= 0 && o.Exit != conversation.ExitAgentError) {
		t.Errorf("error %q exit %d, want the hook's block as the turn's failure (exit 1)", o.Error, o.Exit)
	}
	if strings.Contains(o.Error, "agent answered") {
		t.Errorf("error %q: the agent never got the prompt", o.Error)
	}
	if strings.Contains(o.Text, "no tasks today") || strings.Contains(o.Text, "did the task") {
		t.Errorf("text %q: want neither the block as a line of the turn nor the agent's answer", o.Text)
	}
}

// repeatedAsked checks the native loop's question after one call made
// three times in a row (a read, which runs unasked): the editor's user
// sees it, and lets it continue; where nobody can answer (--approve all)
// the repetition stops, and that is no refusal (no exit 6).
func repeatedAsked(t *testing.T, fe frontEnd, w world, o outcome) {
	recs, err := transcripts.Read(w.records, o.AgentSession)
	if err != nil {
		t.Fatalf("the native transcript of %q: %v", o.AgentSession, err)
	}
	stopped := slices.ContainsFunc(recs, func(r transcripts.Record) bool {
		return r.Type == transcripts.TypeMessage && strings.Contains(string(r.Message), "Stopped (nobody can be asked")
	})
	if fe.name == "hub acp" {
		if !slices.ContainsFunc(o.Asked, func(s string) bool { return strings.Contains(s, "Repeated 3 times") }) || stopped {
			t.Errorf("the editor was asked %q, repetition stopped %v: want it asked and allowed", o.Asked, stopped)
		}
		return
	}
	if !stopped || len(o.Refusals) != 0 || (o.Exit >= 0 && o.Exit != conversation.ExitOK) {
		t.Errorf("repetition stopped %v, refusals %q, exit %d: want it stopped, no refusal, exit 0", stopped, o.Refusals, o.Exit)
	}
}

// askedByPersona checks a call the persona's ask rule names: the editor
// is asked (it allows once: nothing is refused), every front end where
// nobody can answer refuses it once, naming the persona, whatever
// --approve says, and the CLI agent's command did not run.
func askedByPersona(t *testing.T, fe frontEnd, _ world, o outcome) {
	if fe.name == "hub acp" {
		if len(o.Refusals) != 0 {
			t.Errorf("refusals %q, want the editor asked and allowing", o.Refusals)
		}
		return
	}
	if len(o.Refusals) != 1 || !strings.Contains(o.Refusals[0], "persona first") {
		t.Errorf("refusals %q, want one naming the persona's ask rule", o.Refusals)
	}
	if o.Exit >= 0 && o.Exit != conversation.ExitDenied {
		t.Errorf("exit %d, want %d", o.Exit, conversation.ExitDenied)
	}
	if strings.Contains(o.Text, "ran it") {
		t.Errorf("the asked command ran unasked: %q", o.Text)
	}
}

// hardDenyIn says whether recs hold the hard deny list's refusal.
func hardDenyIn(recs []transcripts.Record) bool {
	for _, r := range recs {
		if e := r.Event; e != nil && e.Type == adapters.EventDecision && e.Decision != nil && !e.Decision.Allowed && e.Decision.By == "hard deny" {
			return true
		}
	}
	return false
}

// refusedByHardDeny checks that the hard deny list's refusal is counted
// once (exit 6 where the front end has exit codes) and nothing ran.
func refusedByHardDeny(t *testing.T, _ frontEnd, _ world, o outcome) {
	if len(o.Refusals) != 1 || !strings.Contains(o.Refusals[0], "hard deny") {
		t.Errorf("refusals %q, want one by the hard deny list", o.Refusals)
	}
	if o.Exit >= 0 && o.Exit != conversation.ExitDenied {
		t.Errorf("exit %d, want %d", o.Exit, conversation.ExitDenied)
	}
	if strings.Contains(o.Text, "ran it") {
		t.Errorf("the refused command ran: %q", o.Text)
	}
}

// stopped checks the turn's stop reason, that the text which arrived is
// given out and, where the front end has exit codes, its documented exit
// code.
func stopped(want adapters.StopReason, exit int) func(*testing.T, frontEnd, world, outcome) {
	return func(t *testing.T, _ frontEnd, _ world, o outcome) {
		if o.Stop != string(want) || !strings.Contains(o.Text, "partial answ") {
			t.Errorf("stop reason %q text %q, want %q and the text that arrived", o.Stop, o.Text, want)
		}
		if o.Exit >= 0 && o.Exit != exit {
			t.Errorf("exit %d, want %d", o.Exit, exit)
		}
	}
}

// fellBack checks that a front end with a fallback list handed the turn
// to the next agent with reason; one without (a /compare candidate,
// one agent by design) reports the failure's class instead.
func fellBack(reason string, class conversation.Class) func(*testing.T, frontEnd, world, outcome) {
	return func(t *testing.T, fe frontEnd, _ world, o outcome) {
		switch {
		case fe.fallback && (o.FellBack != reason || o.Answered != "second" || !strings.HasSuffix(o.Text, "second answered")):
			t.Errorf("fell back %q to %q, text %q, want %q to second and its answer", o.FellBack, o.Answered, o.Text, reason)
		case fe.fallback && (o.Stop != string(adapters.StopEndTurn) || o.Exit > 0 || o.Failure != conversation.ClassNone):
			t.Errorf("stop %q exit %d failure %q: the turn the next agent took over ends as its own did", o.Stop, o.Exit, o.Failure)
		case !fe.fallback && o.Failure != class:
			t.Errorf("failure class %q, want %q (it has no fallback list)", o.Failure, class)
		}
	}
}

// TestScenarios_EveryFrontEndTellsTheSame runs each row through every
// front end. Where a fallback agent waits, the first agent's provider is
// retried without end (as claude retries 5xx for minutes), so only the
// bounded watch (a 1 ms provider timeout) can hand the turn over; a front
// end with no fallback list lets the agent's own retry budget (one retry)
// run out and reports the failure, as hub run without --fallback does.
func TestScenarios_EveryFrontEndTellsTheSame(t *testing.T) {
	home := t.TempDir() // rm -rf ~ is refused; were it not, it would hit this
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			for _, fe := range frontEnds {
				t.Run(fe.name, func(t *testing.T) {
					if bug := sc.bugs[fe.name]; bug != "" {
						t.Skip("BUG: " + bug)
					}
					if why := sc.without[fe.name]; why != "" {
						t.Skip("does not apply: " + why)
					}
					if why := cmp.Or(fe.needsGit, sc.needsGit); why != "" && !hasGit() {
						t.Skip("git is not on PATH: " + why)
					}
					retries := 1
					if fe.fallback {
						retries = 1000
					}
					w := newWorld(t, sc, retries)
					o := fe.turn(t, w)
					t.Logf("%s told %+v", fe.name, o)
					sc.check(t, fe, w, o)
				})
			}
		})
	}
}
