package detect_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// Every fake installed CLI is the test binary under the CLI's name
// (proctest.Fake), on every OS; these are the fakes ops cannot say.
func TestMain(m *testing.M) {
	proctest.Main(m, map[string]proctest.Helper{"acp": fakeACP, "loginsh": fakeLoginShell})
}

// fakeACP stands in for an installed ACP agent: it prints a version for
// --version, else answers one initialize (loadSession, image prompts) and
// waits for the next line. Each start is appended to $FAKE_LOG when set.
func fakeACP(args []string) int {
	if record(args) != nil {
		return 125
	}
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
	return 0
}

// fakeLoginShell stands in for `$SHELL -lc "command -v 'NAME'"`: it
// appends its arguments to $FAKE_LOG when set, and prints where NAME is
// on $FAKE_LOGIN_PATH (what only the login shell's PATH holds).
func fakeLoginShell(args []string) int {
	if record(args) != nil || len(args) == 0 {
		return 125
	}
	name := strings.Trim(strings.TrimPrefix(args[len(args)-1], "command -v "), "'")
	if p := proc.LookPathFor(runtime.GOOS, name, os.Getenv("FAKE_LOGIN_PATH"), ""); p != "" {
		fmt.Println(p)
	}
	return 0
}

// record appends args, one line, to $FAKE_LOG when it is set.
func record(args []string) error {
	log := os.Getenv("FAKE_LOG")
	if log == "" {
		return nil
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err == nil {
		_, err = fmt.Fprintln(f, strings.Join(args, " "))
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
	}
	return err
}

// skipNoLoginShell skips a test of the login-shell lookup on Windows,
// where hub asks no login shell (detect's loginShell is "" there).
func skipNoLoginShell(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("hub asks no login shell on Windows, so there is no lookup to observe")
	}
}
