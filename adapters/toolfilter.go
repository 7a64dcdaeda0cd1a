package adapters

import (
	"slices"
	"strings"
)

// ToolFilter narrows a session's tools. Entries are tool kinds ("read",
// "edit", "execute", …) or tool names, compared without letter case.
type ToolFilter struct {
	// Allow lists what may be used; nil allows every tool, an empty list
	// none.
	Allow []string `json:"allow"`
	Deny  []string `json:"deny,omitempty"`
}

// Permits says whether a tool of this name and kind may be used.
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

// IsKind says whether s names a tool kind (any letter case).
func IsKind(s string) bool {
	switch ToolKind(strings.ToLower(s)) {
	case KindRead, KindEdit, KindDelete, KindMove, KindSearch, KindExecute, KindThink, KindFetch, KindSwitchMode, KindOther:
		return true
	}
	return false
}

// Writes says whether a tool that changes files or runs commands may be
// used: an agent whose own sandbox decides (codex) goes read-only when not.
func (f *ToolFilter) Writes() bool {
	return slices.ContainsFunc([]ToolKind{KindEdit, KindDelete, KindMove, KindExecute}, func(k ToolKind) bool { return f.Permits("", k) })
}
