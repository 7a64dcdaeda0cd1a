package adapters

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestUnknownRecords_OncePerTypeWithVersion(t *testing.T) {
	tests := []struct {
		name, tested, version, wantAbout string
	}{
		{"version and tested", "1.0.0", "1.2.0", "(fake 1.2.0, tested with 1.0.0)"},
		{"no version", "1.0.0", "", "(fake unknown, tested with 1.0.0)"},
		{"no tested version", "", "2.0", "(fake 2.0)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			u := NewUnknownRecords(zerolog.New(&buf).Level(zerolog.DebugLevel), "fake", tc.tested, UnknownOptions{
				Version: func() string { return tc.version },
				Quiet:   func(s string) bool { return s == "fake:banner" }})
			u.Note("fake:new")
			u.Note("fake:new")
			u.Note("fake:banner")
			var levels []string
			for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				var m map[string]string
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatal(err)
				}
				levels = append(levels, m["level"]+":"+m["record"])
				if !strings.Contains(m["message"], tc.wantAbout) {
					t.Errorf("message %q lacks %q", m["message"], tc.wantAbout)
				}
			}
			if got := strings.Join(levels, " "); got != "warn:fake:new debug:fake:banner" {
				t.Errorf("logged %q, want one warning for fake:new and the banner at debug", got)
			}
		})
	}
}

func TestMain(m *testing.M) { proctest.Main(m, nil) }

func TestCLIVersion_FirstLineOrEmpty(t *testing.T) {
	dir := t.TempDir()
	const wait = 30 * time.Second // a fake program may start slowly (Wine); only "hanging" waits it out
	tests := []struct {
		name    string
		argv    []string
		timeout time.Duration
		want    string
	}{
		{"first line", proctest.Command("exitifarg:--help:9", "out: 1.2.3 \nextra\n"), wait, "1.2.3"},
		{"asks with --version", proctest.Command("exitifarg:--version:0", "out:wrong\n"), wait, ""},
		{"failing", proctest.Command("out:1.0\n", "exit:3"), wait, ""},
		{"missing", []string{filepath.Join(dir, "nope")}, wait, ""},
		{"hanging", proctest.Command("hang"), 500 * time.Millisecond, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := CLIVersion(tc.argv, nil, tc.timeout)
			if got := v(); got != tc.want {
				t.Errorf("version = %q, want %q", got, tc.want)
			}
		})
	}
}

// An agent's --version that leaves a child of its own (a node shim's
// node, a program that starts its server anyway) is told, and the child
// is ended with it, as an agent's session is: hub leaves no process.
func TestCLIVersion_LeavesNoProcess(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	v := CLIVersion(proctest.Command("child:"+pidFile, "out:1.2.3\n"), nil, 30*time.Second)
	if got := v(); got != "1.2.3" {
		t.Errorf("version = %q, want 1.2.3", got)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	proctest.WaitGone(t, pid)
}
