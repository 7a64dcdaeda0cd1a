package adapters

import (
	"context"
	"testing"
)

// An agent's reader never waits on the consumer: Emit returns with nobody
// reading, and the consumer later gets every event in order, then the end.
func TestQueue_EmitNeverBlocksAndKeepsOrder(t *testing.T) {
	q := NewQueue()
	for i := range 10000 {
		q.Emit(Event{Type: EventText, Text: string(rune('a' + i%26))})
	}
	q.Close(Event{Type: EventDone, StopReason: StopEndTurn})
	q.Emit(Event{Type: EventText, Text: "late"}) // after Close: dropped
	n := 0
	var last Event
	for ev := range q.Events() {
		if ev.Type == EventText && ev.Text != string(rune('a'+n%26)) {
			t.Fatalf("event %d out of order: %q", n, ev.Text)
		}
		n++
		last = ev
	}
	if n != 10001 || last.Type != EventDone {
		t.Fatalf("got %d events ending with %+v", n, last)
	}
}

// WatchTurn cancels once when ctx ends before the turn, and passes every
// event on.
func TestWatchTurn_CancelsOnceOnContextEnd(t *testing.T) {
	q := NewQueue()
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	out := WatchTurn(ctx, q.Events(), func() { calls++; q.Close(Event{Type: EventDone, StopReason: StopCancelled}) })
	q.Emit(Event{Type: EventText, Text: "x"})
	if ev := <-out; ev.Text != "x" {
		t.Fatalf("first event %+v", ev)
	}
	cancel()
	var evs []Event
	for ev := range out {
		evs = append(evs, ev)
	}
	if calls != 1 || len(evs) != 1 || evs[0].StopReason != StopCancelled {
		t.Fatalf("cancel calls %d, events %+v", calls, evs)
	}
}
