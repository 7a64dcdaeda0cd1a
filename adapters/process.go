package adapters

import (
	"bufio"

	"github.com/hubdev/hub/internal/proc"
)

// Flusher is a LineDecoder that holds records back until the next line
// shows what they mean; the end of the stream releases them.
type Flusher interface {
	Flush() []Event
}

// ProcessTurn reads a one-prompt agent process into t: stdout line by line
// through dec, each event to onEvent (may be nil) and then t, except the
// stream's EventDone, which ends t once the process is gone. Then exited
// runs and says whether the turn was interrupted (it ends cancelled); a
// stream without EventDone ends with what noEnd says of the exit.
func ProcessTurn(p *proc.Process, t *Turn, dec LineDecoder, onEvent func(Event), exited func() (cancelled bool), noEnd func(waitErr error) []Event) {
	var done *Event
	deliver := func(evs []Event) {
		for _, ev := range evs {
			if ev.Type == EventDone {
				d := ev
				done = &d
				continue
			}
			if onEvent != nil {
				onEvent(ev)
			}
			t.Emit(ev)
		}
	}
	r := bufio.NewReaderSize(p.Stdout, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		deliver(dec.Decode(line))
		if err != nil {
			break
		}
	}
	if f, ok := dec.(Flusher); ok {
		deliver(f.Flush())
	}
	waitErr := p.Wait()
	switch {
	case exited():
		t.Close(Event{Type: EventDone, StopReason: StopCancelled})
	case done != nil:
		t.Close(*done)
	default:
		t.Close(noEnd(waitErr)...)
	}
}
