package runner

import (
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/permission"
)

// Approve is the fixed policy that answers permission requests in CI.
type Approve string

const (
	ApproveAll      Approve = "all"       // allow everything
	ApproveReadOnly Approve = "read-only" // allow read, search, fetch, think
	ApproveNone     Approve = "none"      // reject everything
)

func (a Approve) valid() bool {
	return a == ApproveAll || a == ApproveReadOnly || a == ApproveNone
}

var readOnlyKinds = map[adapters.ToolKind]bool{
	adapters.KindRead: true, adapters.KindSearch: true, adapters.KindFetch: true, adapters.KindThink: true,
}

// Allows reports whether the policy lets a tool of this kind run.
func (a Approve) Allows(kind adapters.ToolKind) bool {
	switch a {
	case ApproveAll:
		return true
	case ApproveReadOnly:
		return readOnlyKinds[kind]
	}
	return false
}

// Decide picks the answer to req: a one-time allow or reject option.
func (a Approve) Decide(req *adapters.PermissionRequest) adapters.PermissionDecision {
	return a.decide(req, req.Tool.Kind)
}

// decide answers req as a call of kind (the kind hub read, which is
// execute for a call carrying a command whatever kind it claims).
func (a Approve) decide(req *adapters.PermissionRequest, kind adapters.ToolKind) adapters.PermissionDecision {
	kinds := []adapters.PermissionOptionKind{adapters.RejectOnce, adapters.RejectAlways}
	if a.Allows(kind) {
		kinds = []adapters.PermissionOptionKind{adapters.AllowOnce, adapters.AllowAlways}
	}
	for _, k := range kinds {
		if o, ok := req.OptionFor(k); ok {
			return adapters.PermissionDecision{OptionID: o.ID, Kind: o.Kind}
		}
	}
	return adapters.PermissionDecision{Kind: kinds[0]}
}

// access is what the agent may do unasked under a: only --approve all lets
// an agent's own sandbox decide; otherwise every write and command must
// reach Decide as a permission request.
func (a Approve) access() adapters.Access {
	if a == ApproveAll {
		return adapters.AccessAgentDefault
	}
	return adapters.AccessAskFirst
}

// Access is what the agent may do unasked under a (see access).
func (a Approve) Access() adapters.Access { return a.access() }

// Valid reports whether a is all, read-only or none.
func (a Approve) Valid() bool { return a.valid() }

// Decide answers a permission request in hub's one evaluation order: the
// rules service (hard denies, the config's rules, --allow-tool, skills)
// first, then the --approve policy; reason names what decided. A request
// that must be asked (a secret read, a call hub cannot read) is refused:
// nobody can answer it in a headless run. So is a request whose options
// share an id.
func Decide(rules *permission.Service, a Approve, cwd string, p *adapters.PermissionRequest) (adapters.PermissionDecision, string) {
	reject := func() adapters.PermissionDecision { return Approve(ApproveNone).decide(p, p.Tool.Kind) }
	if why := permission.OptionsProblem(p.Options); why != "" {
		return adapters.PermissionDecision{Kind: adapters.RejectOnce}, why
	}
	req := permission.RequestOf(p.Tool, cwd)
	d, reason := a.decide(p, req.Kind), "--approve "+string(a)
	if v, decided := rules.Decide(req); decided {
		switch {
		case v.Decision == permission.Deny:
			d, reason = reject(), v.Reason // whatever --approve says
		case v.Must:
			d, reason = reject(), "refused: "+v.Reason+"; nobody can answer in hub run"
		case v.Decision == permission.Allow:
			d, reason = Approve(ApproveAll).decide(p, req.Kind), v.Reason
		}
	}
	return d, reason
}
