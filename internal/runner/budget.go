package runner

import (
	"fmt"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

// budget stops a run at --max-tokens, --max-cost (the agent's report, else
// the price table's) or --max-turns (tool rounds hub counts, unless the
// agent keeps its own turn budget), each summed over every turn of every
// attempt. The first check over a limit signals hit once; the run then
// cancels the turn gracefully, keeping what arrived.
type budget struct {
	limits Options              // the run's: MaxTokens, MaxCost, MaxTurns
	model  string               // the model asked for (Digest.Spent)
	digest *conversation.Digest // what this attempt's turns used

	tokens int64   // what the run's earlier attempts used
	cost   float64 // likewise, in USD (0 when nothing priced it)

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
	b := &budget{limits: o, model: model, digest: &conversation.Digest{}, hit: make(chan struct{}, 1), running: map[string]bool{}}
	if countTurns {
		b.maxRounds = o.MaxTurns
	}
	return b
}

// carry counts what the run's earlier attempts used (prior's; nil: none)
// against this attempt, whose turns d digests.
func (b *budget) carry(prior *budget, d *conversation.Digest) *budget {
	if b.digest = d; prior != nil {
		b.tokens, b.cost = prior.used()
		b.rounds = prior.rounds
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

// over names the first limit the run passed, with its kind; "" when none.
// A budget used exactly is not passed (README: "stop a run that passes
// them"), so a fallback agent may still take over.
func (b *budget) over() (why, kind string) {
	switch tokens, cost := b.used(); {
	case b.limits.MaxTokens > 0 && tokens > b.limits.MaxTokens:
		return fmt.Sprintf("--max-tokens %d (%d tokens used)", b.limits.MaxTokens, tokens), "tokens"
	case b.limits.MaxCost > 0 && cost > b.limits.MaxCost:
		return fmt.Sprintf("--max-cost %.4g ($%.4f spent)", b.limits.MaxCost, cost), "cost"
	case b.maxRounds > 0 && b.rounds > b.maxRounds:
		return fmt.Sprintf("--max-turns %d (the agent started tool round %d)", b.maxRounds, b.rounds), "turns"
	}
	return "", ""
}

// stopOver signals hit when the run passed a limit: after each tool call
// and usage report of a turn, which the digest took in first.
func (b *budget) stopOver() {
	if why, kind := b.over(); kind != "" {
		b.signal("stopped at "+why, kind)
	}
}

// endTurn ends a turn: a later turn of the session (the --output-schema
// repair turn) has its tool rounds counted by hub, since an agent that
// keeps its own turn budget starts it afresh.
func (b *budget) endTurn() { b.maxRounds = b.limits.MaxTurns }

// used is what the run used so far: its tokens, and its cost as far as
// a report or a price tells it.
func (b *budget) used() (tokens int64, cost float64) {
	tokens, cost = b.digest.Spent(b.model)
	return b.tokens + tokens, b.cost + cost
}

// signal reports the first limit passed.
func (b *budget) signal(why, kind string) {
	b.once.Do(func() {
		b.why, b.kind = why, kind
		b.hit <- struct{}{}
	})
}
