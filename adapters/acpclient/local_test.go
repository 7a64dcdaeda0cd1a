package acpclient

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fspath"
	"github.com/hubdev/hub/internal/proc/proctest"
	"github.com/hubdev/hub/internal/sandbox"
)

// allowAll answers every permission request yes, as a careless user or
// --approve all would: what must not happen must not depend on the answer.
func allowAll(pr *adapters.PermissionRequest) {
	pr.Respond(adapters.PermissionDecision{Kind: adapters.AllowOnce})
}

func rejectAll(pr *adapters.PermissionRequest) {
	pr.Respond(adapters.PermissionDecision{Kind: adapters.RejectOnce})
}

func permissions(evs []adapters.Event) []*adapters.PermissionRequest {
	var out []*adapters.PermissionRequest
	for _, ev := range evs {
		if ev.Type == adapters.EventPermission {
			out = append(out, ev.Permission)
		}
	}
	return out
}

// termCall is the fake agent's terminal/create of argv (a Go helper, so it
// runs on every OS), with more params when extra is not empty.
func termCall(argv []string, extra string) string {
	args, _ := json.Marshal(argv[1:])
	if extra != "" {
		extra = "," + extra
	}
	return `/term {"command":` + jsonString(argv[0]) + `,"args":` + string(args) + extra + `}`
}

// commandIn is proctest.Command run from a copy of the test binary in dir,
// for a command that must start where only dir is visible (the sandbox's
// private /tmp hides the go-build folder the test binary runs from).
func commandIn(t *testing.T, dir string, ops ...string) []string {
	t.Helper()
	argv := proctest.Command(ops...)
	b, err := os.ReadFile(argv[0])
	if err != nil {
		t.Fatal(err)
	}
	argv[0] = filepath.Join(dir, "proctest-helper"+filepath.Ext(argv[0]))
	if err := os.WriteFile(argv[0], b, 0o755); err != nil {
		t.Fatal(err)
	}
	return argv
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// rpcCode is the error code of the answer the fake reports after prefix.
func rpcCode(t *testing.T, text, prefix string) int {
	t.Helper()
	var e struct {
		Code int `json:"code"`
	}
	if !strings.HasPrefix(text, prefix) || json.Unmarshal([]byte(strings.TrimPrefix(text, prefix)), &e) != nil {
		return 0
	}
	return e.Code
}

func TestLocal_HardDenyRefusedWhateverTheAnswer(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, ".env")
	tests := []struct{ name, prompt string }{
		{"sh -c redirect", `/term {"command":"sh","args":["-c","echo X=1 > .env"]}`},
		{"bash -c append", `/term {"command":"bash","args":["-c","echo X=1 >> .env"]}`},
		{"whole line as program", `/term {"command":"echo X=1 > .env"}`},
		{"tee", `/term {"command":"sh","args":["-c","echo X=1 | tee .env"]}`},
		{"env wrapper", `/term {"command":"env","args":["sh","-c","echo X=1 > .env"]}`},
		{"write app/.env", "/call fs/write_text_file " + `{"path":` + jsonString(filepath.Join(dir, "app", ".env")) + `,"content":"X=1"}`},
		{"write .ENV.Local", "/call fs/write_text_file " + `{"path":` + jsonString(filepath.Join(dir, ".ENV.Local")) + `,"content":"X=1"}`},
		{"write .env", "/call fs/write_text_file " + `{"path":` + jsonString(env) + `,"content":"X=1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startFake(t, adapters.SessionOptions{Cwd: dir})
			evs := prompt(t, s, tt.prompt, allowAll)
			got := texts(evs)
			prefix := "term:"
			if strings.HasPrefix(tt.prompt, "/call") {
				prefix = "call:"
			}
			if code := rpcCode(t, got, prefix); code != codeRefused {
				t.Errorf("answer = %q, want refused (%d)", got, codeRefused)
			}
			if len(permissions(evs)) != 0 {
				t.Errorf("a hard-denied call was put to the user")
			}
			for _, p := range []string{env, filepath.Join(dir, "app", ".env"), filepath.Join(dir, ".ENV.Local")} {
				if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("%s written: %v", p, err)
				}
			}
		})
	}
}

func TestLocal_LinksOutsideRefused(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	must(t, os.WriteFile(secret, []byte("one\ntop secret\n"), 0o644))
	symlink(t, outside, filepath.Join(dir, "out"))
	symlink(t, secret, filepath.Join(dir, "link.txt"))
	symlink(t, filepath.Join(outside, "new.txt"), filepath.Join(dir, "dangling.txt"))
	tests := []struct{ name, prompt, prefix string }{
		{"write through a linked folder", "/write " + filepath.Join(dir, "out", "x.txt"), "write:"},
		{"write a new folder under a linked one", "/write " + filepath.Join(dir, "out", "a", "b.txt"), "write:"},
		{"write through a linked file", "/write " + filepath.Join(dir, "link.txt"), "write:"},
		{"write through a dangling link", "/write " + filepath.Join(dir, "dangling.txt"), "write:"},
		{"read through a linked file", "/read " + filepath.Join(dir, "link.txt"), "read:"},
		{"read through a linked folder", "/read " + filepath.Join(dir, "out", "secret.txt"), "read:"},
		{"terminal cwd through a link", termCall(commandIn(t, dir, "touch:x.txt"), `"cwd":`+jsonString(filepath.Join(dir, "out"))), "term:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startFake(t, adapters.SessionOptions{Cwd: dir})
			evs := prompt(t, s, tt.prompt, allowAll)
			got := texts(evs)
			if strings.Contains(got, "top secret") || rpcCode(t, got, tt.prefix) == 0 {
				t.Errorf("answer = %q, want an error", got)
			}
			if len(permissions(evs)) != 0 {
				t.Errorf("a call outside the session directory was put to the user")
			}
			for _, p := range []string{"x.txt", "new.txt", filepath.Join("a", "b.txt")} {
				if _, err := os.Stat(filepath.Join(outside, p)); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("%s written outside: %v", p, err)
				}
			}
			if b, _ := os.ReadFile(secret); string(b) != "one\ntop secret\n" {
				t.Fatalf("the linked file changed: %q", b)
			}
		})
	}
}

// A file checked inside the session directory and swapped for a link to
// a file outside while the user is asked is not followed: the read and
// the write open through the directory's os.Root (safefile), as the
// native loop's read_file and write_file do.
func TestLocal_LinkSwappedInWhileAskedNotFollowed(t *testing.T) {
	for _, op := range []string{"read", "write"} {
		t.Run(op, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			secret, file := filepath.Join(outside, "secret.txt"), filepath.Join(dir, "a.txt")
			must(t, os.WriteFile(secret, []byte("one\ntop secret\n"), 0o644))
			must(t, os.WriteFile(file, []byte("one\ntwo\n"), 0o644))
			symlink(t, secret, filepath.Join(dir, "probe"))
			s := startFake(t, adapters.SessionOptions{Cwd: dir})
			swap := func(pr *adapters.PermissionRequest) {
				must(t, os.Remove(file))
				must(t, os.Symlink(secret, file))
				allowAll(pr)
			}
			got := texts(prompt(t, s, "/"+op+" "+file, swap))
			if strings.Contains(got, "top secret") || rpcCode(t, got, op+":") == 0 {
				t.Errorf("answer = %q, want an error", got)
			}
			if b, _ := os.ReadFile(secret); string(b) != "one\ntop secret\n" {
				t.Fatalf("the file outside changed: %q", b)
			}
		})
	}
}

// A file in an additional directory is read and written there, opened
// through that directory (not the session directory's os.Root).
func TestLocal_AdditionalDirectoryServed(t *testing.T) {
	dir, extra := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(extra, "a.txt"), []byte("one\ntwo\n"), 0o644))
	s := startFake(t, adapters.SessionOptions{Cwd: dir, AddDirs: []string{extra}})
	tests := []struct{ prompt, want string }{
		{"/read " + filepath.Join(extra, "a.txt"), "read:two\n"},
		{"/write " + filepath.Join(extra, "sub", "b.txt"), "write:{}"},
	}
	for _, tt := range tests {
		if got := texts(prompt(t, s, tt.prompt, allowAll)); got != tt.want {
			t.Errorf("%s: answer = %q, want %q", tt.prompt, got, tt.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(extra, "sub", "b.txt")); err != nil || string(b) != "written by agent\n" {
		t.Fatalf("write in the additional directory: %q %v", b, err)
	}
}

func TestLocal_WriteAsked(t *testing.T) {
	tests := []struct {
		name    string
		decide  func(*adapters.PermissionRequest)
		written bool
	}{
		{"allowed", allowAll, true},
		{"rejected", rejectAll, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := fspath.RealPath(t.TempDir()) // macOS /var is /private/var: asked by the real name
			must(t, err)
			path := filepath.Join(dir, "src", "a.go")
			s := startFake(t, adapters.SessionOptions{Cwd: dir})
			evs := prompt(t, s, "/write "+path, tt.decide)
			perms := permissions(evs)
			if len(perms) != 1 {
				t.Fatalf("permission events = %d, want 1", len(perms))
			}
			tc := perms[0].Tool
			if tc.Kind != adapters.KindEdit || len(tc.Locations) != 1 || tc.Locations[0].Path != path || !strings.HasPrefix(tc.Title, "fake: ") {
				t.Errorf("asked about %+v, want an edit of %s naming the agent", tc, path)
			}
			_, err = os.Stat(path)
			if tt.written != (err == nil) {
				t.Errorf("written = %v, want %v", err == nil, tt.written)
			}
			if got := texts(evs); tt.written != (got == "write:{}") {
				t.Errorf("answer = %q", got)
			}
		})
	}
}

func TestLocal_ReadAsked(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("1\n2\n"), 0o644))
	s := startFake(t, adapters.SessionOptions{Cwd: dir})
	evs := prompt(t, s, "/read "+filepath.Join(dir, "a.txt"), rejectAll)
	if perms := permissions(evs); len(perms) != 1 || perms[0].Tool.Kind != adapters.KindRead {
		t.Errorf("asked %+v, want one read request", perms)
	}
	if got := texts(evs); rpcCode(t, got, "read:") != codeRefused {
		t.Errorf("rejected read answered %q", got)
	}
}

func TestLocal_TerminalAsksWithTheCommand(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{})
	var seen []*adapters.PermissionRequest
	evs := prompt(t, s, "term", func(pr *adapters.PermissionRequest) { seen = append(seen, pr); rejectAll(pr) })
	if len(seen) != 1 || seen[0].Tool.Kind != adapters.KindExecute || !strings.Contains(string(seen[0].Tool.RawInput), "exit:4") {
		t.Fatalf("asked %+v, want the command line", seen)
	}
	if got := texts(evs); strings.Contains(got, "term-out") {
		t.Fatalf("a rejected command ran: %q", got)
	}
}

func TestLocal_UnadvertisedMethodRefused(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		editor adapters.EditorClient
		prompt string
	}{
		{"terminal the editor lacks", &fakeEditor{}, termCall(commandIn(t, dir, "touch:made.txt"), "")},
		{"fs method outside ACP", nil, "/call fs/delete_text_file " + `{"path":` + jsonString(filepath.Join(dir, "a")) + `}`},
		{"terminal method outside ACP", nil, `/call terminal/attach {}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startFake(t, adapters.SessionOptions{Cwd: dir, Editor: tt.editor})
			evs := prompt(t, s, tt.prompt, allowAll)
			got := texts(evs)
			prefix := got[:strings.Index(got, ":")+1]
			if code := rpcCode(t, got, prefix); code != -32601 {
				t.Errorf("answer = %q, want method not found", got)
			}
			if len(permissions(evs)) != 0 {
				t.Errorf("an unadvertised method was put to the user")
			}
			if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
				t.Fatal("the command ran")
			}
		})
	}
}

func TestSession_ClientCapsAdvertised(t *testing.T) {
	tests := []struct {
		name   string
		editor adapters.EditorClient
		want   string
	}{
		{"headless: hub serves them", nil, `caps:{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}`},
		{"the editor's own", &fakeEditor{}, `caps:{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startFake(t, adapters.SessionOptions{Editor: tt.editor})
			if got := texts(prompt(t, s, "caps", nil)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// symlink makes a link, or skips where the user may not (Windows without
// developer mode).
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	// Wine's CreateSymbolicLinkW succeeds without making a link that
	// resolves to its target.
	got, err := os.Stat(link)
	want, werr := os.Stat(target)
	if werr == nil && (err != nil || !os.SameFile(got, want)) {
		t.Skipf("%s does not lead to %s here (%v): no working symlinks", link, target, err)
	}
}

func TestAliasName_WindowsSpellingsOfOtherNames(t *testing.T) {
	tests := []struct {
		goos, p string
		alias   bool
	}{
		{"windows", `C:\proj\.env `, true},
		{"windows", `C:\proj\.env.`, true},
		{"windows", `C:\proj\app\.env::$DATA`, true},
		{"windows", `C:/proj/.env:x`, true},
		{"windows", `C:\proj\dir. \a.txt`, true},
		{"windows", `C:\proj\a.txt`, false},
		{"windows", `\\?\C:\proj\a.txt`, false},
		{"windows", `\\srv\share\proj\a.txt`, false},
		{"windows", `C:\proj\..\proj\a.txt`, false},
		{"linux", `/proj/.env `, false}, // a name of its own there
	}
	for _, tt := range tests {
		if _, got := aliasName(tt.goos, tt.p); got != tt.alias {
			t.Errorf("aliasName(%s, %q) = %v, want %v", tt.goos, tt.p, got, tt.alias)
		}
	}
}

func TestLocal_TerminalEnvShownAndChecked(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, prompt, want string
		asked              bool
	}{
		{"env shown to the user", `/term {"command":"sh","args":["-c","true"],"env":[{"name":"BASH_ENV","value":"/tmp/evil rc"}]}`, `BASH_ENV='/tmp/evil rc' sh -c true`, true},
		{"a name that is no shell name", `/term {"command":"sh","args":["-c","echo X=1 > .env"],"env":[{"name":"A B","value":"1"}]}`, "", false},
		{"assignment in front still denied", `/term {"command":"sh","args":["-c","echo X=1 > .env"],"env":[{"name":"A","value":"1"}]}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startFake(t, adapters.SessionOptions{Cwd: dir})
			evs := prompt(t, s, tt.prompt, rejectAll)
			perms := permissions(evs)
			if tt.asked != (len(perms) == 1) {
				t.Fatalf("asked %d times, want asked=%v (%q)", len(perms), tt.asked, texts(evs))
			}
			if tt.asked && !strings.Contains(string(perms[0].Tool.RawInput), jsonString(tt.want)) {
				t.Errorf("asked about %s, want %s", perms[0].Tool.RawInput, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, ".env")); err == nil {
				t.Fatal(".env written")
			}
		})
	}
}

// A terminal ends with the agent that started it: an agent that crashed
// while its command ran leaves no process, though no one closed its
// session (a delegate's stays open for follow-ups, a crash between turns
// meets no turn).
func TestLocal_TerminalEndsWithItsCrashedAgent(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	a := fakeAdapter(t)
	a.cfg.Sandbox.Mode = sandbox.Off // the pid it writes is the host's
	b, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := b.(*Session)
	call := strings.Replace(termCall(proctest.Command("pid:"+pidFile, "out:started\n", "hang"), ""), "/term ", "/termcrash ", 1)
	prompt(t, s, call, allowAll)
	<-s.proc.Done()
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the terminal's command did not run: %v", err)
	}
	pid, err := strconv.Atoi(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	proctest.WaitGone(t, pid)
}

// line and limit are the agent's to send: any int, the largest too, reads what is there.
func TestSliceLines_AnyLineAndLimit(t *testing.T) {
	const text = "a\nb\nc\n"
	for _, tc := range []struct {
		line, limit int
		want        string
	}{
		{0, 0, text},
		{2, 1, "b\n"},
		{2, 0, "b\nc\n"},
		{2, math.MaxInt, "b\nc\n"},
		{math.MaxInt, math.MaxInt, ""},
		{math.MinInt, 1, "a\n"},
		{1, math.MinInt, text},
		{4, 1, ""},
	} {
		if got := sliceLines(text, tc.line, tc.limit); got != tc.want {
			t.Errorf("sliceLines(%d, %d) = %q, want %q", tc.line, tc.limit, got, tc.want)
		}
	}
}
