package adapters

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Before a consumer is attached, Emit never waits (an adapter's reader may
// still have to read the prompt's answer): it returns with nobody reading,
// and Run later hands on every event in order.
func TestTurn_EmitNeverBlocksAndKeepsOrder(t *testing.T) {
	tr := NewTurn()
	for i := range 10000 {
		tr.Emit(Event{Type: EventText, Text: string(rune('a' + i%26))})
	}
	tr.Close(Event{Type: EventDone, StopReason: StopMaxTokens})
	tr.Emit(Event{Type: EventText, Text: "late"}) // after Close: dropped
	n := 0
	reason, err := tr.Run(context.Background(), func(ev Event) {
		if ev.Text != string(rune('a'+n%26)) {
			t.Fatalf("event %d out of order: %q", n, ev.Text)
		}
		n++
	}, TurnRules{})
	if n != 10000 || reason != StopMaxTokens || err != nil {
		t.Fatalf("%d events, reason %q, err %v", n, reason, err)
	}
}

// kinds renders events as "type:id:status" for tools, "type" otherwise.
func kinds(evs []Event) []string {
	var out []string
	for _, ev := range evs {
		s := string(ev.Type)
		if ev.Tool != nil {
			s += ":" + ev.Tool.ID + ":" + string(ev.Tool.Status)
		}
		out = append(out, s)
	}
	return out
}

func tool(typ EventType, id string, st ToolStatus) Event {
	return Event{Type: typ, Tool: &ToolCall{ID: id, Title: "t " + id, Status: st}}
}

// The one failure rule and the end of a turn, the same for every adapter.
func TestTurn_EndsOpenToolsAndDecidesFailure(t *testing.T) {
	fatal := Event{Type: EventError, Error: &ErrorInfo{Message: "boom", Code: CodeProvider, Fatal: true}}
	warn := Event{Type: EventError, Error: &ErrorInfo{Message: "quota", Code: CodeRateLimit}}
	done := Event{Type: EventDone, StopReason: StopEndTurn}
	tests := []struct {
		name     string
		evs      []Event
		want     []string
		wantCode ErrorCode // "" = the turn succeeds
	}{
		{"open tool ends failed", []Event{tool(EventToolCall, "a", StatusPending), tool(EventToolCall, "b", StatusInProgress),
			tool(EventToolUpdate, "b", StatusCompleted), done},
			[]string{"tool_call:a:pending", "tool_call:b:in_progress", "tool_update:b:completed", "tool_update:a:failed"}, ""},
		{"an update opens a call it names first", []Event{tool(EventToolUpdate, "c", StatusInProgress), done},
			[]string{"tool_update:c:in_progress", "tool_update:c:failed"}, ""},
		{"fatal error fails the turn", []Event{{Type: EventText, Text: "x"}, fatal, done}, []string{"text", "error"}, CodeProvider},
		{"only a warning fails the turn", []Event{warn, done}, []string{"error"}, CodeRateLimit},
		{"a retry notice alone does not", []Event{{Type: EventError, Error: RetryError("a", 429, "1", "")}, done}, []string{"error"}, ""},
		{"a warning beside work does not", []Event{warn, {Type: EventText, Text: "x"}, done}, []string{"error", "text"}, ""},
		{"no end is a protocol failure", []Event{{Type: EventText, Text: "x"}}, []string{"text"}, CodeProtocol},
		{"no end after a fatal keeps the fatal", []Event{fatal}, []string{"error"}, CodeProvider},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTurn()
			tr.Emit(tt.evs...)
			tr.Close()
			var got []Event
			_, err := tr.Run(context.Background(), func(ev Event) { got = append(got, ev) }, TurnRules{})
			if !slices.Equal(kinds(got), tt.want) {
				t.Errorf("events %q, want %q", kinds(got), tt.want)
			}
			var failed *TurnError
			switch {
			case tt.wantCode == "" && err != nil:
				t.Errorf("err %v, want none", err)
			case tt.wantCode != "" && (!errors.As(err, &failed) || failed.Info.Code != tt.wantCode):
				t.Errorf("err %v, want a %s failure", err, tt.wantCode)
			}
		})
	}
}

// Permission is asked through the rules, on Run's goroutine, after the
// events before it and before those after it; the asked tool is open.
func TestTurn_PermissionInOrder(t *testing.T) {
	tr := NewTurn()
	req := NewPermissionRequest(ToolCall{ID: "p", Title: "rm"}, nil)
	tr.Emit(Event{Type: EventText, Text: "before"}, Event{Type: EventPermission, Permission: req})
	var order []string
	go func() {
		d := <-req.Decision()
		tr.Emit(Event{Type: EventText, Text: "after " + string(d.Kind)})
		tr.Close(Event{Type: EventDone, StopReason: StopEndTurn})
	}()
	_, err := tr.Run(context.Background(), func(ev Event) { order = append(order, ev.Text+string(ev.Type)) },
		TurnRules{Permission: func(_ context.Context, p *PermissionRequest) PermissionDecision {
			order = append(order, "ask "+p.Tool.ID)
			return PermissionDecision{Kind: RejectOnce}
		}})
	want := []string{"beforetext", "ask p", "after reject_oncetext", "tool_update"}
	if err != nil || !slices.Equal(order, want) {
		t.Fatalf("order %q err %v, want %q", order, err, want)
	}
}

// A permission request answered elsewhere while it is being asked (the
// agent withdrew it, the turn was cancelled) or whose agent ended its turn
// (it exited) ends the asking: the asker's context ends, the agent gets
// "cancelled" whatever the asker answers late, and the turn's later
// events do not wait for a question nobody needs.
func TestTurn_PermissionAnsweredElsewhereEndsTheAsking(t *testing.T) {
	for name, end := range map[string]func(tr *Turn, cancelRequest context.CancelFunc, req *PermissionRequest){
		"agent withdrew or crashed": func(_ *Turn, cancelRequest context.CancelFunc, _ *PermissionRequest) { cancelRequest() },
		"turn cancelled":            func(tr *Turn, _ context.CancelFunc, _ *PermissionRequest) { tr.Cancel() },
		"adapter answered": func(_ *Turn, _ context.CancelFunc, req *PermissionRequest) {
			req.Respond(PermissionDecision{Cancelled: true})
		},
		"agent ended its turn": func(tr *Turn, _ context.CancelFunc, _ *PermissionRequest) {
			tr.Close(Event{Type: EventText, Text: "after"}, Event{Type: EventDone, StopReason: StopEndTurn})
		},
	} {
		t.Run(name, func(t *testing.T) {
			tr := NewTurn()
			req := NewPermissionRequest(ToolCall{ID: "p", Title: "rm"}, nil)
			reqCtx, cancelRequest := context.WithCancel(context.Background())
			defer cancelRequest()
			asking, agent := make(chan struct{}), make(chan PermissionDecision, 1)
			go func() {
				agent <- tr.Ask(reqCtx, req)
				tr.Close(Event{Type: EventText, Text: "after"}, Event{Type: EventDone, StopReason: StopEndTurn})
			}()
			go func() { <-asking; end(tr, cancelRequest, req) }()
			var texts []string
			_, err := tr.Run(context.Background(), func(ev Event) { texts = append(texts, ev.Text) },
				TurnRules{Permission: func(ctx context.Context, _ *PermissionRequest) PermissionDecision {
					close(asking)
					<-ctx.Done() // the editor never answers
					return PermissionDecision{Kind: AllowAlways}
				}})
			if d := <-agent; err != nil || !d.Cancelled || !slices.Contains(texts, "after") {
				t.Fatalf("agent got %+v, events %q, err %v", d, texts, err)
			}
		})
	}
}

// A question whose agent ended its turn (it exited) is nobody's either:
// the asking ends and the agent's side hears "cancelled".
func TestTurn_QuestionOfAnEndedTurnEndsTheAsking(t *testing.T) {
	tr := NewTurn()
	q := NewQuestionRequest("t", []Question{{ID: "q", Text: "which?"}})
	tr.Emit(Event{Type: EventQuestion, Question: q})
	_, err := tr.Run(context.Background(), func(Event) {}, TurnRules{Ask: func(ctx context.Context, _ *QuestionRequest) Answers {
		tr.Close(Event{Type: EventDone, StopReason: StopEndTurn})
		<-ctx.Done() // the editor never answers
		return Answers{Values: map[string][]string{"q": {"late"}}}
	}})
	if a := <-q.Answer(); err != nil || !a.Cancelled {
		t.Fatalf("the agent heard %+v, err %v", a, err)
	}
}

// Ending ctx interrupts the agent once; a turn that then ends is
// cancelled, and one that does not is given up after the grace period.
func TestTurn_CancelInterruptsThenGivesUpAfterGrace(t *testing.T) {
	for _, agentStops := range []bool{true, false} {
		tr := NewTurn()
		ctx, cancel := context.WithCancel(context.Background())
		interrupts := 0
		grace := 50 * time.Millisecond
		if agentStops { // the stop must win under any load, not within a short grace
			grace = time.Minute
		}
		tr.Emit(Event{Type: EventText, Text: "working"})
		reason, err := tr.Run(ctx, func(Event) { cancel() }, TurnRules{Grace: grace, Interrupt: func() {
			interrupts++
			if agentStops {
				tr.Close(Event{Type: EventDone, StopReason: StopEndTurn})
			}
		}})
		wantErr := error(nil)
		if !agentStops {
			wantErr = ErrCancelTimeout
		}
		if reason != StopCancelled || !errors.Is(err, wantErr) || interrupts != 1 {
			t.Errorf("agent stops %v: reason %q err %v interrupts %d", agentStops, reason, err, interrupts)
		}
		cancel()
	}
}

// An agent that ends its turn because of the cancel (it watches the same
// context) may close its events before Run sees the cancel: the turn is
// still cancelled, and the calls it left open are still the client's.
func TestTurn_AgentEndingOnTheCancelLeavesOpenToolsAlone(t *testing.T) {
	for range 100 {
		tr := NewTurn()
		ctx, cancel := context.WithCancel(context.Background())
		tr.Emit(tool(EventToolCall, "a", StatusInProgress))
		var got []Event
		reason, err := tr.Run(ctx, func(ev Event) {
			got = append(got, ev)
			// The cancel, and the agent's end on it, before Run looks again.
			cancel()
			tr.Close()
			<-tr.out // returns once the stream is closed
		}, TurnRules{})
		if reason != StopCancelled || err != nil || slices.Contains(kinds(got), "tool_update:a:failed") {
			t.Fatalf("reason %q err %v events %q, want cancelled with the call left open", reason, err, kinds(got))
		}
	}
}

// A consumer that stalls (an editor that stopped reading) makes Emit wait
// once TurnQueue events are queued: the queue stays bounded, and once the
// consumer goes on every event arrives, in order, none dropped.
func TestTurn_StalledConsumerBoundsTheQueue(t *testing.T) {
	const n = 20 * TurnQueue
	tr := NewTurn()
	gate, stalled, filled, done := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan int)
	go func() {
		peak := 0
		tr.Emit(Event{Type: EventText, Text: "0"})
		<-stalled // Run is attached
		for i := 1; i < n; i++ {
			tr.Emit(Event{Type: EventText, Text: strconv.Itoa(i)})
			peak = max(peak, tr.Queued())
			if i == TurnQueue {
				close(filled)
			}
		}
		tr.Close(Event{Type: EventDone})
		done <- peak
	}()
	got := 0
	runDone := make(chan error, 1)
	go func() {
		_, err := tr.Run(context.Background(), func(ev Event) {
			if got == 0 { // the consumer stalls on the first event
				close(stalled)
				<-gate
			}
			if ev.Text != strconv.Itoa(got) {
				t.Errorf("event %d is %q", got, ev.Text)
			}
			got++
		}, TurnRules{})
		runDone <- err
	}()
	<-filled
	close(gate)
	peak := <-done
	if err := <-runDone; err != nil || got != n {
		t.Fatalf("%d of %d events arrived (%v)", got, n, err)
	}
	if peak > TurnQueue {
		t.Fatalf("%d events queued behind a stalled consumer, bound %d", peak, TurnQueue)
	}
}
