//go:build unix && !linux

package supervise

// adoptOrphans and killOrphans need Linux's child subreaper: elsewhere a
// descendant that left the agent's process group is not reached.
func adoptOrphans() {}
func killOrphans()  {}
