package conversation

import (
	"context"
	"testing"
	"time"
)

// warmAgent is an Agent of fakeHost sharing w; its Nap refuses while busy
// and reports each sleep on napped.
func warmAgent(w *Warm, busy *bool, napped chan<- string) *Agent {
	a := (&fakeHost{}).agent()
	a.Warm = w
	a.Nap = func(why string) bool {
		if *busy {
			return false
		}
		if b := a.Sleep(); b != nil {
			_ = b.Close()
		}
		napped <- why
		return true
	}
	return a
}

// Starting an agent over the cap sleeps the least recently used idle one;
// a busy one is never slept, however old.
func TestWarm_CapSleepsTheLeastRecentlyUsedIdleAgent(t *testing.T) {
	w := &Warm{Limit: 2}
	napped := make(chan string, 3)
	var busy [3]bool
	var agents [3]*Agent
	for i := range agents {
		agents[i] = warmAgent(w, &busy[i], napped)
	}
	for _, a := range agents[:2] {
		a.LaunchWarm()
		if _, _, err := a.Await(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	busy[0] = true // the oldest runs a turn
	agents[2].LaunchWarm()
	if why := <-napped; why != "warm agent cap" || agents[1].Holds() || !agents[0].Holds() || !agents[2].Holds() {
		t.Fatalf("napped %q; holding: %v %v %v, want the idle second agent slept", why, agents[0].Holds(), agents[1].Holds(), agents[2].Holds())
	}
	if len(napped) != 0 {
		t.Fatal("more than one agent slept to make room for one")
	}
}

// An agent no turn used for Idle sleeps.
func TestWarm_IdleAgentSleeps(t *testing.T) {
	napped := make(chan string, 1)
	busy := false
	a := warmAgent(&Warm{Idle: time.Millisecond}, &busy, napped)
	if _, _, err := a.Await(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.Rest()
	select {
	case why := <-napped:
		if why != "idle timeout" || a.Holds() {
			t.Fatalf("napped %q, holding %v: want the idle agent asleep", why, a.Holds())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the idle agent never slept")
	}
}
