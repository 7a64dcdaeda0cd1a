package acp

import (
	"testing"

	"github.com/hubdev/hub/adapters"
)

func TestUsageUpdate_SentForContextOrCost(t *testing.T) {
	cost := 0.25
	tests := []struct {
		name     string
		u        *adapters.Usage
		sent     bool
		used     uint64
		size     uint64
		withCost bool
	}{
		{name: "context window", u: &adapters.Usage{InputTokens: 84, ContextSize: 1 << 20}, sent: true, used: 84, size: 1 << 20},
		{name: "cost without a context size", u: &adapters.Usage{InputTokens: 10, CostUSD: &cost}, sent: true, used: 10, withCost: true},
		{name: "tokens only, nothing to show", u: &adapters.Usage{InputTokens: 10, OutputTokens: 3}},
		{name: "nothing", u: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ups := usageUpdate(tc.u)
			if (len(ups) == 1) != tc.sent {
				t.Fatalf("updates %+v, want sent %v", ups, tc.sent)
			}
			if !tc.sent {
				return
			}
			u := ups[0].Usage
			if u.Used != tc.used || u.Size != tc.size || (u.Cost != nil) != tc.withCost {
				t.Fatalf("usage update %+v, want used %d size %d cost %v", u, tc.used, tc.size, tc.withCost)
			}
		})
	}
}
