package gemini

import (
	"encoding/json"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
)

// Quirks are gemini's departures from ACP: a prompt's token usage in the result's
// `_meta.quota`.
var Quirks = acpclient.Quirks{ResultUsage: quotaUsage}

func quotaUsage(result json.RawMessage) *adapters.Usage {
	var r struct {
		Meta struct {
			Quota *struct {
				TokenCount struct {
					InputTokens  int64 `json:"input_tokens"`
					OutputTokens int64 `json:"output_tokens"`
				} `json:"token_count"`
			} `json:"quota"`
		} `json:"_meta"`
	}
	if adapters.Unmarshal(result, &r) != nil || r.Meta.Quota == nil {
		return nil
	}
	tc := r.Meta.Quota.TokenCount
	if tc.InputTokens+tc.OutputTokens == 0 {
		return nil
	}
	return &adapters.Usage{InputTokens: tc.InputTokens, OutputTokens: tc.OutputTokens, ContextUsed: tc.InputTokens, ContextSize: contextWindow}
}

// contextWindow is that of the models gemini CLI runs (2.5 Pro and Flash, 3 Pro); the
// quota reports none.
const contextWindow = 1 << 20
