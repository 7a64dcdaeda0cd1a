package permission

import (
	"fmt"
	"strings"
	"sync"

	"github.com/hubdev/hub/adapters"
)

// PolicyMode names an approval policy for headless runs (hub run --approve).
type PolicyMode string

const (
	PolicyAll      PolicyMode = "all"       // approve every ask
	PolicyReadOnly PolicyMode = "read-only" // approve reads and searches only
	PolicyNone     PolicyMode = "none"      // reject every ask
)

// Policy answers permission requests without a user and records what it
// rejected, so the caller can report it. Safe for concurrent use.
type Policy struct {
	mode   PolicyMode
	mu     sync.Mutex
	denied []adapters.ToolCall
}

// NewPolicy returns the policy for mode: "all", "read-only" or "none".
func NewPolicy(mode string) (*Policy, error) {
	m := PolicyMode(strings.ToLower(strings.TrimSpace(mode)))
	switch m {
	case PolicyAll, PolicyReadOnly, PolicyNone:
		return &Policy{mode: m}, nil
	case "readonly", "read":
		return &Policy{mode: PolicyReadOnly}, nil
	}
	return nil, fmt.Errorf("%w: approval policy %q must be all, read-only or none", ErrInvalidRule, mode)
}

// Allows reports whether the policy approves a tool of this kind.
func (p *Policy) Allows(kind adapters.ToolKind) bool {
	switch p.mode {
	case PolicyAll:
		return true
	case PolicyReadOnly:
		switch kind {
		case adapters.KindRead, adapters.KindSearch, adapters.KindThink, adapters.KindFetch:
			return true
		}
	}
	return false
}

// Decide picks the answer for req and records rejections. It prefers the
// "once" options so nothing is remembered beyond this call.
func (p *Policy) Decide(req *adapters.PermissionRequest) adapters.PermissionDecision {
	allow := p.Allows(req.Tool.Kind)
	want := []adapters.PermissionOptionKind{adapters.RejectOnce, adapters.RejectAlways}
	if allow {
		want = []adapters.PermissionOptionKind{adapters.AllowOnce, adapters.AllowAlways}
	}
	if !allow {
		p.mu.Lock()
		p.denied = append(p.denied, req.Tool)
		p.mu.Unlock()
	}
	for _, k := range want {
		if o, ok := req.OptionFor(k); ok {
			return adapters.PermissionDecision{OptionID: o.ID, Kind: o.Kind}
		}
	}
	// No matching option: cancelling is the only safe way to refuse.
	if allow && len(req.Options) > 0 {
		return adapters.PermissionDecision{OptionID: req.Options[0].ID, Kind: req.Options[0].Kind}
	}
	return adapters.PermissionDecision{Cancelled: !allow, Kind: want[0]}
}

// Respond decides and answers req (the consumer side of an EventPermission).
func (p *Policy) Respond(req *adapters.PermissionRequest) adapters.PermissionDecision {
	d := p.Decide(req)
	req.Respond(d)
	return d
}

// Denied returns the tool calls the policy rejected, in order.
func (p *Policy) Denied() []adapters.ToolCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]adapters.ToolCall(nil), p.denied...)
}
