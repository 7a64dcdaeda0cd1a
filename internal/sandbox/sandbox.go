// Package sandbox confines the native loop's shell commands: bubblewrap
// (bwrap) on Linux, sandbox-exec on macOS, nothing on Windows. It builds the
// wrapping command line (OS-neutral, so tested everywhere) and says plainly
// when a command is not sandboxed. Modes:
//   - workspace-write (default): the session's working directory and a
//     private temp dir are writable, the rest read-only; no network unless
//     network = true.
//   - read-only: only a private, empty temp dir (many tools need one) is
//     writable, discarded when the command exits.
//   - off: commands run as the user, unconfined.
package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// Mode is how much a sandboxed command may write.
type Mode string

const (
	Off            Mode = "off"
	WorkspaceWrite Mode = "workspace-write"
	ReadOnly       Mode = "read-only"
)

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

func (m Mode) Stricter(other Mode) bool { return strictness[m] > strictness[other] }

// strictness ranks the modes; workspace-write and "" (its default) are 0.
var strictness = map[Mode]int{Off: -1, ReadOnly: 1}

type Policy struct {
	Mode    Mode
	Network bool // the network and the host's loopback
}

// Wrapped is a command line that runs a program inside the sandbox.
type Wrapped struct {
	Path string
	Args []string
	Env  []string // to add to the command's environment
}

// BwrapArgs runs path args in root: / read-only (the user's tools stay
// usable), a fresh /dev and /proc, a private tmpfs on /tmp, root bound again
// on top of it (root may lie under /tmp), the secrets hidden (an empty tmpfs
// over a directory, /dev/null over a file). The command stays in bwrap's
// process group, so killing the group stops it; its own PID namespace ends
// every process it left when it exits.
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
// cannot mount, so the command gets a private temp dir (param TMP) where
// bwrap gives a tmpfs; ROOT is the workspace; the secrets are params S0, S1,
// …. Reads are allowed but for the secrets; writes only to TMP, ROOT
// (workspace-write) and the shell's device files. With the network off, IP
// traffic is denied but Unix sockets (the user's ssh-agent, reachable under
// bwrap too) are not. Later rules win, so the secrets' deny comes last.
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

// SeatbeltArgs run path args under p with root as the workspace and tmp as
// the private temp dir.
func SeatbeltArgs(p Policy, root, tmp string, secrets []Secret, path string, args []string) []string {
	out := []string{"-p", SeatbeltProfile(p, secrets), "-D", "ROOT=" + root, "-D", "TMP=" + tmp}
	for i, s := range secrets {
		out = append(out, "-D", fmt.Sprintf("S%d=%s", i, s.Path))
	}
	out = append(out, path)
	return append(out, args...)
}
