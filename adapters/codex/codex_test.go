package codex

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// The test binary doubles as a fake `codex app-server`: with CODEX_FAKE set
// to a fixture name it answers the handshake and replays the recorded turn
// of testdata/codex/<fixture>/stream.jsonl, logging client replies.
func TestMain(m *testing.M) {
	if fx := os.Getenv("CODEX_FAKE"); fx == "gone" { // closes its pipes, then exits, before answering
		fmt.Fprintln(os.Stderr, "codex: no config found")
		_, _ = os.Stdin.Close(), os.Stdout.Close()
		os.Exit(1)
	} else if fx != "" {
		os.Exit(fakeCodex(fx))
	}
	exits = fixture.WatchExits()
	proctest.Main(m, nil)
}

// exits counts the waits for the exit of a process a test watches.
var exits *fixture.Exits

func fakeCodex(fixture string) int {
	data, err := os.ReadFile(filepath.Join(os.Getenv("CODEX_FAKE_DIR"), fixture, "stream.jsonl"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var turn [][]byte
	seen := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"method":"turn/started"`) {
			seen = true
		}
		if seen && l != "" && !strings.HasPrefix(l, `{"id":`) {
			turn = append(turn, []byte(l))
		}
		if strings.Contains(l, `"method":"turn/completed"`) {
			break
		}
	}
	logf, _ := os.OpenFile(os.Getenv("CODEX_FAKE_LOG"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	w := bufio.NewWriter(os.Stdout)
	send := func(s string) { w.WriteString(s + "\n"); w.Flush() }
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(in.Bytes(), &m)
		if logf != nil {
			fmt.Fprintf(logf, "%s\n", in.Bytes())
		}
		id := string(m.ID)
		switch m.Method {
		case "initialize":
			ua, _ := json.Marshal(cmp.Or(os.Getenv("CODEX_FAKE_UA"), "fake"))
			send(`{"id":` + id + `,"result":{"userAgent":` + string(ua) + `}}`)
		case "thread/start":
			model, _ := json.Marshal(cmp.Or(os.Getenv("CODEX_FAKE_THREAD_MODEL"), "mock"))
			send(`{"id":` + id + `,"result":{"thread":{"id":"thread-new"},"model":` + string(model) + `}}`)
		case "thread/resume":
			var p struct {
				ThreadID string `json:"threadId"`
			}
			_ = json.Unmarshal(m.Params, &p)
			send(`{"id":` + id + `,"result":{"thread":{"id":"` + p.ThreadID + `"},"model":"mock"}}`)
		case "turn/start":
			if os.Getenv("CODEX_FAKE_CRASH") == "refuse" { // and runs on, reading its stdin
				send(`{"id":` + id + `,"error":{"code":-32603,"message":"turn refused"}}`)
				continue
			}
			send(`{"id":` + id + `,"result":{"turn":{"id":"turn-1","status":"inProgress"}}}`)
			for _, l := range strings.Split(os.Getenv("CODEX_FAKE_INJECT"), "\n") {
				if l != "" {
					send(l)
				}
			}
			crash, after := strings.CutSuffix(os.Getenv("CODEX_FAKE_CRASH"), "-after")
			if crash != "" && !after {
				return fakeCrash(crash)
			}
			if !fakeReplay(turn, send, in, logf) {
				return 0
			}
			if after {
				return fakeCrash(crash)
			}
		case "skills/extraRoots/set":
			if os.Getenv("CODEX_FAKE_NO_SKILL_ROOTS") != "" {
				send(`{"error":{"code":-32600,"message":"Invalid request: unknown variant ` + "`skills/extraRoots/set`" + `"},"id":` + id + `}`)
			} else {
				send(`{"id":` + id + `,"result":{}}`)
			}
		case "model/list":
			fakeModelList(id, send)
		case "turn/steer": // taken into the waiting turn, which then ends
			send(`{"id":` + id + `,"result":{"turnId":"turn-1"}}`)
			send(`{"method":"turn/completed","params":{"threadId":"t","turn":{"id":"turn-1","status":"completed","error":null}}}`)
		case "turn/interrupt":
			if os.Getenv("CODEX_FAKE_INTERRUPT") == "error" { // and the turn runs on
				fmt.Fprintln(os.Stderr, "panic: fake codex crashed on purpose")
				send(`{"id":` + id + `,"error":{"code":-32603,"message":"cannot interrupt"}}`)
				continue
			}
			send(`{"id":` + id + `,"result":{}}`)
			send(`{"method":"turn/completed","params":{"threadId":"t","turn":{"id":"turn-1","status":"interrupted","error":null}}}`)
		}
	}
	return 0
}

// fakeModelList answers model/list per CODEX_FAKE_MODELS: "list" replays
// the recorded catalog, "silent" never answers, "error" fails; unset
// answers like a CLI without the method.
func fakeModelList(id string, send func(string)) {
	switch os.Getenv("CODEX_FAKE_MODELS") {
	case "list":
		data, _ := os.ReadFile(filepath.Join(os.Getenv("CODEX_FAKE_DIR"), "model-list.json"))
		send(`{"id":` + id + `,"result":` + strings.TrimSpace(string(data)) + `}`)
	case "silent":
	case "error":
		send(`{"id":` + id + `,"error":{"code":-32603,"message":"catalog unavailable"}}`)
	default:
		send(`{"error":{"code":-32600,"message":"Invalid request: unknown variant ` + "`model/list`" + `"},"id":` + id + `}`)
	}
}

// fakeCrash is the fake's crash: a line on stderr, then exit 3, or ("mute")
// its output closed while it lingers.
func fakeCrash(how string) int {
	fmt.Fprintln(os.Stderr, "panic: fake codex crashed on purpose")
	if how == "mute" {
		_ = os.Stdout.Close()
		time.Sleep(time.Hour)
	}
	return 3
}

// fakeReplay sends the turn; server requests wait for the client's reply.
// A fixture whose turn ends "interrupted" stops before turn/completed and
// waits for turn/interrupt.
func fakeReplay(turn [][]byte, send func(string), in *bufio.Scanner, logf *os.File) bool {
	for _, l := range turn {
		s := string(l)
		if strings.Contains(s, `"status":"interrupted"`) {
			return true
		}
		send(s)
		if strings.HasPrefix(s, `{"method":"item/`) && strings.Contains(s, `"id":0,`) && strings.Contains(s, "requestApproval") {
			if !in.Scan() {
				return false
			}
			if logf != nil {
				fmt.Fprintf(logf, "%s\n", in.Bytes())
			}
		}
	}
	return true
}

type fakeRun struct {
	log string
	a   *Adapter
}

func newFake(t *testing.T, fixture string, extraEnv ...string) fakeRun {
	t.Helper()
	dir, _ := filepath.Abs("testdata")
	log := filepath.Join(t.TempDir(), "client.log")
	env := map[string]string{"CODEX_FAKE": fixture, "CODEX_FAKE_DIR": dir, "CODEX_FAKE_LOG": log}
	for _, kv := range extraEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	a := New(config.AgentConfig{Command: config.Command{os.Args[0]}, Env: env}, zerolog.Nop())
	a.InitTimeout = 5 * time.Second
	a.ModelListTimeout = 5 * time.Second
	return fakeRun{log: log, a: a}
}

func drain(t *testing.T, ch <-chan adapters.Event, onPerm func(*adapters.PermissionRequest)) []adapters.Event {
	t.Helper()
	var evs []adapters.Event
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return evs
			}
			if e.Type == adapters.EventPermission && onPerm != nil {
				onPerm(e.Permission)
			}
			evs = append(evs, e)
		case <-timeout:
			t.Fatalf("turn did not end; got %d events", len(evs))
		}
	}
}

// cancelOnFirst passes ch on and calls cancel once an event of type typ
// went through.
func cancelOnFirst(ch <-chan adapters.Event, typ adapters.EventType, cancel func()) <-chan adapters.Event {
	out := make(chan adapters.Event)
	go func() {
		defer close(out)
		once := false
		for e := range ch {
			out <- e
			if e.Type == typ && !once {
				once = true
				cancel()
			}
		}
	}()
	return out
}

func kinds(evs []adapters.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, string(e.Type))
	}
	return strings.Join(s, " ")
}

// An app-server gone before it answers initialize is told one way, with
// its exit status and stderr, whether hub met a broken pipe, the
// connection's end or the exit first; it still falls back to exec.
func TestAppServer_GoneBeforeInitializeIsOneMessage(t *testing.T) {
	a := newFake(t, "gone").a
	seen := map[string]int{}
	for range 50 {
		_, err := a.startAppServer(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
		if !errors.Is(err, errNoStart) {
			t.Fatalf("err = %v, want errNoStart (exec takes over)", err)
		}
		seen[err.Error()]++
	}
	for msg := range seen {
		if len(seen) > 1 || !strings.Contains(msg, "exit code 1") || strings.Count(msg, "codex: no config found") != 1 {
			t.Fatalf("messages = %v, want one, with the exit code and the stderr line once", seen)
		}
	}
}

func TestAppServer_Turns(t *testing.T) {
	tests := []struct {
		name     string
		fixture  string
		decision adapters.PermissionOptionKind
		cancel   bool
		crash    string   // CODEX_FAKE_CRASH: "exit" dies on turn/start, "mute" closes its output and lingers
		want     []string // substrings of the event kinds
		wantStop adapters.StopReason
		wantLog  string // a client message the fake must have received
	}{
		{name: "text turn", fixture: "appserver-text", want: []string{"thought", "text text"}, wantStop: adapters.StopEndTurn, wantLog: `"method":"thread/start"`},
		{name: "approval allow", fixture: "appserver-approval-allow", decision: adapters.AllowOnce,
			want: []string{"tool_call permission"}, wantStop: adapters.StopEndTurn, wantLog: `"result":{"decision":"accept"}`},
		{name: "approval deny", fixture: "appserver-approval-deny", decision: adapters.RejectOnce,
			want: []string{"tool_call permission tool_update"}, wantStop: adapters.StopEndTurn, wantLog: `"result":{"decision":"decline"}`},
		{name: "interrupt", fixture: "appserver-cancel", cancel: true, want: []string{"tool_call"}, wantStop: adapters.StopCancelled, wantLog: `"method":"turn/interrupt"`},
		{name: "crash with stderr tail", fixture: "appserver-text", crash: "exit", want: []string{"error"}, wantStop: adapters.StopEndTurn},
		{name: "output closed, still running", fixture: "appserver-text", crash: "mute", want: []string{"error"}, wantStop: adapters.StopEndTurn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var env []string
			if tc.crash != "" {
				env = append(env, "CODEX_FAKE_CRASH="+tc.crash)
			}
			f := newFake(t, tc.fixture, env...)
			s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.ID() != "thread-new" {
				t.Errorf("ID = %q", s.ID())
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt("hi"))
			if tc.crash != "" {
				if err != nil {
					t.Fatal(err)
				}
				evs := drain(t, ch, nil)
				if len(evs) < 2 || evs[len(evs)-2].Type != adapters.EventError ||
					!strings.Contains(evs[len(evs)-2].Error.Message, "crashed on purpose") || evs[len(evs)-2].Error.Code != adapters.CodeCrash {
					t.Errorf("crash events = %+v", evs)
				}
				if !s.(*appSession).p.Exited() {
					t.Error("codex app-server still runs after its turn ended")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.cancel {
				// The fixture stops after its tool call until interrupted.
				ch = cancelOnFirst(ch, adapters.EventToolCall, cancel)
			}
			evs := drain(t, ch, func(p *adapters.PermissionRequest) {
				o, _ := p.OptionFor(tc.decision)
				p.Respond(adapters.PermissionDecision{OptionID: o.ID})
			})
			got := kinds(evs)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("events %q missing %q", got, w)
				}
			}
			if last := evs[len(evs)-1]; last.Type != adapters.EventDone || last.StopReason != tc.wantStop {
				t.Errorf("last = %+v, want done/%s", last, tc.wantStop)
			}
			// The fake logs each message before it answers, so the log is
			// complete once the turn ended.
			logData, _ := os.ReadFile(f.log)
			if !strings.Contains(string(logData), tc.wantLog) {
				t.Errorf("client log lacks %s:\n%s", tc.wantLog, logData)
			}
		})
	}
	if n := proc.Live(); n != 0 {
		t.Errorf("%d processes left", n)
	}
}

// An app-server gone between turns fails the next prompt with its end
// (exit status or stop, stderr tail), told as its Exit tells it.
func TestAppServer_GoneBetweenTurnsIsTheCrash(t *testing.T) {
	tests := []struct{ crash, want string }{
		{"exit-after", "codex app-server exited unexpectedly (exit code 3): "},
		{"mute-after", "codex app-server closed its output and was stopped ("},
	}
	for _, tt := range tests {
		t.Run(tt.crash, func(t *testing.T) {
			s, err := newFake(t, "appserver-text", "CODEX_FAKE_CRASH="+tt.crash).a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("hi"))
			if err != nil {
				t.Fatal(err)
			}
			if evs := drain(t, ch, nil); evs[len(evs)-1].StopReason != adapters.StopEndTurn {
				t.Fatalf("first turn %s", kinds(evs))
			}
			<-s.(*appSession).p.Done()
			_, err = s.Prompt(context.Background(), adapters.TextPrompt("again"), func(adapters.Event) {})
			te := (*adapters.TurnError)(nil)
			if !errors.As(err, &te) || te.Info.Code != adapters.CodeCrash || !strings.HasPrefix(te.Info.Message, tt.want) ||
				!strings.HasSuffix(te.Info.Message, ": panic: fake codex crashed on purpose") || !strings.Contains(te.Info.Detail, "crashed on purpose") {
				t.Fatalf("next prompt: %v, want %q…: its stderr line", err, tt.want)
			}
			if x, ok := s.(adapters.Exiter); !ok || x.Exit() == nil || *x.Exit() != te.Info {
				t.Errorf("Exit() tells %+v, want %+v", x, te.Info)
			}
		})
	}
}

// A live app-server that refuses turn/start is told at once: its Exit
// reads nil while it still runs, blocked on the stdin that Close releases,
// and never begins to wait for an exit that is not coming.
func TestAppServer_RefusedTurnIsToldWhileItRuns(t *testing.T) {
	s, err := newFake(t, "appserver-text", "CODEX_FAKE_CRASH=refuse").a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.(*appSession).p
	waits := exits.Watch(t, p)
	_, err = s.Prompt(context.Background(), adapters.TextPrompt("hi"), func(adapters.Event) {})
	if err == nil || !strings.Contains(err.Error(), "turn refused") {
		t.Fatalf("prompt error %v, want the refusal", err)
	}
	if x := s.(adapters.Exiter).Exit(); x != nil || waits.Load() != 0 || p.Exited() {
		t.Errorf("Exit() = %+v after %d waits for the exit, running %v; want nil at once while it runs", x, waits.Load(), !p.Exited())
	}
}

// An app-server whose turn/interrupt fails is stopped, and its end reads
// as that in the next prompt and Exit, never as an output it closed.
func TestAppServer_UninterruptibleIsStoppedForTheCancel(t *testing.T) {
	s, err := newFake(t, "appserver-cancel", "CODEX_FAKE_INTERRUPT=error").a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reason, err := s.Prompt(ctx, adapters.TextPrompt("hi"), func(ev adapters.Event) {
		if ev.Type == adapters.EventToolCall {
			cancel()
		}
	})
	if reason != adapters.StopCancelled || err != nil {
		t.Fatalf("cancelled turn: %q %v", reason, err)
	}
	<-s.(*appSession).p.Done()
	const want = "codex app-server did not stop on cancel and was stopped ("
	te := (*adapters.TurnError)(nil)
	if _, err = s.Prompt(context.Background(), adapters.TextPrompt("again"), func(adapters.Event) {}); !errors.As(err, &te) || !strings.HasPrefix(te.Info.Message, want) {
		t.Fatalf("next prompt: %v, want %q…", err, want)
	}
	if x := s.(adapters.Exiter).Exit(); x == nil || *x != te.Info {
		t.Errorf("Exit() tells %+v, want %+v", x, te.Info)
	}
}

func TestAppServer_ResumeByThreadID(t *testing.T) {
	f := newFake(t, "appserver-two-turns")
	s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), ResumeID: "thread-old", Instructions: "be brief"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ID() != "thread-old" {
		t.Errorf("ID = %q, want resumed thread", s.ID())
	}
	logData, _ := os.ReadFile(f.log)
	for _, want := range []string{`"method":"thread/resume"`, `"threadId":"thread-old"`, `"developerInstructions":"be brief"`} {
		if !strings.Contains(string(logData), want) {
			t.Errorf("client log lacks %s", want)
		}
	}
}

// SessionOptions.OutputSchema reaches every turn/start as outputSchema
// (codex holds the final answer to it); without one there is none.
func TestAppServer_OutputSchemaOnTurnStart(t *testing.T) {
	for _, schema := range []string{`{"type":"object","required":["verdict"]}`, ""} {
		t.Run(fmt.Sprintf("schema %q", schema), func(t *testing.T) {
			f := newFake(t, "appserver-text")
			s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), OutputSchema: json.RawMessage(schema)})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("review"))
			if err != nil {
				t.Fatal(err)
			}
			drain(t, ch, nil)
			logData, _ := os.ReadFile(f.log)
			var start string
			for _, l := range strings.Split(string(logData), "\n") {
				if strings.Contains(l, `"method":"turn/start"`) {
					start = l
				}
			}
			if has := strings.Contains(start, `"outputSchema":`+schema); has != (schema != "") {
				t.Errorf("turn/start %s, want outputSchema %s", start, schema)
			}
		})
	}
}

func TestAppServer_BusyAndClose(t *testing.T) {
	f := newFake(t, "appserver-cancel")
	s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("x"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("y"), func(adapters.Event) {}); err != adapters.ErrBusy {
		t.Errorf("second prompt err = %v, want ErrBusy", err)
	}
	_ = s.Close()
	evs := drain(t, ch, nil)
	if last := evs[len(evs)-1]; last.Type != adapters.EventDone {
		t.Errorf("last = %+v", last)
	}
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("z"), func(adapters.Event) {}); err != adapters.ErrClosed {
		t.Errorf("prompt after close err = %v", err)
	}
}

func TestConfigOverrides_MCP(t *testing.T) {
	got := strings.Join(configOverrides(adapters.SessionOptions{MCPServers: []adapters.MCPServer{
		{Name: "fs", Type: "stdio", Command: "npx", Args: []string{"-y", "srv"}, Env: map[string]string{"K": "v"}},
		{Name: "web docs", Type: "http", URL: "http://x/mcp"},
	}}), " ")
	for _, want := range []string{`mcp_servers.fs.command="npx"`, `mcp_servers.fs.args=["-y","srv"]`, `mcp_servers.fs.env={K="v"}`, `mcp_servers."web docs".url="http://x/mcp"`} {
		if !strings.Contains(got, want) {
			t.Errorf("overrides %q lack %q", got, want)
		}
	}
}

func TestConfigOverrides_AdditionalRootsAreWritable(t *testing.T) {
	got := strings.Join(configOverrides(adapters.SessionOptions{AddDirs: []string{"/work/lib", "/work/docs"}}), " ")
	if want := `sandbox_workspace_write.writable_roots=["/work/lib","/work/docs"]`; !strings.Contains(got, want) {
		t.Fatalf("overrides %q lack %s", got, want)
	}
}

func TestAppServer_ModelList(t *testing.T) {
	static := "gpt-5.5 gpt-5.5-mini extra"
	tests := []struct {
		name, mode, cfgModel string
		want, wantDef        string
	}{
		{name: "listed models used, thread model first", mode: "list",
			want: "mock gpt-6.1-sol gpt-6-astra gpt-6-sol gpt-6-luna gpt-5.6-sol gpt-6.1-terra gpt-5.6-terra gpt-5.6-luna gpt-5.5 extra", wantDef: "mock"},
		{name: "configured model is the default", mode: "list", cfgModel: "gpt-6-sol",
			want: "gpt-6.1-sol gpt-6-astra gpt-6-sol gpt-6-luna gpt-5.6-sol gpt-6.1-terra gpt-5.6-terra gpt-5.6-luna gpt-5.5 extra", wantDef: "gpt-6-sol"},
		{name: "unknown method keeps static", mode: "", want: static},
		{name: "error keeps static", mode: "error", want: static},
		{name: "timeout keeps static", mode: "silent", want: static},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, "appserver-text", "CODEX_FAKE_MODELS="+tc.mode)
			f.a.cfg.Model = tc.cfgModel
			f.a.cfg.Options = map[string]any{"models": []any{"extra", "gpt-5.5"}}
			// Only the silent fake needs the timeout to pass: the others
			// answer, however slowly a loaded machine runs them.
			f.a.ModelListTimeout = 30 * time.Second
			if tc.mode == "silent" {
				f.a.ModelListTimeout = 300 * time.Millisecond
			}
			if got := optionIDs(f.a.Capabilities().Models); got != static {
				t.Errorf("models before a session = %q, want static %q", got, static)
			}
			s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			c := f.a.Capabilities()
			if got := optionIDs(c.Models); got != tc.want {
				t.Errorf("models = %q\nwant     %q", got, tc.want)
			}
			wantDef := tc.wantDef
			if wantDef == "" {
				wantDef = tc.cfgModel
			}
			if c.DefaultModel != wantDef {
				t.Errorf("default model = %q, want %q", c.DefaultModel, wantDef)
			}
			if tc.mode == "list" && c.Models[1].Name != "GPT-6.1-Sol" && c.Models[0].Name != "GPT-6.1-Sol" {
				t.Errorf("display names not used: %+v", c.Models[:2])
			}
			logData, _ := os.ReadFile(f.log)
			if !strings.Contains(string(logData), `"method":"model/list"`) {
				t.Errorf("model/list not requested:\n%s", logData)
			}
		})
	}
}

func optionIDs(opts []adapters.Option) string {
	var ids []string
	for _, o := range opts {
		ids = append(ids, o.ID)
	}
	return strings.Join(ids, " ")
}

// A session that must ask first runs codex in a read-only sandbox, whatever
// the config says, so a write becomes an approval request instead of
// happening unasked; otherwise the configured sandbox (or workspace-write)
// stands. Both transports follow it.
func TestSandbox_FollowsSessionAccess(t *testing.T) {
	tests := []struct {
		name       string
		configured string
		access     adapters.Access
		want       string
		policy     string
		tools      *adapters.ToolFilter
	}{
		{"agent default", "", adapters.AccessAgentDefault, "workspace-write", "on-request", nil},
		{"configured", "danger-full-access", adapters.AccessAgentDefault, "danger-full-access", "never", nil},
		{"ask first beats the config", "danger-full-access", adapters.AccessAskFirst, "read-only", "untrusted", nil},
		{"ask first", "", adapters.AccessAskFirst, "read-only", "untrusted", nil},
		{"tools that never write", "danger-full-access", adapters.AccessAgentDefault, "read-only", "untrusted", &adapters.ToolFilter{Allow: []string{"read", "search"}}},
		{"tools that may run commands", "", adapters.AccessAgentDefault, "workspace-write", "on-request", &adapters.ToolFilter{Allow: []string{"read", "execute"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, "appserver-text")
			if tt.configured != "" {
				f.a.cfg.Options = map[string]any{"sandbox": tt.configured, "approval_policy": "never"}
			}
			opts := adapters.SessionOptions{Cwd: t.TempDir(), Access: tt.access, Tools: tt.tools}
			s, err := f.a.Start(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			logData, _ := os.ReadFile(f.log)
			if want := `"approvalPolicy":"` + tt.policy + `"`; !strings.Contains(string(logData), want) {
				t.Errorf("thread/start lacks %s:\n%s", want, logData)
			}
			if want := `"sandbox":"` + tt.want + `"`; !strings.Contains(string(logData), want) {
				t.Errorf("thread/start lacks %s:\n%s", want, logData)
			}
			exec := &execSession{a: f.a, opts: opts}
			if args := strings.Join(exec.args("hi", nil), " "); !strings.Contains(args, `sandbox_mode="`+tt.want+`"`) {
				t.Errorf("codex exec args %q lack sandbox_mode=%q", args, tt.want)
			}
		})
	}
}

func TestAppServer_SteerJoinsTheRunningTurn(t *testing.T) {
	f := newFake(t, "appserver-cancel") // waits after its tool call
	s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st := s.(adapters.Steerer)
	if err := st.Steer(context.Background(), adapters.TextPrompt("early")); !errors.Is(err, adapters.ErrNoTurn) {
		t.Fatalf("steer with no turn: %v, want ErrNoTurn", err)
	}
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("hi"))
	if err != nil {
		t.Fatal(err)
	}
	var evs []adapters.Event
	for ev := range ch {
		evs = append(evs, ev)
		if ev.Type == adapters.EventToolCall {
			if err := st.Steer(context.Background(), adapters.TextPrompt("also check the tests")); err != nil {
				t.Fatalf("steer: %v", err)
			}
		}
	}
	if last := evs[len(evs)-1]; last.StopReason != adapters.StopEndTurn {
		t.Fatalf("turn ended %+v", last)
	}
	logData, _ := os.ReadFile(f.log)
	if !strings.Contains(string(logData), `"method":"turn/steer","params":{"expectedTurnId":"turn-1","input":[{"text":"also check the tests"`) {
		t.Fatalf("client log lacks the turn/steer:\n%s", logData)
	}
}
