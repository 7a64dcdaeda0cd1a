package detect_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/fixture"
)

// fakeFlag, as the first argument, makes the test binary a fake agent
// program (the Windows stand-in for the POSIX shell scripts the tests
// write): a base64url JSON fakeSpec follows it.
const fakeFlag = "-detect.fake="

// fakeSpec is what a fake agent program does: print text, hang, or answer
// an ACP initialize like fixture.ACPScript.
type fakeSpec struct {
	Do   string // "echo", "exit", "hang", "acp"
	Text string
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], fakeFlag) {
		os.Exit(runFake(strings.TrimPrefix(os.Args[1], fakeFlag), os.Args[2:]))
	}
	os.Exit(m.Run())
}

func runFake(arg string, args []string) int {
	var f fakeSpec
	raw, err := base64.RawURLEncoding.DecodeString(arg)
	if err == nil {
		err = json.Unmarshal(raw, &f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake agent:", err)
		return 125
	}
	switch f.Do {
	case "echo":
		fmt.Println(f.Text)
	case "hang": // until the test kills it
		time.Sleep(time.Hour)
	case "acp":
		if slices.Contains(args, "--version") {
			fmt.Println("fake 1.2.3")
			return 0
		}
		in := bufio.NewScanner(os.Stdin)
		in.Scan()
		var req struct{ ID json.RawMessage }
		_ = json.Unmarshal(in.Bytes(), &req)
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true}},"authMethods":[]}}`+"\n", req.ID)
		in.Scan()
	}
	return 0
}

// windowsFake writes, for a test's POSIX shell body, an npm-style .cmd
// shim that starts the test binary as the fake the body describes.
func windowsFake(t testing.TB, p, body string) string {
	t.Helper()
	var f fakeSpec
	switch {
	case body == "exit 0":
		f.Do = "exit"
	case body == "exec sleep 30":
		f.Do = "hang"
	case body == strings.TrimPrefix(fixture.ACPScript, "#!/bin/sh\n"):
		f.Do = "acp"
	case strings.HasPrefix(body, "echo ") && !strings.ContainsAny(body, "$>;|"):
		f.Do, f.Text = "echo", strings.Trim(strings.TrimPrefix(body, "echo "), "'")
	default:
		t.Fatalf("no Windows fake for the shell program %q", body)
	}
	if ext := strings.ToLower(filepath.Ext(p)); ext != ".cmd" && ext != ".bat" {
		p += ".cmd"
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(f)
	shim := fmt.Sprintf("@ECHO off\r\n\"%s\" %s%s %%*\r\n", exe, fakeFlag, base64.RawURLEncoding.EncodeToString(raw))
	if err := os.WriteFile(p, []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// skipNoLoginShell skips a test of the login-shell lookup on Windows,
// where hub asks no login shell (detect's loginShell is "" there).
func skipNoLoginShell(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("hub asks no login shell on Windows, so there is no lookup to observe")
	}
}
