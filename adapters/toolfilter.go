package adapters

import (
	"slices"
	"strings"
)

// ToolFilter narrows a session's tools. Entries are tool kinds ("read", "edit", …) or
// tool names, compared without letter case.
type ToolFilter struct {
	Allow []string `json:"allow"` // nil allows every tool, an empty list none
	Deny  []string `json:"deny,omitempty"`
}

func (f *ToolFilter) Permits(name string, kind ToolKind) bool {
	if f == nil {
		return true
	}
	hit := func(list []string) bool {
		return slices.ContainsFunc(list, func(e string) bool {
			return strings.EqualFold(e, name) || (kind != "" && strings.EqualFold(e, string(kind)))
		})
	}
	return (f.Allow == nil || hit(f.Allow)) && !hit(f.Deny)
}

// IsKind says whether s names a tool kind, in any letter case.
func IsKind(s string) bool {
	kinds := []ToolKind{KindRead, KindEdit, KindDelete, KindMove, KindSearch, KindExecute, KindThink, KindFetch,
		KindSwitchMode, KindOther}
	return slices.Contains(kinds, ToolKind(strings.ToLower(s)))
}

// WriteKinds are the tool kinds that change files or run commands, which plan and
// read-only modes deny.
var WriteKinds = []string{string(KindEdit), string(KindDelete), string(KindMove), string(KindExecute)}

// Writes says whether a WriteKinds tool may be used: an agent whose own sandbox decides
// (codex) goes read-only when not.
func (f *ToolFilter) Writes() bool {
	return slices.ContainsFunc(WriteKinds, func(k string) bool { return f.Permits("", ToolKind(k)) })
}
