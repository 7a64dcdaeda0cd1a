package streamparse

import (
	"strconv"

	"github.com/hubdev/hub/adapters"
)

// More scanner fast paths of ACPDecoder: the acpUpdate members with numbers
// and nested objects (plan, usage_update), permission requests and prompt
// results with usage. As in acp_fast.go, anything whose encoding/json result
// is not certain (type mismatches, fractions in integer fields, duplicate or
// case-variant keys) returns ok=false and takes the encoding/json path.

// acpUpdateFast decodes every acpUpdate member except Content exactly like
// encoding/json would; availableCommands comes back as hub's commands.
func acpUpdateFast(v *[acpUpN][]byte) (acpUpdate, []adapters.Command, bool) {
	var u acpUpdate
	var cmds []adapters.Command
	var ok [9]bool
	u.SessionUpdate, ok[0] = jsonStr(v[acpUpKind])
	u.MessageID, ok[1] = jsonStr(v[acpUpMessageID])
	u.ToolCallID, ok[2] = jsonStr(v[acpUpToolCallID])
	u.Title, ok[3] = jsonStrPtr(v[acpUpTitle])
	u.Entries, ok[4] = acpPlanFast(v[acpUpEntries])
	cmds, ok[5] = acpCommandsFast(v[acpUpCommands])
	u.Used, ok[6] = acpInt64Ptr(v[acpUpUsed])
	u.Size, ok[7] = acpInt64Ptr(v[acpUpSize])
	u.Cost, ok[8] = acpCostFast(v[acpUpCost])
	for _, good := range ok {
		if !good {
			return u, nil, false
		}
	}
	return u, cmds, true
}

// acpInt reads an optional integer member: absent and null give 0; anything
// encoding/json would reject for an int of that size gives ok=false.
func acpInt(v []byte, bits int) (int64, bool) {
	if v == nil || string(v) == "null" {
		return 0, true
	}
	n, err := strconv.ParseInt(string(v), 10, bits)
	return n, err == nil
}

func acpInt64Ptr(v []byte) (*int64, bool) {
	if v == nil || string(v) == "null" {
		return nil, true
	}
	n, ok := acpInt(v, 64)
	return &n, ok
}

func acpCostFast(b []byte) (*acpCost, bool) {
	if b == nil || string(b) == "null" {
		return nil, true
	}
	var v [2][]byte
	if !jsonIsObj(b) || !jsonPick(b, []string{"amount", "currency"}, v[:]) {
		return nil, false
	}
	c := &acpCost{}
	if a := v[0]; a != nil && string(a) != "null" {
		f, err := strconv.ParseFloat(string(a), 64)
		if err != nil {
			return nil, false
		}
		c.Amount = f
	}
	var ok bool
	c.Currency, ok = jsonStr(v[1])
	return c, ok
}

var acpPlanKeys = []string{"content", "priority", "status"}

func acpPlanFast(b []byte) ([]adapters.PlanEntry, bool) {
	if b == nil || string(b) == "null" {
		return nil, true
	}
	if b[0] != '[' {
		return nil, false
	}
	out := []adapters.PlanEntry{}
	good := true
	end := -1
	jsonArray(b, func(item []byte) bool {
		var v [3][]byte
		if good = jsonIsObj(item) && jsonPick(item, acpPlanKeys, v[:]); !good {
			return false
		}
		var e adapters.PlanEntry
		var ok [3]bool
		e.Content, ok[0] = jsonStr(v[0])
		e.Priority, ok[1] = jsonStr(v[1])
		e.Status, ok[2] = jsonStr(v[2])
		good = ok[0] && ok[1] && ok[2]
		out = append(out, e)
		return good
	}, &end)
	return out, good
}

var acpLocationKeys = []string{"path", "line"}

func acpLocationsFast(b []byte) ([]adapters.Location, bool) {
	if b == nil || string(b) == "null" {
		return nil, true
	}
	if b[0] != '[' {
		return nil, false
	}
	out := []adapters.Location{}
	good := true
	end := -1
	jsonArray(b, func(item []byte) bool {
		var v [2][]byte
		if good = jsonIsObj(item) && jsonPick(item, acpLocationKeys, v[:]); !good {
			return false
		}
		path, ok1 := jsonStr(v[0])
		line, ok2 := acpInt(v[1], strconv.IntSize)
		good = ok1 && ok2
		out = append(out, adapters.Location{Path: path, Line: int(line)})
		return good
	}, &end)
	return out, good
}

// permissionFast decodes session/request_permission params.
func (d *ACPDecoder) permissionFast(params []byte) ([]adapters.Event, bool) {
	var v [2][]byte
	if !jsonIsObj(params) || !jsonPick(params, []string{"toolCall", "options"}, v[:]) {
		return nil, false
	}
	var p acpPermissionParams
	if tcb := v[0]; tcb != nil && string(tcb) != "null" {
		var tv [acpUpN][]byte
		if !jsonIsObj(tcb) || !jsonPick(tcb, acpUpdateKeys, tv[:]) {
			return nil, false
		}
		tc, ok := acpToolCallFast(&tv)
		if !ok {
			return nil, false
		}
		p.ToolCall = tc
	}
	opts, ok := acpPermOptionsFast(v[1])
	if !ok {
		return nil, false
	}
	p.Options = opts
	return []adapters.Event{{Type: adapters.EventPermission, Permission: acpPermission(p)}}, true
}

var acpOptionKeys = []string{"optionId", "name", "kind"}

func acpPermOptionsFast(b []byte) ([]acpPermOption, bool) {
	if b == nil || string(b) == "null" {
		return nil, true
	}
	if b[0] != '[' {
		return nil, false
	}
	var out []acpPermOption
	good := true
	end := -1
	jsonArray(b, func(item []byte) bool {
		var v [3][]byte
		if good = jsonIsObj(item) && jsonPick(item, acpOptionKeys, v[:]); !good {
			return false
		}
		var o acpPermOption
		var ok [3]bool
		o.OptionID, ok[0] = jsonStr(v[0])
		o.Name, ok[1] = jsonStr(v[1])
		o.Kind, ok[2] = jsonStr(v[2])
		good = ok[0] && ok[1] && ok[2]
		out = append(out, o)
		return good
	}, &end)
	return out, good
}

var (
	acpResultKeys = []string{"stopReason", "sessionId", "usage", "_meta"}
	acpUsageKeys  = []string{"inputTokens", "outputTokens", "thoughtTokens", "cachedReadTokens", "cachedWriteTokens"}
)

// promptResultFast decodes a prompt result like ACPPromptResult.
func acpPromptResultFast(stop string, usage, meta []byte) ([]adapters.Event, bool) {
	var pu *acpPromptUsage
	if usage != nil && string(usage) != "null" {
		var v [5][]byte
		if !jsonIsObj(usage) || !jsonPick(usage, acpUsageKeys, v[:]) {
			return nil, false
		}
		pu = &acpPromptUsage{}
		for i, dst := range []*int64{&pu.InputTokens, &pu.OutputTokens, &pu.ThoughtTokens, &pu.CachedReadTokens, &pu.CachedWriteTokens} {
			n, ok := acpInt(v[i], 64)
			if !ok {
				return nil, false
			}
			*dst = n
		}
	}
	quota, ok := acpQuotaFast(meta)
	if !ok {
		return nil, false
	}
	var out []adapters.Event
	if u := acpResultUsage(pu, quota); u != nil {
		out = append(out, adapters.Event{Type: adapters.EventUsage, Usage: u})
	}
	return append(out, adapters.Event{Type: adapters.EventDone, StopReason: acpStopReason(stop)}), true
}

// acpQuotaFast reads _meta.quota.token_count.
func acpQuotaFast(meta []byte) (*acpQuota, bool) {
	if meta == nil || string(meta) == "null" {
		return nil, true
	}
	var mv, qv [1][]byte
	if !jsonIsObj(meta) || !jsonPick(meta, []string{"quota"}, mv[:]) {
		return nil, false
	}
	if mv[0] == nil || string(mv[0]) == "null" {
		return nil, true
	}
	if !jsonIsObj(mv[0]) || !jsonPick(mv[0], []string{"token_count"}, qv[:]) {
		return nil, false
	}
	q := &acpQuota{}
	if tc := qv[0]; tc != nil && string(tc) != "null" {
		var v [2][]byte
		if !jsonIsObj(tc) || !jsonPick(tc, []string{"input_tokens", "output_tokens"}, v[:]) {
			return nil, false
		}
		var ok1, ok2 bool
		q.TokenCount.InputTokens, ok1 = acpInt(v[0], 64)
		q.TokenCount.OutputTokens, ok2 = acpInt(v[1], 64)
		if !ok1 || !ok2 {
			return nil, false
		}
	}
	return q, true
}
