package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

type Sandbox struct {
	Policy Policy
	tool   string // the tool's path; "" when commands run unconfined
	reason string // why they do, when the mode is not off
}

// New finds the host's sandbox tool (bwrap on Linux, sandbox-exec on
// macOS) with lookPath, exec.LookPath when nil.
func New(p Policy, lookPath func(string) (string, error)) *Sandbox {
	p.Mode = cmp.Or(p.Mode, WorkspaceWrite)
	s := &Sandbox{Policy: p}
	if p.Mode == Off {
		return s
	}
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if hostTool == "" {
		s.reason = noToolReason
		return s
	}
	path, err := lookPath(hostTool)
	if err != nil {
		s.reason = hostTool + " not found; " + installHint
		return s
	}
	s.tool = path
	return s
}

func (s *Sandbox) Active() bool { return s != nil && s.tool != "" }

// Notice is the one line a command's output starts with when it should
// have been sandboxed and was not; "" otherwise (sandboxed, or mode off).
func (s *Sandbox) Notice() string {
	if s == nil || s.Active() || s.Policy.Mode == Off {
		return ""
	}
	return "[not sandboxed: " + s.reason + "]"
}

// Status is for hub doctor.
func (s *Sandbox) Status() string {
	switch {
	case s.Policy.Mode == Off:
		return "off ([sandbox] mode = \"off\"): commands run unconfined"
	case !s.Active():
		return "not sandboxed: " + s.reason
	}
	net := "network off"
	if s.Policy.Network {
		net = "network on"
	}
	return fmt.Sprintf("%s, %s (%s)", s.Policy.Mode, net, s.tool)
}

// Command returns the command line that runs path args in root under the
// sandbox (unchanged when not active), and a cleanup to call once it ended.
func (s *Sandbox) Command(root, path string, args []string) (Wrapped, func(), error) {
	if !s.Active() {
		return Wrapped{Path: path, Args: args}, func() {}, nil
	}
	return wrap(s, root, path, args)
}

// Check runs a trivial command under the sandbox, to tell a tool that is
// installed but cannot work here (e.g. no user namespaces) from one that does.
func (s *Sandbox) Check(ctx context.Context) error {
	if !s.Active() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	root := os.TempDir()
	w, cleanup, err := s.Command(root, "sh", []string{"-c", "true"})
	if err != nil {
		return err
	}
	defer cleanup()
	cmd := exec.CommandContext(ctx, w.Path, w.Args...)
	cmd.Dir, cmd.Env = root, append(os.Environ(), w.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s fails here: %w: %s", s.tool, err, bytes.TrimSpace(out))
	}
	return nil
}

var checks sync.Map // Check's verdict per tool and policy

// Checked is New, then Check (once per process for a tool and policy): a
// tool that cannot work here leaves commands unconfined, with a notice that
// says why, rather than failing every one of them.
func Checked(ctx context.Context, p Policy, lookPath func(string) (string, error)) *Sandbox {
	s := New(p, lookPath)
	if !s.Active() {
		return s
	}
	key := s.tool + "\x00" + string(s.Policy.Mode) + "\x00" + strconv.FormatBool(s.Policy.Network)
	v, ok := checks.Load(key)
	if !ok {
		reason := ""
		if err := s.Check(ctx); err != nil {
			reason = err.Error()
		}
		v, _ = checks.LoadOrStore(key, reason)
	}
	if reason := v.(string); reason != "" {
		s.tool, s.reason = "", reason
	}
	return s
}
