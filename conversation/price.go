package conversation

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"

	"github.com/hubdev/hub/adapters"
)

// Price is a model's price in USD per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// Cost is what u's input and output tokens cost at p.
func (p Price) Cost(u *adapters.Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output) / 1e6
}

//go:embed prices.json
var pricesJSON []byte

var prices = sync.OnceValue(func() map[string]Price {
	var t struct {
		Models map[string]Price `json:"models"`
	}
	_ = json.Unmarshal(pricesJSON, &t)
	return t.Models
})

// PriceOf finds model's price in the dated table (prices.json): its own
// entry, else the longest entry it starts with ("claude-sonnet-4-5-20250929"
// is priced as claude-sonnet-4), provider prefixes ("openai/gpt-4o")
// dropped.
func PriceOf(model string) (Price, bool) {
	m, best := strings.ToLower(model), ""
	m = m[strings.LastIndexByte(m, '/')+1:]
	for name := range prices() {
		if (name == m || strings.HasPrefix(m, name+"-")) && len(name) > len(best) {
			best = name
		}
	}
	p, ok := prices()[best]
	return p, ok
}
