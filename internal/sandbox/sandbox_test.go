package sandbox

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestParseMode_KnownModesAndDefault(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"", WorkspaceWrite, false},
		{"workspace-write", WorkspaceWrite, false},
		{" read-only ", ReadOnly, false},
		{"off", Off, false},
		{"danger", "", true},
		{"Read-Only", "", true},
	} {
		got, err := ParseMode(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrMode)) {
			t.Errorf("ParseMode(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestMode_StricterOrdersOffWorkspaceReadOnly(t *testing.T) {
	for _, tc := range []struct {
		a, b Mode
		want bool
	}{
		{ReadOnly, WorkspaceWrite, true},
		{WorkspaceWrite, Off, true},
		{ReadOnly, Off, true},
		{Off, WorkspaceWrite, false},
		{WorkspaceWrite, "", false}, // "" is workspace-write
		{WorkspaceWrite, ReadOnly, false},
		{ReadOnly, ReadOnly, false},
	} {
		if got := tc.a.Stricter(tc.b); got != tc.want {
			t.Errorf("%q.Stricter(%q) = %v; want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// pairIndex is the index of the flag followed by its arguments, or -1.
func pairIndex(args []string, flag ...string) int {
	for i := range args {
		if i+len(flag) <= len(args) && slices.Equal(args[i:i+len(flag)], flag) {
			return i
		}
	}
	return -1
}

func TestBwrapArgs_BindsPerMode(t *testing.T) {
	const root = "/tmp/work space"
	for _, tc := range []struct {
		name       string
		p          Policy
		rootBind   []string
		unshareNet bool
	}{
		{"workspace-write", Policy{Mode: WorkspaceWrite}, []string{"--bind", root, root}, true},
		{"workspace-write with network", Policy{Mode: WorkspaceWrite, Network: true}, []string{"--bind", root, root}, false},
		{"read-only", Policy{Mode: ReadOnly}, []string{"--ro-bind", root, root}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secrets := []Secret{{Path: "/home/u/.ssh", Dir: true}, {Path: "/home/u/.netrc"}}
			args := BwrapArgs(tc.p, root, secrets, "bash", []string{"-c", "echo hi"})
			ro := pairIndex(args, "--ro-bind", "/", "/")
			tmp := pairIndex(args, "--tmpfs", "/tmp")
			bind := pairIndex(args, tc.rootBind...)
			if ro < 0 || tmp < 0 || bind < 0 || !(ro < tmp && tmp < bind) {
				t.Errorf("args %q: want / read-only, then a tmpfs /tmp, then %q (root may be under /tmp)", args, tc.rootBind)
			}
			if ssh, netrc := pairIndex(args, "--tmpfs", "/home/u/.ssh"), pairIndex(args, "--ro-bind", "/dev/null", "/home/u/.netrc"); ssh < bind || netrc < bind {
				t.Errorf("args %q: want the secrets hidden after the root bind (home may be the workspace)", args)
			}
			if got := slices.Contains(args, "--unshare-net"); got != tc.unshareNet {
				t.Errorf("--unshare-net present = %v; want %v", got, tc.unshareNet)
			}
			for _, want := range [][]string{{"--dev", "/dev"}, {"--proc", "/proc"}, {"--chdir", root}, {"--unshare-pid"}, {"--die-with-parent"}} {
				if pairIndex(args, want...) < 0 {
					t.Errorf("args %q lack %q", args, want)
				}
			}
			if slices.Contains(args, "--new-session") {
				t.Errorf("--new-session would take the command out of the process group proc kills")
			}
			if tail := args[len(args)-4:]; !slices.Equal(tail, []string{"--", "bash", "-c", "echo hi"}) {
				t.Errorf("args end %q; want the command after --", tail)
			}
		})
	}
}

func TestSeatbeltProfile_WritesAndNetworkPerMode(t *testing.T) {
	for _, tc := range []struct {
		name      string
		p         Policy
		rootWrite bool
		netDenied bool
	}{
		{"workspace-write", Policy{Mode: WorkspaceWrite}, true, true},
		{"read-only", Policy{Mode: ReadOnly}, false, true},
		{"network", Policy{Mode: WorkspaceWrite, Network: true}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secrets := []Secret{{Path: "/Users/u/.ssh", Dir: true}}
			prof := SeatbeltProfile(tc.p, secrets)
			if !strings.HasSuffix(prof, "(deny file-read* file-write* (subpath (param \"S0\")))\n") {
				t.Errorf("profile must end denying the secrets (later rules win):\n%s", prof)
			}
			if !strings.Contains(prof, "(deny file-write*)") || !strings.Contains(prof, `(subpath (param "TMP"))`) {
				t.Errorf("profile must deny writes but to the private temp dir:\n%s", prof)
			}
			if got := strings.Contains(prof, `(subpath (param "ROOT"))`); got != tc.rootWrite {
				t.Errorf("workspace writable = %v; want %v:\n%s", got, tc.rootWrite, prof)
			}
			if got := strings.Contains(prof, "(deny network-outbound (remote ip))"); got != tc.netDenied {
				t.Errorf("network denied = %v; want %v:\n%s", got, tc.netDenied, prof)
			}
			args := SeatbeltArgs(tc.p, "/w", "/t", secrets, "bash", []string{"-c", "x"})
			if pairIndex(args, "-D", "ROOT=/w") < 0 || pairIndex(args, "-D", "TMP=/t") < 0 || pairIndex(args, "-D", "S0=/Users/u/.ssh") < 0 || !slices.Equal(args[len(args)-3:], []string{"bash", "-c", "x"}) {
				t.Errorf("sandbox-exec args %q", args)
			}
		})
	}
}

func TestNew_WithoutTheToolCommandsRunWithANotice(t *testing.T) {
	missing := func(string) (string, error) { return "", errors.New("not found") }
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	sandboxable := runtime.GOOS == "linux" || runtime.GOOS == "darwin"
	for _, tc := range []struct {
		name       string
		p          Policy
		lookPath   func(string) (string, error)
		wantActive bool
		wantNotice bool
	}{
		{"tool missing", Policy{Mode: WorkspaceWrite}, missing, false, true},
		{"tool missing, read-only", Policy{Mode: ReadOnly}, missing, false, true},
		{"mode off", Policy{Mode: Off}, found, false, false},
		{"tool found", Policy{Mode: WorkspaceWrite}, found, sandboxable, !sandboxable},
		{"default mode", Policy{}, found, sandboxable, !sandboxable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.p, tc.lookPath)
			if s.Active() != tc.wantActive {
				t.Errorf("Active() = %v; want %v", s.Active(), tc.wantActive)
			}
			notice := s.Notice()
			if (notice != "") != tc.wantNotice || (tc.wantNotice && !strings.Contains(notice, "not sandboxed")) {
				t.Errorf("Notice() = %q; want a not-sandboxed notice: %v", notice, tc.wantNotice)
			}
			if strings.Contains(notice, "\n") {
				t.Errorf("notice %q is not one line", notice)
			}
			if tc.wantNotice && !strings.Contains(s.Status(), "not sandboxed") {
				t.Errorf("Status() = %q; want it to say not sandboxed", s.Status())
			}
			w, cleanup, err := s.Command("/w", "bash", []string{"-c", "true"})
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			if wrapped := w.Path != "bash"; wrapped != tc.wantActive {
				t.Errorf("Command path %q; wrapped = %v, want %v", w.Path, wrapped, tc.wantActive)
			}
		})
	}
}
