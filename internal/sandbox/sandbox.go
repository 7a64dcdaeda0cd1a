// Package sandbox confines the native loop's shell commands: bubblewrap
// (bwrap) on Linux, sandbox-exec on macOS, nothing on Windows. It parses
// the [sandbox] modes, builds the wrapping command line (OS-neutral, so it
// is tested everywhere) and says plainly when a command is not sandboxed.
//
// Modes:
//   - workspace-write (default): the session's working directory and a
//     private temp dir are writable, the rest of the file system is
//     read-only; the network is off unless network = true.
//   - read-only: nothing that outlives the command is writable; the
//     command still gets a private, empty temp dir (compilers, sort and
//     many tools need one), discarded when it exits.
//   - off: commands run as the user, unconfined.
package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// Mode is how much a sandboxed command may write.
type Mode string

// The modes, from the loosest to the strictest.
const (
	Off            Mode = "off"
	WorkspaceWrite Mode = "workspace-write"
	ReadOnly       Mode = "read-only"
)

// ErrMode marks a mode hub does not know.
var ErrMode = errors.New("unknown sandbox mode")

// ParseMode reads a [sandbox] mode; "" is the default, workspace-write.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case "":
		return WorkspaceWrite, nil
	case Off, WorkspaceWrite, ReadOnly:
		return m, nil
	}
	return "", fmt.Errorf("%w %q (use \"read-only\", \"workspace-write\" or \"off\")", ErrMode, s)
}

// Stricter reports whether m confines more than other.
func (m Mode) Stricter(other Mode) bool { return strictness[m] > strictness[other] }

// strictness ranks the modes; workspace-write and "" (its default) are 0.
var strictness = map[Mode]int{Off: -1, ReadOnly: 1}

// Policy is what a sandboxed command may do.
type Policy struct {
	Mode Mode
	// Network lets the command reach the network (and the host's
	// loopback); off by default.
	Network bool
}

// Wrapped is a command line that runs a program inside the sandbox.
type Wrapped struct {
	Path string
	Args []string
	// Env are variables to add to the command's environment.
	Env []string
}

// BwrapArgs builds bubblewrap's arguments that run path args in root:
// the whole file system read-only (so the user's tools stay usable), a
// fresh /dev and /proc, a private tmpfs on /tmp, root itself bound
// writable (workspace-write) or read-only again on top of the tmpfs
// (read-only; root may lie under /tmp), the secrets hidden (an empty
// tmpfs over a directory, /dev/null over a file), and no network unless
// allowed. The command stays in bwrap's process group, so killing the
// group stops it; its own PID namespace ends every process it left when
// it exits.
func BwrapArgs(p Policy, root string, secrets []Secret, path string, args []string) []string {
	out := []string{"--ro-bind", "/", "/", "--tmpfs", "/tmp"}
	if p.Mode == ReadOnly {
		out = append(out, "--ro-bind", root, root)
	} else {
		out = append(out, "--bind", root, root)
	}
	for _, s := range secrets { // after root, which may hold them (home as the workspace)
		if s.Dir {
			out = append(out, "--tmpfs", s.Path)
		} else {
			out = append(out, "--ro-bind", "/dev/null", s.Path)
		}
	}
	// After root, which may be / itself.
	out = append(out, "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-ipc")
	if !p.Network {
		out = append(out, "--unshare-net")
	}
	out = append(out, "--die-with-parent", "--setenv", "TMPDIR", "/tmp", "--chdir", root, "--", path)
	return append(out, args...)
}

// SeatbeltProfile is the sandbox-exec (Seatbelt) profile of p. Seatbelt
// cannot mount, so where bwrap gives a tmpfs the command gets a private
// temp dir (param TMP, also its TMPDIR); param ROOT is the workspace.
// Reads stay allowed everywhere, as with bwrap's read-only /, but for the
// secrets (params S0, S1, …), which can be neither read nor written.
// Writes are denied except to TMP, ROOT (workspace-write only) and the
// device files every shell writes to; with the network off, IP traffic is
// denied in both directions while Unix sockets (e.g. the user's
// ssh-agent, which a read-only / leaves reachable under bwrap too) stay
// usable. Later rules win in Seatbelt, so the secrets' deny comes last.
func SeatbeltProfile(p Policy, secrets []Secret) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n")
	b.WriteString("(allow file-write* (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\") (regex #\"^/dev/fd/\") (regex #\"^/dev/ttys\"))\n")
	b.WriteString("(allow file-write* (subpath (param \"TMP\")))\n")
	if p.Mode != ReadOnly {
		b.WriteString("(allow file-write* (subpath (param \"ROOT\")))\n")
	}
	if !p.Network {
		b.WriteString("(deny network-outbound (remote ip))\n(deny network-inbound (local ip))\n(deny network-bind (local ip))\n")
	}
	for i := range secrets {
		fmt.Fprintf(&b, "(deny file-read* file-write* (subpath (param \"S%d\")))\n", i)
	}
	return b.String()
}

// SeatbeltArgs are sandbox-exec's arguments that run path args under p
// with root as the workspace, tmp as the private temp dir and secrets
// hidden.
func SeatbeltArgs(p Policy, root, tmp string, secrets []Secret, path string, args []string) []string {
	out := []string{"-p", SeatbeltProfile(p, secrets), "-D", "ROOT=" + root, "-D", "TMP=" + tmp}
	for i, s := range secrets {
		out = append(out, "-D", fmt.Sprintf("S%d=%s", i, s.Path))
	}
	out = append(out, path)
	return append(out, args...)
}
