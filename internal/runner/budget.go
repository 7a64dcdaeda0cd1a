package runner

import (
	"cmp"
	"fmt"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

// budget stops a run at --max-tokens (input and output tokens), --max-cost
// (USD: the agent's own report, else the price table's) or --max-turns
// (tool rounds, which hub counts unless the agent keeps the budget of its
// turn itself), each summed over the run: every turn of every attempt, the
// --output-schema repair turn and the --fallback agents' included. Each
// attempt has one, carrying what the attempts before it used. The first
// check over a limit signals hit once; the run then cancels the turn
// gracefully, keeping what arrived.
type budget struct {
	maxTokens int64
	maxCost   float64
	maxTurns  int
	price     *conversation.Price // nil: only the agent's own cost report counts

	tokens int64           // what the run's ended turns used
	cost   float64         // likewise, in USD (0 when nothing priced it)
	turn   *adapters.Usage // the running turn's usage so far

	maxRounds int             // 0: the agent keeps its own turn budget, or none
	rounds    int             // tool rounds so far, over the run
	spoke     bool            // model output since the last tool call
	running   map[string]bool // tool calls not ended yet

	once sync.Once
	hit  chan struct{}
	why  string // the one line the summary gives
	kind string // "tokens", "cost" or "turns"
}

// newBudget makes an attempt's budget; countTurns says hub counts the
// agent's tool rounds for --max-turns.
func newBudget(o Options, model string, countTurns bool) *budget {
	b := &budget{maxTokens: o.MaxTokens, maxCost: o.MaxCost, maxTurns: o.MaxTurns, hit: make(chan struct{}, 1), running: map[string]bool{}}
	if p, ok := conversation.PriceOf(model); ok {
		b.price = &p
	}
	if countTurns {
		b.maxRounds = o.MaxTurns
	}
	return b
}

// carry counts what the run's earlier attempts used (prior's; nil: none)
// against this attempt.
func (b *budget) carry(prior *budget) *budget {
	if prior != nil {
		b.tokens, b.cost, b.rounds = prior.tokens, prior.cost, prior.rounds
	}
	return b
}

// round counts tool rounds for --max-turns: a tool call opens a round when
// the model spoke (text, thought, a usage report) since the last tool
// call, or no earlier call is still running; calls in flight together are
// one round. A round past a limit hub keeps signals hit.
func (b *budget) round(ev adapters.Event) {
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
		b.stopOver()
	case adapters.EventToolUpdate:
		if ended {
			delete(b.running, ev.Tool.ID)
		}
	}
}

// check adds a usage report to the turn's and signals hit when the run is
// over a limit; model is the one the agent reported, priced when the
// run's own has no price (claude's "default").
func (b *budget) check(u *adapters.Usage, model string) {
	if u == nil {
		return
	}
	if p, ok := conversation.PriceOf(model); ok && b.price == nil {
		b.price = &p
	}
	b.turn = conversation.MergeUsage(b.turn, u)
	b.stopOver()
}

// over names the first limit the run passed, with its kind; "" when none.
// A limit is passed when the run used more than it (README: "stop a run
// that passes them"): a budget used exactly stops nothing, and a fallback
// agent may still take over.
func (b *budget) over() (why, kind string) {
	switch tokens, cost := b.used(); {
	case b.maxTokens > 0 && tokens > b.maxTokens:
		return fmt.Sprintf("--max-tokens %d (%d tokens used)", b.maxTokens, tokens), "tokens"
	case b.maxCost > 0 && cost > b.maxCost:
		return fmt.Sprintf("--max-cost %.4g ($%.4f spent)", b.maxCost, cost), "cost"
	case b.maxRounds > 0 && b.rounds > b.maxRounds:
		return fmt.Sprintf("--max-turns %d (the agent started tool round %d)", b.maxRounds, b.rounds), "turns"
	}
	return "", ""
}

// stopOver signals hit when the run passed a limit.
func (b *budget) stopOver() {
	if why, kind := b.over(); kind != "" {
		b.signal("stopped at "+why, kind)
	}
}

// endTurn adds the turn's usage to what the run used. A later turn of the
// session (the --output-schema repair turn) has its tool rounds counted
// by hub: an agent that keeps its own turn budget starts it afresh.
func (b *budget) endTurn() {
	b.tokens, b.cost = b.used()
	b.turn, b.maxRounds = nil, b.maxTurns
}

// used is what the run used so far: its tokens, and its cost as far as
// a report or a price tells it.
func (b *budget) used() (tokens int64, cost float64) {
	u := cmp.Or(b.turn, &adapters.Usage{})
	switch tokens, cost = b.tokens+u.InputTokens+u.OutputTokens, b.cost; {
	case u.CostUSD != nil:
		cost += *u.CostUSD
	case b.price != nil:
		cost += b.price.Cost(u)
	}
	return tokens, cost
}

// signal reports the first limit passed.
func (b *budget) signal(why, kind string) {
	b.once.Do(func() {
		b.why, b.kind = why, kind
		b.hit <- struct{}{}
	})
}
