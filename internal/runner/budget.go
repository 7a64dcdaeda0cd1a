package runner

import (
	"fmt"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

// budget stops a run at --max-tokens (input and output tokens summed over
// the attempt) or --max-cost (USD: the agent's own report, else the price
// table's). The first check over a limit signals hit once; the run then
// cancels the turn gracefully, keeping what arrived.
type budget struct {
	maxTokens int64
	maxCost   float64
	price     *conversation.Price // nil: only the agent's own cost report counts

	once sync.Once
	hit  chan struct{}
	why  string // the one line the summary gives
	kind string // "tokens" or "cost"
}

func newBudget(o Options, model string) *budget {
	b := &budget{maxTokens: o.MaxTokens, maxCost: o.MaxCost, hit: make(chan struct{}, 1)}
	if p, ok := conversation.PriceOf(model); ok {
		b.price = &p
	}
	return b
}

// check signals hit when u is over a limit.
func (b *budget) check(u *adapters.Usage) {
	if b == nil || u == nil {
		return
	}
	var why, kind string
	if n := u.InputTokens + u.OutputTokens; b.maxTokens > 0 && n > b.maxTokens {
		why, kind = fmt.Sprintf("stopped at --max-tokens %d: %d tokens used", b.maxTokens, n), "tokens"
	} else if c, ok := b.cost(u); ok && b.maxCost > 0 && c > b.maxCost {
		why, kind = fmt.Sprintf("stopped at --max-cost %.4g: $%.4f spent", b.maxCost, c), "cost"
	}
	if why == "" {
		return
	}
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
