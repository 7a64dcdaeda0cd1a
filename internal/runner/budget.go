package runner

import (
	"fmt"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

// budget stops a run at --max-tokens (input and output tokens summed over
// the attempt), --max-cost (USD: the agent's own report, else the price
// table's) or, for an agent that keeps no turn budget itself, --max-turns
// (its tool rounds). The first check over a limit signals hit once; the
// run then cancels the turn gracefully, keeping what arrived.
type budget struct {
	maxTokens int64
	maxCost   float64
	price     *conversation.Price // nil: only the agent's own cost report counts

	maxRounds int             // 0: the agent keeps its own turn budget, or none
	rounds    int             // tool rounds so far
	spoke     bool            // model output since the last tool call
	running   map[string]bool // tool calls not ended yet

	once sync.Once
	hit  chan struct{}
	why  string // the one line the summary gives
	kind string // "tokens", "cost" or "turns"
}

// newBudget makes the run's budget; countTurns says hub counts the
// agent's tool rounds for --max-turns.
func newBudget(o Options, model string, countTurns bool) *budget {
	b := &budget{maxTokens: o.MaxTokens, maxCost: o.MaxCost, hit: make(chan struct{}, 1), running: map[string]bool{}}
	if p, ok := conversation.PriceOf(model); ok {
		b.price = &p
	}
	if countTurns {
		b.maxRounds = o.MaxTurns
	}
	return b
}

// round counts tool rounds for --max-turns: a tool call opens a round when
// the model spoke (text, thought, a usage report) since the last tool
// call, or no earlier call is still running; calls in flight together are
// one round. A round past the limit signals hit.
func (b *budget) round(ev adapters.Event) {
	if b.maxRounds <= 0 {
		return
	}
	ended := ev.Tool != nil && (ev.Tool.Status == adapters.StatusCompleted || ev.Tool.Status == adapters.StatusFailed)
	switch ev.Type {
	case adapters.EventText, adapters.EventThought, adapters.EventUsage:
		b.spoke = true
	case adapters.EventToolCall:
		if b.spoke || len(b.running) == 0 {
			b.rounds++
		}
		if b.spoke = false; ev.Tool != nil && !ended {
			b.running[ev.Tool.ID] = true
		}
		if b.rounds > b.maxRounds {
			b.signal(fmt.Sprintf("stopped at --max-turns %d: the agent started tool round %d", b.maxRounds, b.rounds), "turns")
		}
	case adapters.EventToolUpdate:
		if ended {
			delete(b.running, ev.Tool.ID)
		}
	}
}

// check signals hit when u is over a limit; model is the one the agent
// reported, priced when the run's own has no price (claude's "default").
func (b *budget) check(u *adapters.Usage, model string) {
	if u == nil {
		return
	}
	if p, ok := conversation.PriceOf(model); ok && b.price == nil {
		b.price = &p
	}
	if n := u.InputTokens + u.OutputTokens; b.maxTokens > 0 && n > b.maxTokens {
		b.signal(fmt.Sprintf("stopped at --max-tokens %d: %d tokens used", b.maxTokens, n), "tokens")
	} else if c, ok := b.cost(u); ok && b.maxCost > 0 && c > b.maxCost {
		b.signal(fmt.Sprintf("stopped at --max-cost %.4g: $%.4f spent", b.maxCost, c), "cost")
	}
}

// signal reports the first limit passed.
func (b *budget) signal(why, kind string) {
	b.once.Do(func() {
		b.why, b.kind = why, kind
		b.hit <- struct{}{}
	})
}

// cost is what u cost: the agent's report, else the price table's.
func (b *budget) cost(u *adapters.Usage) (float64, bool) {
	if u.CostUSD != nil {
		return *u.CostUSD, true
	}
	if b.price == nil {
		return 0, false
	}
	return b.price.Cost(u), true
}
