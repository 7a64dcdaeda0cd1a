package conversation

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"

	"github.com/hubdev/hub/adapters"
)

// Price is in USD per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

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

// PriceOf finds model's own entry in prices.json, else the longest one it
// starts with ("claude-sonnet-4-5-20250929" is claude-sonnet-4), without
// a provider prefix ("openai/").
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
