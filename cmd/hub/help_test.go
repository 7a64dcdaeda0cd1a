package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Each shell's script names every subcommand, their flags (--approve is
// hub run's) and asks hub for agent names; bash's parses.
func TestCompletion_EveryShell(t *testing.T) {
	isolate(t)
	for _, shell := range shells {
		t.Run(shell, func(t *testing.T) {
			code, out, errOut := hub(t, nil, "completion", shell)
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			for _, name := range visibleCommands() {
				if !strings.Contains(out, name) {
					t.Errorf("%s script lacks the subcommand %s", shell, name)
				}
			}
			for _, w := range []string{"approve", "agents --names", "trust-project", "check-timeout"} {
				if !strings.Contains(out, w) {
					t.Errorf("%s script lacks %q", shell, w)
				}
			}
			if strings.Contains(out, "'man'") || strings.Contains(out, " man ") {
				t.Errorf("%s script offers the hidden man command", shell)
			}
			if shell != "bash" {
				return
			}
			bash, err := exec.LookPath("bash")
			if err != nil {
				t.Skip("no bash here")
			}
			f := filepath.Join(t.TempDir(), "hub.bash")
			if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			if b, err := exec.Command(bash, "-n", f).CombinedOutput(); err != nil {
				t.Errorf("bash -n: %v\n%s", err, b)
			}
		})
	}
	if code, _, errOut := hub(t, nil, "completion", "tcsh"); code != exitUsage || strings.Count(errOut, "\n") != 1 {
		t.Errorf("an unknown shell: exit %d, stderr %q; want 2 and one line", code, errOut)
	}
}

func TestAgents_NamesOneALine(t *testing.T) {
	isolate(t)
	code, out, _ := hub(t, nil, "agents", "--names")
	names := strings.Fields(out)
	if code != exitOK || len(names) == 0 || strings.Contains(out, "\t") || !strings.Contains("\n"+out, "\nclaude\n") {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
}

func TestMan_NamesEverySubcommand(t *testing.T) {
	isolate(t)
	code, out, errOut := hub(t, nil, "man")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{".TH HUB 1", ".SH NAME\n", ".SH SYNOPSIS\n", ".SH DESCRIPTION\n", `\-\-approve`, ".SH EXIT STATUS"} {
		if !strings.Contains(out, w) {
			t.Errorf("man page lacks %q", w)
		}
	}
	for _, name := range visibleCommands() {
		if !strings.Contains(out, `.SS "hub `+name+`"`) {
			t.Errorf("man page lacks the subcommand %s", name)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "'") || strings.HasPrefix(l, ".") && len(l) > 1 && !strings.Contains(".TH.SH.SS.TP.PP.B .I .nf.fi", l[:3]) {
			t.Errorf("line would be read as a roff request: %q", l)
		}
	}
}

// Installed under another name (GitHub's hub owns /usr/bin/hub), help,
// errors, completion and the man page use that name.
func TestProgName_FollowsArgv0(t *testing.T) {
	isolate(t)
	old := progName
	progName = nameOf(filepath.Join("usr", "local", "bin", "hubctl.exe"))
	t.Cleanup(func() { progName = old })
	if progName != "hubctl" {
		t.Fatalf("nameOf = %q, want hubctl", progName)
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"hubctl run --agent NAME", "'hubctl run --help'"}},
		{[]string{"help", "run"}, []string{"Usage: hubctl run", "hubctl run --agent claude"}},
		{[]string{"completion", "bash"}, []string{"complete -o default -F _hubctl_complete 'hubctl'", "'hubctl' agents --names"}},
		{[]string{"completion", "fish"}, []string{"complete -c 'hubctl'"}},
		{[]string{"completion", "zsh"}, []string{"compdef _hubctl 'hubctl'"}},
		{[]string{"completion", "powershell"}, []string{"-CommandName @('hubctl', 'hubctl.exe')"}},
		{[]string{"man"}, []string{".TH HUBCTL 1", `.SS "hubctl run"`}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, out, _ := hub(t, nil, c.args...)
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			if strings.Contains(out, "hub run") || strings.Contains(out, "'hub'") {
				t.Errorf("output still says hub:\n%s", out)
			}
		})
	}
	if _, _, errOut := hub(t, nil, "frobnicate"); !strings.HasPrefix(errOut, "hubctl: unknown command") {
		t.Errorf("error %q does not name hubctl", errOut)
	}
	if _, _, errOut := hub(t, nil, "run", "--agent", "x", "--approve", "maybe", "hi"); !strings.HasPrefix(errOut, "hubctl: usage error") {
		t.Errorf("hub run: error %q does not name hubctl", errOut)
	}
	for _, args := range [][]string{{"agents", "--yaml"}, {"agents", "extra"}, {"sessions", "frobnicate"}, {"login"}} {
		if _, _, errOut := hub(t, nil, args...); !strings.Contains(errOut, "hubctl "+args[0]+":") || strings.Contains(errOut, "'hub ") {
			t.Errorf("hub %q: error %q does not name hubctl", args, errOut)
		}
	}
}

func TestNameOf_Argv0(t *testing.T) {
	for in, want := range map[string]string{
		"hub": "hub", filepath.Join("usr", "bin", "hubctl"): "hubctl", "hub.exe": "hub", "Hub.EXE": "Hub", "": "hub",
		"hub-agents": "hub-agents",
	} {
		if got := nameOf(in); got != want {
			t.Errorf("nameOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// named renames the command, never paths or prefixes that hold "hub".
func TestNamed_OnlyTheCommand(t *testing.T) {
	old := progName
	progName = "hubctl"
	t.Cleanup(func() { progName = old })
	in := `hub run; 'hub trust'; "command": "hub"; ~/.config/hub/config.toml .hub/ hub/<run> hub_x github hubs HUB_LOG`
	want := `hubctl run; 'hubctl trust'; "command": "hubctl"; ~/.config/hub/config.toml .hub/ hub/<run> hub_x github hubs HUB_LOG`
	if got := named(in); got != want {
		t.Errorf("named:\n got %s\nwant %s", got, want)
	}
}
