package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// isolate gives the in-process hub an empty HOME, XDG dirs and PATH, so
// no user config, cache or agent binary of the machine leaks in.
func isolate(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"} {
		d := filepath.Join(root, strings.ToLower(k))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv(k, d)
	}
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	// The scripted replay agent exists only where the config names it.
	cfg := filepath.Join(root, "xdg_config_home", "hub")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "config.toml"), []byte("[agents.replay]\ntype = \"replay\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SHELL", "")
	t.Setenv("HUB_LOG", "")
	t.Setenv("HUB_REPLAY_SCRIPT", "")
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"} {
		t.Setenv(k, "")
	}
	return root
}

func hub(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code = realMain(context.Background(), args, stdin, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRealMain_TopLevel(t *testing.T) {
	isolate(t)
	// A test binary carries neither linker flags nor VCS stamps.
	versionLine := "hub dev (commit unknown, built unknown, " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	cases := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{args: []string{"version"}, code: exitOK, stdout: versionLine},
		{args: []string{"--version"}, code: exitOK, stdout: versionLine},
		{args: nil, code: exitUsage, stderr: "Usage:"},
		{args: []string{"--help"}, code: exitOK, stdout: "Usage:"},
		{args: []string{"-h"}, code: exitOK, stdout: "Usage:"},
		{args: []string{"help"}, code: exitOK, stdout: "Usage:"},
		{args: []string{"help", "nope"}, code: exitUsage, stderr: "unknown command \"nope\""},
		{args: []string{"frobnicate"}, code: exitUsage, stderr: "hub: unknown command \"frobnicate\" (run 'hub --help')\n"},
		{args: []string{"--log-level", "loud", "agents"}, code: exitUsage, stderr: "bad log level"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := hub(t, nil, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout %q\nstderr %q", code, c.code, out, errOut)
			}
			if c.stdout != "" && !strings.Contains(out, c.stdout) || c.stdout == "" && out != "" {
				t.Errorf("stdout %q, want %q", out, c.stdout)
			}
			if !strings.Contains(errOut, c.stderr) {
				t.Errorf("stderr %q lacks %q", errOut, c.stderr)
			}
		})
	}
}

// Explicit help is the command's own, on stdout, exit 0, its flags
// written --flag, whichever way it is asked for.
func TestRealMain_HelpOnEverySubcommand(t *testing.T) {
	isolate(t)
	for name, cmd := range commands {
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}, {name, "x", "--help"}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, errOut := hub(t, nil, args...)
				if code != exitOK || errOut != "" {
					t.Fatalf("exit %d, stderr %q", code, errOut)
				}
				if !strings.HasPrefix(out, cmd.help) {
					t.Errorf("help of %s does not start with its usage:\n%s", name, out)
				}
				for _, l := range strings.Split(out, "\n") {
					if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(l, "  -") && len(strings.TrimLeft(f[0], "-")) > 1 && !strings.HasPrefix(f[0], "--") {
						t.Errorf("help of %s has a one-dash flag: %q", name, l)
					}
				}
				if name != "man" && name != "logout" && !strings.Contains(out, "\nExamples:\n") {
					t.Errorf("help of %s has no examples:\n%s", name, out)
				}
			})
		}
	}
}

// A -h that is a flag's value, or after "--", is not a help request.
func TestRealMain_HelpWordsThatAreNotHelp(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"run", "--agent", "-h", "hi"}, {"run", "--agent", "replay", "--", "-h"}, {"trust", "--", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if _, out, _ := hub(t, nil, args...); strings.Contains(out, "Usage:") {
				t.Errorf("printed help:\n%s", out)
			}
		})
	}
}

func TestRealMain_BadFlagsOneLine(t *testing.T) {
	isolate(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--nope", "x"}, "hub run: flag provided but not defined: -nope (see 'hub run --help')\n"},
		{[]string{"run", "--timeout", "soon", "x"}, "hub run: invalid value \"soon\" for flag -timeout: parse error (see 'hub run --help')\n"},
		{[]string{"doctor", "--timeout"}, "hub doctor: flag needs an argument: -timeout (see 'hub doctor --help')\n"},
		{[]string{"agents", "--yaml"}, "hub agents: flag provided but not defined: -yaml (see 'hub agents --help')\n"},
		{[]string{"skills", "list", "--all"}, "hub skills: flag provided but not defined: -all (see 'hub skills --help')\n"},
		{[]string{"acp", "--port", "1"}, "hub acp: flag provided but not defined: -port (see 'hub acp --help')\n"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := hub(t, nil, c.args...)
			if code != exitUsage || out != "" || errOut != c.want {
				t.Fatalf("exit %d stdout %q stderr %q, want exit 2 and %q", code, out, errOut, c.want)
			}
		})
	}
}

type ttyless struct{ io.Reader }

func TestReadPrompt(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		stdin io.Reader
		want  string
		err   string
	}{
		{name: "argument", args: []string{"fix", "the", "bug"}, stdin: strings.NewReader("ignored"), want: "fix the bug"},
		{name: "dash reads stdin", args: []string{"-"}, stdin: strings.NewReader("  from stdin\n"), want: "from stdin"},
		{name: "piped stdin without argument", stdin: strings.NewReader("piped\nprompt\n"), want: "piped\nprompt"},
		{name: "empty stdin", args: []string{"-"}, stdin: strings.NewReader(" \n"), err: "no prompt: stdin was empty"},
		{name: "empty argument", args: []string{""}, stdin: strings.NewReader("x"), err: "no prompt: the argument is empty"},
		{name: "stdin error", args: []string{"-"}, stdin: ttyless{iotestErr{}}, err: "read prompt from stdin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readPrompt(c.args, c.stdin)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestReadPrompt_TerminalStdinNeedsArgument(t *testing.T) {
	_, tty := openTerminal(t)
	if _, err := readPrompt(nil, tty); err == nil || err.Error() != "no prompt: pass it as an argument or on stdin" {
		t.Fatalf("err = %v", err)
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, os.ErrClosed }

func TestRun_PromptSources(t *testing.T) {
	isolate(t)
	cases := []struct {
		name  string
		args  []string
		stdin string
		code  int
		out   string
		err   string
	}{
		{name: "argument", args: []string{"--agent", "replay", "hello there"}, code: 0, out: "hello there\n"},
		{name: "dash", args: []string{"--agent", "replay", "-"}, stdin: "from stdin\n", code: 0, out: "from stdin\n"},
		{name: "piped", args: []string{"--agent", "replay"}, stdin: "piped prompt", code: 0, out: "piped prompt\n"},
		{name: "empty prompt", args: []string{"--agent", "replay"}, stdin: "", code: 2, err: "hub: usage error: no prompt: stdin was empty (exit 2)\n"},
		{name: "empty argument", args: []string{"--agent", "replay", "  "}, code: 2, err: "hub run: no prompt: the argument is empty\n"},
		{name: "flags after the prompt", args: []string{"--agent", "replay", "hello", "--format", "jsonl"}, code: 0,
			out: "{\"v\":1,\"type\":\"text\",\"text\":\"hello\"}\n"},
		{name: "words and flags mixed", args: []string{"fix", "--agent", "replay", "the", "bug"}, code: 0, out: "fix the bug\n"},
		{name: "double dash ends flags", args: []string{"--agent", "replay", "--", "--format", "jsonl"}, code: 0, out: "--format jsonl\n"},
		{name: "dash after flags", args: []string{"-", "--agent", "replay"}, stdin: "late flags", code: 0, out: "late flags\n"},
		{name: "unknown agent", args: []string{"--agent", "nope", "hi"}, code: 2, err: "unknown agent"},
		{name: "bad format", args: []string{"--agent", "replay", "--format", "xml", "hi"}, code: 2, err: "--format must be text or jsonl"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := hub(t, strings.NewReader(c.stdin), append([]string{"run"}, c.args...)...)
			if strings.HasPrefix(c.out, "{") { // the text event, without its time stamp
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(l, `{"v":1,"type":"text"`) {
						out = regexp.MustCompile(`,"ts":"[^"]*"`).ReplaceAllString(l, "") + "\n"
						break
					}
				}
			}
			if code != c.code || out != c.out || !strings.Contains(errOut, c.err) {
				t.Fatalf("exit %d stdout %q stderr %q; want %d %q %q", code, out, errOut, c.code, c.out, c.err)
			}
		})
	}
}

func TestRun_JSONLSummary(t *testing.T) {
	isolate(t)
	code, out, _ := hub(t, strings.NewReader(""), "run", "--agent", "replay", "--format", "jsonl", "ping")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum struct {
		Type     string `json:"type"`
		ExitCode int    `json:"exitCode"`
	}
	if code != 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &sum) != nil || sum.Type != "summary" || sum.ExitCode != 0 {
		t.Fatalf("exit %d, jsonl:\n%s", code, out)
	}
}

func TestDoctor_AgentExitCodes(t *testing.T) {
	root := isolate(t)
	// A claude that answers --version and an API key: ready.
	proctest.Install(t, filepath.Join(root, "bin"), "claude", "out:2.1.330 (Claude Code)\n")
	cases := []struct {
		name string
		args []string
		env  map[string]string
		code int
		out  string
		err  string
	}{
		{name: "missing agent", args: []string{"--agent", "codex"}, code: exitError, out: "fix: not installed: npm install -g @openai/codex"},
		{name: "not logged in", args: []string{"--agent", "claude"}, code: exitError, out: "fix: not logged in"},
		{name: "ready", args: []string{"--agent", "claude"}, env: map[string]string{"ANTHROPIC_API_KEY": "sk"}, code: exitOK, out: "claude (cli): ready\n"},
		{name: "details name path, range, dirs, auth source and capabilities", args: []string{"--agent", "claude"}, env: map[string]string{"ANTHROPIC_API_KEY": "sk"}, code: exitOK,
			out: "(found via path)\n  version:      2.1.330 (from --version); supported >=2.1.0 <3.0.0, tested 2.1.330\n  config dir:   "},
		{name: "details auth and capabilities", args: []string{"--agent", "claude"}, env: map[string]string{"ANTHROPIC_API_KEY": "sk"}, code: exitOK,
			out: "  auth:         api_key (decided by ANTHROPIC_API_KEY)\n  capabilities: images, resume, permissions, mcp, mcp-http, skills native"},
		{name: "verbose report", args: []string{"-v", "--refresh"}, code: exitOK, out: "codex (cli): missing\n"},
		{name: "preset without key", args: []string{"--agent", "groq", "--json"}, code: exitError, out: `"fix": "no API key: set GROQ_API_KEY"`},
		{name: "unknown agent", args: []string{"--agent", "nope"}, code: exitUsage, err: "hub doctor: unknown agent \"nope\""},
		{name: "full report", args: []string{"--refresh"}, code: exitOK, out: "native presets without API key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			code, out, errOut := hub(t, nil, append([]string{"doctor", "--timeout", "3s"}, c.args...)...)
			if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.err) {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
		})
	}
}

func TestSplitSignals_FirstCancelsLaterPassOn(t *testing.T) {
	sigs := make(chan os.Signal)
	cancelled := make(chan struct{})
	later := splitSignals(sigs, func() { close(cancelled) })
	sigs <- os.Interrupt
	<-cancelled
	select {
	case s := <-later:
		t.Fatalf("first signal passed on as a later one: %v", s)
	default:
	}
	sigs <- os.Interrupt
	if s := <-later; s != os.Interrupt {
		t.Fatalf("later signal %v", s)
	}
	close(sigs)
}

// An unknown default_agent is not replaced silently: hub acp says so in
// one line naming it, and still serves.
func TestAcp_UnknownDefaultAgentSaysSo(t *testing.T) {
	root := isolate(t)
	cfgDir := filepath.Join(root, "xdg_config_home", "hub")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("default_agent = \"no-such-agent\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hub(t, nil, "acp")
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if strings.Contains(l, `"no-such-agent"`) {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("want one line naming the unknown default_agent, stderr:\n%s", errOut)
	}
}

// hub acp --mode takes only a mode of the agent of new sessions.
func TestAcp_ModeMustBeTheAgentsOwn(t *testing.T) {
	isolate(t)
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"acp", "--agent", "codex", "--mode", "read-only"}, exitOK},
		{[]string{"acp", "--agent", "claude", "--mode", "plan"}, exitOK},
		{[]string{"acp", "--agent", "claude", "--mode", "read-only"}, exitUsage},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := hub(t, strings.NewReader(""), tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errOut)
			}
		})
	}
}

// An ACP agent tells its modes only when a session starts: hub acp --mode
// takes any mode for it (its start refuses one it lacks), as a persona's
// mode on it is taken, rather than refusing every mode.
func TestAcp_ModeOfAnAgentThatTellsThemAtStart(t *testing.T) {
	root := isolate(t)
	addUserConfig(t, root, "[agents.later]\ncommand = [\"no-such-agent-binary\"]\n")
	code, _, errOut := hub(t, strings.NewReader(""), "acp", "--agent", "later", "--mode", "architect")
	if code != exitOK {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitOK, errOut)
	}
}

// readPrompt is what hub run ends up with: the argument, or stdin.
func readPrompt(args []string, stdin io.Reader) (string, error) {
	p, fromStdin, err := promptArgs(args, stdin)
	if err != nil || !fromStdin {
		return p, err
	}
	return readStdinPrompt(stdin)
}

// chdir runs the rest of the test in dir (hub reads .hub/config.toml there).
func chdir(t *testing.T, dir string) {
	t.Helper()
	old, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chdir(old) })
}
