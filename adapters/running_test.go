package adapters

import (
	"errors"
	"testing"
)

// One turn runs at a time; its EventDone frees the session; an event while
// idle has what it asks refused; a late End of an old turn leaves the new
// one running; and an exit ends the running turn cancelled or as a crash.
func TestRunning_OneTurnAtATime(t *testing.T) {
	var r Running
	first, err := r.Start()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Start(); !errors.Is(err, ErrBusy) {
		t.Fatalf("second start: %v, want ErrBusy", err)
	}
	if !r.Emit(Event{Type: EventText, Text: "hi"}) || !r.Emit(Event{Type: EventDone, StopReason: StopEndTurn}) {
		t.Fatal("the running turn refused an event")
	}
	if got := collect(first.Events()); len(got) != 2 || got[1].Type != EventDone || r.Current() != nil {
		t.Fatalf("first turn got %+v, running %v", got, r.Current())
	}
	p := NewPermissionRequest(ToolCall{ID: "t"}, nil)
	if r.Emit(Event{Type: EventPermission, Permission: p}) || !(<-p.Decision()).Cancelled {
		t.Fatal("a permission asked while idle was not refused")
	}
	if first.Cancel(); !first.IsCancelled() || r.Cancelled() {
		t.Fatal("an ended turn's cancel reached the idle session")
	}
	second, _ := r.Start()
	if r.Cancelled() || !second.Cancel() || second.Cancel() || !r.Cancelled() {
		t.Fatal("a new turn is not cancelled once, by the first Cancel")
	}
	r.End(first, Failure(&ErrorInfo{Message: "late"})...)
	if r.Current() != second {
		t.Fatal("ending the old turn ended the new one")
	}
	for _, cancelled := range []bool{true, false} {
		r.Exited(cancelled, Failure(&ErrorInfo{Message: "crash", Fatal: true})...)
		got := collect(second.Events())
		if last := got[len(got)-1]; (last.StopReason == StopCancelled) != cancelled || r.Current() != nil {
			t.Fatalf("exit (cancelled %v) ended the turn with %+v", cancelled, got)
		}
		second, _ = r.Start()
	}
}

func collect(ch <-chan Event) []Event {
	var evs []Event
	for ev := range ch {
		evs = append(evs, ev)
	}
	return evs
}
