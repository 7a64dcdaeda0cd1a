package adapters

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// ppDecoder reads the fake agent's lines "id:ID", "text:TEXT" and "done".
type ppDecoder struct{}

func (ppDecoder) Decode(line []byte) []Event {
	kind, arg, _ := strings.Cut(strings.TrimSpace(string(line)), ":")
	switch kind {
	case "id":
		return []Event{{Type: EventSessionInfo, Session: &SessionInfo{AgentSessionID: arg}}}
	case "text":
		return []Event{{Type: EventText, Text: arg}}
	case "done":
		return []Event{{Type: EventDone, StopReason: StopEndTurn}}
	}
	return nil
}

// ppFake is a PerPrompt whose prompt is the fake agent's ops ("|"
// between them; "missing" names a program that does not exist); it
// records each prompt's resume id and counts the cleanups.
type ppFake struct {
	*PerPrompt
	mu      sync.Mutex
	resumed []string
	cleaned int
}

func newPPFake(t *testing.T) *ppFake {
	f := &ppFake{}
	missing := filepath.Join(t.TempDir(), "missing")
	f.PerPrompt = &PerPrompt{Name: "fake", ResumeID: "given",
		NewDecoder: func() LineDecoder { return ppDecoder{} },
		Command: func(prompt []Content, resumeID string) (proc.Spec, func(), error) {
			f.mu.Lock()
			f.resumed = append(f.resumed, resumeID)
			f.mu.Unlock()
			argv := proctest.Command(strings.Split(PromptText(prompt), "|")...)
			if PromptText(prompt) == "missing" {
				argv = []string{missing}
			}
			return proc.Spec{Path: argv[0], Args: argv[1:]}, func() { f.mu.Lock(); f.cleaned++; f.mu.Unlock() }, nil
		}}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

type ppResult struct {
	reason StopReason
	err    error
}

// prompt runs one prompt: its events, then its result once they end.
func (f *ppFake) prompt(ctx context.Context, ops ...string) (<-chan Event, <-chan ppResult) {
	evs, res := make(chan Event, 16), make(chan ppResult, 1)
	go func() {
		reason, err := f.Prompt(ctx, TextPrompt(strings.Join(ops, "|")), func(ev Event) { evs <- ev })
		close(evs)
		res <- ppResult{reason, err}
	}()
	return evs, res
}

func (f *ppFake) state() (resumed []string, cleaned int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.resumed), f.cleaned
}

func ppKinds(evs <-chan Event) (kinds []string) {
	for ev := range evs {
		kinds = append(kinds, string(ev.Type))
	}
	return kinds
}

// A turn ends with the stream's EventDone once the process is gone, as
// the process's exit when the stream has none, and cancelled when hub stopped
// it; the next prompt resumes the session id the turn reported, and the
// prompt's cleanup has run.
func TestPerPrompt_TurnEnds(t *testing.T) {
	tests := []struct {
		name   string
		ops    []string
		cancel bool
		want   string // event kinds, then the stop reason
		id     string // the session id after the turn
	}{
		{name: "the stream's done", ops: []string{"out:id:s1\ntext:hi\ndone\n"}, want: "session_info text end_turn", id: "s1"},
		{name: "an exit without done", ops: []string{"out:text:hi\n", "exit:3"}, want: "text error end_turn", id: "given"},
		{name: "a cancel", ops: []string{"out:id:s2\ntext:hi\n", "hang"}, cancel: true, want: "session_info text cancelled", id: "s2"},
		// a process that closed its output but runs on is stopped after one wait
		{name: "done, then the output closed", ops: []string{"out:id:s3\ntext:hi\ndone\n", "closeio", "hang"}, want: "session_info text end_turn", id: "s3"},
		{name: "the output closed without done", ops: []string{"out:text:hi\n", "closeio", "hang"}, want: "text error end_turn", id: "given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newPPFake(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			evs, res := f.prompt(ctx, tt.ops...)
			var kinds []string
			for ev := range evs {
				if kinds = append(kinds, string(ev.Type)); tt.cancel && ev.Type == EventText {
					cancel()
				}
			}
			r := <-res
			if got := strings.Join(append(kinds, string(r.reason)), " "); got != tt.want {
				t.Errorf("turn %q (%v), want %q", got, r.err, tt.want)
			}
			if f.ID() != tt.id {
				t.Errorf("ID %q, want %q", f.ID(), tt.id)
			}
			evs, res = f.prompt(context.Background(), "out:done\n")
			if ppKinds(evs); (<-res).err != nil {
				t.Fatal("the next prompt failed")
			}
			if resumed, cleaned := f.state(); !slices.Equal(resumed, []string{"given", tt.id}) || cleaned != 2 {
				t.Errorf("resumed %q, cleaned %d times, want [given %s] and 2", resumed, cleaned, tt.id)
			}
		})
	}
}

// While a turn runs another prompt is refused, notes reach the turn, and
// Close stops the process, ends the turn cancelled and refuses later
// prompts; a program that does not start is an error that runs the
// cleanup and leaves the session idle.
func TestPerPrompt_BusyNotesCloseAndStartFailure(t *testing.T) {
	f := newPPFake(t)
	if _, err := f.Prompt(context.Background(), TextPrompt("missing"), func(Event) {}); !errors.Is(err, proc.ErrNotFound) {
		t.Fatalf("missing program: %v, want ErrNotFound", err)
	}
	if _, cleaned := f.state(); cleaned != 1 {
		t.Fatalf("cleaned %d times after a failed start, want 1", cleaned)
	}
	evs, res := f.prompt(context.Background(), "out:text:hi\n", "hang")
	if ev := <-evs; ev.Type != EventText {
		t.Fatalf("first event %+v", ev)
	}
	if _, err := f.Prompt(context.Background(), TextPrompt("out:done\n"), func(Event) {}); !errors.Is(err, ErrBusy) {
		t.Fatalf("prompt while busy: %v, want ErrBusy", err)
	}
	f.Note(Event{Type: EventText, Text: "noted"})
	if ev := <-evs; ev.Text != "noted" {
		t.Fatalf("the note did not reach the turn: %+v", ev)
	}
	_ = f.Close()
	if n := proc.Live(); n != 0 {
		t.Errorf("%d processes left after Close", n)
	}
	if ppKinds(evs); (<-res).reason != StopCancelled {
		t.Error("Close did not end the turn cancelled")
	}
	f.Note(Event{Type: EventText, Text: "between turns"}) // dropped
	if _, err := f.Prompt(context.Background(), TextPrompt("out:done\n"), func(Event) {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("prompt after Close: %v, want ErrClosed", err)
	}
}
