package conversation

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
)

// startedSession is an agent session that records its close; liveStarted
// one that also changes its model and mode live.
type startedSession struct {
	agentSession
	closed atomic.Bool
}

func (s *startedSession) Close() error { s.closed.Store(true); return nil }

type liveStarted struct{ *startedSession }

func (s liveStarted) SetModel(_ context.Context, m string) error { s.note("model=" + m); return nil }
func (s liveStarted) SetMode(_ context.Context, m string) error  { s.note("mode=" + m); return nil }

// fakeHost is a front end: it wants a model, and its starts wait for gate
// (when set) after telling entered (when set).
type fakeHost struct {
	mu      sync.Mutex
	model   string
	live    bool
	fail    error // the first start fails with it
	entered chan struct{}
	gate    chan struct{}
	starts  []*startedSession
	wg      sync.WaitGroup
}

func (h *fakeHost) agent() *Agent {
	return &Agent{Want: h.want, Start: h.start, Starts: &h.wg, Now: time.Now, Context: context.Background, Warm: &Warm{}}
}

func (h *fakeHost) want() Setup {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Setup{Model: h.model}
}

func (h *fakeHost) setModel(m string) { h.mu.Lock(); h.model = m; h.mu.Unlock() }

func (h *fakeHost) start(context.Context) (adapters.Session, Setup, error) {
	want := h.want()
	if h.entered != nil {
		h.entered <- struct{}{}
	}
	if h.gate != nil {
		<-h.gate
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.fail; err != nil {
		h.fail = nil
		return nil, want, err
	}
	s := &startedSession{}
	h.starts = append(h.starts, s)
	if h.live {
		return liveStarted{s}, want, nil
	}
	return s, want, nil
}

func (h *fakeHost) started() []*startedSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.starts)
}

func sessionOf(b adapters.Session) *startedSession {
	if l, ok := b.(liveStarted); ok {
		return l.startedSession
	}
	s, _ := b.(*startedSession)
	return s
}

// A prompt that arrives while the warm start runs waits for it and gets
// its agent session: the agent starts once. One that gives up waiting
// leaves the start running.
func TestAgent_PromptWaitsForTheWarmStart(t *testing.T) {
	for _, giveUp := range []bool{false, true} {
		h := &fakeHost{entered: make(chan struct{}, 1), gate: make(chan struct{})}
		a := h.agent()
		if !a.Launch(true) || a.Launch(true) {
			t.Fatal("Launch: want one start, the second refused while it runs")
		}
		<-h.entered
		if giveUp {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, waited, err := a.Await(ctx); !waited || !errors.Is(err, context.Canceled) {
				t.Fatalf("a prompt cancelled while the agent starts: waited %v, %v", waited, err)
			}
		}
		got := make(chan adapters.Session)
		go func() { b, _, _ := a.Await(context.Background()); got <- b }()
		close(h.gate)
		b := <-got
		if s := h.started(); len(s) != 1 || sessionOf(b) != s[0] || a.Current() != b {
			t.Fatalf("giveUp %v: the prompt got %v, the starts were %v: want the warm start's", giveUp, b, s)
		}
	}
}

// A start that failed is reported to the prompt that waits for it, once;
// the next prompt starts the agent again.
func TestAgent_StartErrorReportedOnce(t *testing.T) {
	h := &fakeHost{fail: errors.New("no login")}
	a := h.agent()
	a.Launch(true)
	h.wg.Wait()
	if _, _, err := a.Await(context.Background()); err == nil || err.Error() != "no login" {
		t.Fatalf("the first prompt got %v, want the start's error", err)
	}
	if b, _, err := a.Await(context.Background()); err != nil || b == nil || len(h.started()) != 1 {
		t.Fatalf("the next prompt got %v, %v: want a new start", b, err)
	}
}

// A setting changed while the agent starts reaches the started agent: live
// where it can change it, else by starting it again with it. Changed
// after the start, it is reached live or the agent session is closed for
// the next start.
func TestAgent_ChangeDuringStartReachesTheAgent(t *testing.T) {
	tests := []struct {
		name        string
		live, after bool
		starts      int
		sets        []string
	}{
		{"during the start, live", true, false, 1, []string{"model=m2"}},
		{"during the start, restart", false, false, 2, nil},
		{"after the start, live", true, true, 1, []string{"model=m2"}},
		{"after the start, restart", false, true, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &fakeHost{model: "m1", live: tt.live, entered: make(chan struct{}, 2), gate: make(chan struct{})}
			a := h.agent()
			a.Launch(true)
			<-h.entered
			if tt.after {
				close(h.gate)
				_, _, _ = a.Await(context.Background())
			}
			restart, err := a.Apply(context.Background(), func() (Setup, bool) { return Setup{Model: "m2"}, false },
				func() { h.setModel("m2") })
			if !tt.after {
				close(h.gate)
			}
			b, _, _ := a.Await(context.Background())
			s := h.started()
			if err != nil || len(s) != tt.starts || !slices.Equal(s[0].sets, tt.sets) || restart != (tt.after && !tt.live) {
				t.Fatalf("%d starts, changes %q, restart %v, %v", len(s), s[0].sets, restart, err)
			}
			if sessionOf(b) != s[len(s)-1] || s[0].closed.Load() != (tt.starts > 1) {
				t.Fatalf("the prompt got %v; first closed %v", b, s[0].closed.Load())
			}
		})
	}
}

// A change that needs a restart while a turn runs is refused, and the
// agent session kept.
func TestAgent_ApplyRefusesARestartDuringATurn(t *testing.T) {
	h := &fakeHost{model: "m1"}
	a := h.agent()
	b, _, _ := a.Await(context.Background())
	committed := false
	_, err := a.Apply(context.Background(), func() (Setup, bool) { return Setup{Model: "m2"}, true }, func() { committed = true })
	if !errors.Is(err, adapters.ErrNeedsRestart) || committed || a.Current() != b || sessionOf(b).closed.Load() {
		t.Fatalf("Apply during a turn: %v, committed %v", err, committed)
	}
}

// A start abandoned (the session slept or closed) closes the agent
// session it brings; after a sleep the next prompt starts again, after a
// close none does.
func TestAgent_AbandonedStartClosesItsSession(t *testing.T) {
	for _, closing := range []bool{false, true} {
		h := &fakeHost{entered: make(chan struct{}, 2), gate: make(chan struct{})}
		a := h.agent()
		a.Launch(true)
		<-h.entered
		if b := a.Sleep(); b != nil {
			t.Fatal("Sleep returned an agent session while none was up")
		}
		if closing {
			a.Close()
		}
		close(h.gate)
		h.wg.Wait()
		if s := h.started(); len(s) != 1 || !s[0].closed.Load() {
			t.Fatalf("closing %v: the abandoned start's session was not closed", closing)
		}
		b, _, err := a.Await(context.Background())
		if closing != errors.Is(err, adapters.ErrClosed) || !closing && (b == nil || len(h.started()) != 2) {
			t.Fatalf("closing %v: the next prompt got %v, %v", closing, b, err)
		}
	}
}

// Three crashes within a minute stop the restarts; older crashes do not.
func TestAgent_CrashLoopStopsRestarts(t *testing.T) {
	tests := []struct {
		name    string
		crashes []time.Duration
		loop    bool
	}{
		{"two crashes", []time.Duration{0, time.Second}, false},
		{"three within a minute", []time.Duration{0, 10 * time.Second, 20 * time.Second}, true},
		{"three over more than a minute", []time.Duration{0, 30 * time.Second, 61 * time.Second}, false},
		{"the last three within a minute", []time.Duration{0, 70 * time.Second, 80 * time.Second, 90 * time.Second}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &fakeHost{}
			a := h.agent()
			base := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
			var now time.Time
			a.Now = func() time.Time { return now }
			for _, d := range tt.crashes {
				now = base.Add(d)
				a.Retire(nil, true)
			}
			b, _, err := a.Await(context.Background())
			if errors.Is(err, ErrCrashLoop) != tt.loop || (b != nil) == tt.loop || len(h.started()) == 1 == tt.loop {
				t.Fatalf("Await: %v, %v, %d starts", b, err, len(h.started()))
			}
		})
	}
}

// resumer is an adapter whose resume fails with err.
type resumer struct {
	err    error
	starts []adapters.SessionOptions
}

func (r *resumer) Name() string                        { return "resumer" }
func (r *resumer) Capabilities() adapters.Capabilities { return adapters.Capabilities{Resume: true} }
func (r *resumer) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	r.starts = append(r.starts, o)
	if o.ResumeID != "" && r.err != nil {
		return nil, r.err
	}
	return &startedSession{}, nil
}

// A resume that fails starts the agent afresh and says so, unless the
// agent cannot run at all.
func TestAgent_FailedResumeStartsAfresh(t *testing.T) {
	tests := []struct {
		name, id    string
		err         error
		fresh, fail bool
		resumes     []string
	}{
		{"resumed", "s1", nil, false, false, []string{"s1"}},
		{"no session to resume", "", nil, true, false, []string{""}},
		{"resume failed", "s1", errors.New("no such session"), true, false, []string{"s1", ""}},
		{"not logged in", "s1", adapters.ErrNotAuthenticated, false, true, []string{"s1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &resumer{err: tt.err}
			b, fresh, err := (&Agent{}).StartResuming(context.Background(), r, adapters.SessionOptions{ResumeID: tt.id, Fork: tt.id != ""})
			var ids []string
			for _, o := range r.starts {
				ids = append(ids, o.ResumeID)
			}
			if (err != nil) != tt.fail || (b == nil) != tt.fail || fresh != tt.fresh || !slices.Equal(ids, tt.resumes) {
				t.Fatalf("fresh %v, %v, resumes %q", fresh, err, ids)
			}
			if last := r.starts[len(r.starts)-1]; last.ResumeID == "" && last.Fork {
				t.Fatal("a fresh start still asks to fork")
			}
		})
	}
}

func TestPlanStart_ResumesForksOrBriefs(t *testing.T) {
	tests := []struct {
		name   string
		caps   adapters.Capabilities
		id     string
		fork   bool
		missed string
		brief  string
		want   StartPlan
	}{
		{"resumes", adapters.Capabilities{Resume: true, Instructions: true}, "s1", false, "", "all", StartPlan{ResumeID: "s1"}},
		{"resumes, told what it missed", adapters.Capabilities{Resume: true}, "s1", false, "since", "all", StartPlan{ResumeID: "s1", Lead: "since"}},
		{"forks", adapters.Capabilities{Fork: true}, "s1", true, "", "all", StartPlan{ResumeID: "s1", Fork: true}},
		{"cannot fork: briefed ahead of the prompt", adapters.Capabilities{Resume: true}, "s1", true, "", "all", StartPlan{Lead: "all"}},
		{"cannot resume: briefed in its instructions", adapters.Capabilities{Instructions: true}, "s1", false, "since", "all", StartPlan{Instructions: "all"}},
		{"nothing to resume or tell", adapters.Capabilities{Resume: true}, "", false, "", "", StartPlan{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlanStart(tt.caps, tt.id, tt.fork, tt.missed, tt.brief); got != tt.want {
				t.Fatalf("PlanStart = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// A resumed session's first turn runs again briefed only when it failed
// before any tool call or text, and not for a cancel, a hook, the budget,
// or the agent's login or provider.
func TestResumeLost_OnlyAFailureThatDidNothing(t *testing.T) {
	fail := func(e adapters.ErrorInfo) *adapters.ErrorInfo { return &e }
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	answered := &Digest{}
	answered.Note(adapters.Event{Type: adapters.EventText, Text: "half an answer"})
	for _, tt := range []struct {
		name string
		ctx  context.Context
		oc   Outcome
		want bool
	}{
		{name: "exited at the prompt", oc: Outcome{Ending: Failed, Failure: fail(adapters.ErrorInfo{Code: adapters.CodeCrash, Message: "No conversation found"})}, want: true},
		{name: "prompt never taken", oc: Outcome{Ending: Lost, Failure: fail(adapters.ErrorInfo{Message: "broken pipe"})}, want: true},
		{name: "an error", oc: Outcome{Ending: Failed, Failure: fail(adapters.ErrorInfo{Message: "session file is corrupt"}), Digest: &Digest{}}, want: true},
		{name: "answered", oc: Outcome{Ending: Answered}},
		{name: "stuck", oc: Outcome{Ending: Stuck}},
		{name: "a tool call started", oc: Outcome{Ending: Failed, Failure: fail(adapters.ErrorInfo{Code: adapters.CodeCrash}), Digest: &Digest{ToolCalls: []ToolCall{{Title: "Read a.go"}}}}},
		{name: "answered, then exited", oc: Outcome{Ending: Failed, Failure: fail(adapters.ErrorInfo{Code: adapters.CodeCrash}), Digest: answered}},
		{name: "cancelled", ctx: cancelled, oc: Outcome{Ending: Lost, Failure: fail(adapters.ErrorInfo{Message: "cancelled"})}},
		{name: "a hook blocked it", oc: Outcome{Ending: Failed, Failure: fail(adapters.ErrorInfo{Code: adapters.CodeHook})}},
		{name: "over budget", oc: Outcome{Ending: Failed, Failure: fail(adapters.ErrorInfo{Code: adapters.CodeBudget})}},
		{name: "not logged in", oc: Outcome{Ending: Failed, Failure: fail(adapters.ErrorInfo{Code: adapters.CodeAuth})}},
		{name: "rate-limited", oc: Outcome{Ending: Failed, Failure: fail(adapters.ErrorInfo{Status: 429})}},
		{name: "provider failing", oc: Outcome{Ending: Failed, Failure: fail(adapters.ErrorInfo{Status: 503})}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResumeLost(cmp.Or[context.Context](tt.ctx, context.Background()), tt.oc); got != tt.want {
				t.Errorf("ResumeLost = %v, want %v", got, tt.want)
			}
		})
	}
}
