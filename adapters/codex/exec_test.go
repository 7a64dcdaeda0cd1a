//go:build unix

package codex

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fileuri"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// execFakeScript is a codex without app-server: `codex exec` replays a
// recorded exec stream and logs each --image file's content;
// CODEX_FAKE_MODE=hang leaves a grandchild running, fail exits 3 with an
// error on stderr.
const execFakeScript = `#!/bin/sh
if [ "$1" = app-server ]; then
  echo "error: unrecognized subcommand 'app-server'" >&2
  exit 2
fi
printf '%s\n' "$*" >> "$CODEX_FAKE_ARGS"
prev=
for a in "$@"; do
  if [ "$prev" = --image ]; then
    printf '%s=%s\n' "$a" "$(cat "$a" 2>&1)" >> "$CODEX_FAKE_IMAGES"
  fi
  prev=$a
done
case "$CODEX_FAKE_MODE" in
hang)
  head -n 1 "$CODEX_FAKE_STREAM"
  sleep 300 &
  echo $! > "$CODEX_FAKE_CHILD"
  wait
  ;;
fail)
  head -n 1 "$CODEX_FAKE_STREAM"
  echo "loading model" >&2
  echo "error: model exploded" >&2
  exit 3
  ;;
*)
  cat "$CODEX_FAKE_STREAM"
  ;;
esac
`

type execFake struct {
	a                   *Adapter
	args, child, images string
}

func newExecFake(t *testing.T, fixture, mode string) execFake {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "codex")
	if err := os.WriteFile(script, []byte(execFakeScript), 0o755); err != nil {
		t.Fatal(err)
	}
	stream, _ := filepath.Abs(filepath.Join("testdata", fixture, "stream.jsonl"))
	f := execFake{args: filepath.Join(dir, "args"), child: filepath.Join(dir, "child.pid"), images: filepath.Join(dir, "images")}
	if mode == "hang" {
		if err := unix.Mkfifo(f.child, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.a = New(config.AgentConfig{Command: config.Command{script}, Env: map[string]string{
		"CODEX_FAKE_ARGS": f.args, "CODEX_FAKE_CHILD": f.child, "CODEX_FAKE_STREAM": stream, "CODEX_FAKE_MODE": mode,
		"CODEX_FAKE_IMAGES": f.images,
	}}, zerolog.Nop())
	f.a.InitTimeout = 5 * time.Second
	return f
}

func TestExecFallback_Turn(t *testing.T) {
	f := newExecFake(t, "exec-tool", "")
	s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), Model: "mock-model"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(*execSession); !ok {
		t.Fatalf("session %T, want the exec fallback", s)
	}
	evs := drain(t, mustPrompt(t, s, "run it"), nil)
	if got, want := kinds(evs), "session_info error thought text tool_call tool_update text usage done"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	var text string
	for _, e := range evs {
		switch e.Type {
		case adapters.EventText:
			text += e.Text
		case adapters.EventToolCall:
			if e.Tool.Kind != adapters.KindExecute || e.Tool.Status != adapters.StatusInProgress || !strings.Contains(e.Tool.Title, "echo hello-from-tool") {
				t.Errorf("tool call = %+v", e.Tool)
			}
		case adapters.EventToolUpdate:
			if e.Tool.Status != adapters.StatusCompleted || len(e.Tool.Content) != 1 || e.Tool.Content[0].Text != "hello-from-tool\n" {
				t.Errorf("tool result = %+v", e.Tool)
			}
		}
	}
	if text != "Running a command now.The command printed hello-from-tool. Done." {
		t.Errorf("text = %q", text)
	}
	if last := evs[len(evs)-1]; last.StopReason != adapters.StopEndTurn {
		t.Errorf("last = %+v", last)
	}
	const thread = "01a2002c-19ef-7fa1-8553-aac986afb916"
	if s.ID() != thread {
		t.Errorf("ID = %q, want the exec thread id", s.ID())
	}
	drain(t, mustPrompt(t, s, "again"), nil)
	args, _ := os.ReadFile(f.args)
	lines := strings.Split(strings.TrimSpace(string(args)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "exec --json") || !strings.HasSuffix(lines[0], "-- run it") ||
		!strings.Contains(lines[0], "-m mock-model") || !strings.HasPrefix(lines[1], "exec resume "+thread+" --json") {
		t.Errorf("codex invocations:\n%s", args)
	}
	if n := proc.Live(); n != 0 {
		t.Errorf("%d processes left", n)
	}
}

func TestExecFallback_CancelKillsGroup(t *testing.T) {
	f := newExecFake(t, "exec-tool", "hang")
	s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt("wait"))
	if err != nil {
		t.Fatal(err)
	}
	if e := <-ch; e.Type != adapters.EventSessionInfo {
		t.Fatalf("first event %+v", e)
	}
	pid := execWaitPid(t, f.child)
	cancel()
	evs := drain(t, ch, nil)
	if last := evs[len(evs)-1]; last.Type != adapters.EventDone || last.StopReason != adapters.StopCancelled {
		t.Errorf("last = %+v, want done/cancelled", last)
	}
	proctest.WaitGone(t, pid)
	if n := proc.Live(); n != 0 {
		t.Errorf("%d processes left", n)
	}
}

// execWaitPid reads the pid the fake's child writes into the FIFO at path:
// the read returns when the fake wrote it, no polling.
func execWaitPid(t *testing.T, path string) int {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(path)
		got <- string(b)
	}()
	select {
	case b := <-got:
		pid, err := strconv.Atoi(strings.TrimSpace(b))
		if err != nil {
			t.Fatalf("child pid %q: %v", b, err)
		}
		return pid
	case <-time.After(30 * time.Second): // a hang guard, not a speed check
		t.Fatal("fake codex did not start its child")
		return 0
	}
}

// execAlive treats a zombie (exited, not yet reaped by init) as dead.
func TestExecFallback_ExitErrorHasStderrTail(t *testing.T) {
	f := newExecFake(t, "exec-tool", "fail")
	s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs := drain(t, mustPrompt(t, s, "boom"), nil)
	if got := kinds(evs); got != "session_info error done" {
		t.Fatalf("events %q", got)
	}
	e := evs[1].Error
	if !e.Fatal || e.Code != adapters.CodeCrash || !strings.Contains(e.Message, "model exploded") ||
		!strings.Contains(e.Detail, "loading model") || !strings.Contains(e.Detail, "model exploded") {
		t.Errorf("error = %+v", e)
	}
	if evs[2].StopReason != adapters.StopEndTurn {
		t.Errorf("done = %+v", evs[2])
	}
}

// The exec fallback passes SessionOptions.OutputSchema as
// `--output-schema FILE`, a temp file the session removes on Close.
func TestExecFallback_OutputSchemaFile(t *testing.T) {
	const schema = `{"type":"object","required":["verdict"]}`
	f := newExecFake(t, "exec-tool", "")
	s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), OutputSchema: json.RawMessage(schema)})
	if err != nil {
		t.Fatal(err)
	}
	drain(t, mustPrompt(t, s, "review"), nil)
	args, _ := os.ReadFile(f.args)
	fields := strings.Fields(string(args))
	i := slices.Index(fields, "--output-schema")
	if i < 0 || i+1 >= len(fields) || slices.Index(fields, "--") < i {
		t.Fatalf("argv %q has no --output-schema FILE before the prompt", args)
	}
	if got, err := os.ReadFile(fields[i+1]); err != nil || string(got) != schema {
		t.Errorf("schema file %s holds %q (%v), want %q", fields[i+1], got, err, schema)
	}
	_ = s.Close()
	if _, err := os.Stat(fields[i+1]); !os.IsNotExist(err) {
		t.Errorf("schema file left after Close (stat %v)", err)
	}
}

func TestExecFallback_ImagesPassedAsFiles(t *testing.T) {
	dir := t.TempDir()
	onDisk := filepath.Join(dir, "shot, final.png")
	plain := filepath.Join(dir, "plain.jpg")
	for path, data := range map[string]string{onDisk: "FROM-DISK", plain: "PLAIN"} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		images  []adapters.Content
		want    []string // "=content" per --image, in order
		wantErr error
	}{
		{name: "inline data goes through a temp file",
			images: []adapters.Content{{Type: adapters.ContentImage, MimeType: "image/png", Data: base64.StdEncoding.EncodeToString([]byte("INLINE"))}},
			want:   []string{"=INLINE"}},
		{name: "file URIs are passed as paths", images: []adapters.Content{
			{Type: adapters.ContentImage, MimeType: "image/jpeg", URI: "file://" + plain},
			{Type: adapters.ContentImage, MimeType: "image/png", URI: fileuri.FromPath(runtime.GOOS, onDisk)}},
			want: []string{"=PLAIN", "=FROM-DISK"}},
		{name: "http URI cannot be attached",
			images:  []adapters.Content{{Type: adapters.ContentImage, URI: "https://example.com/a.png"}},
			wantErr: adapters.ErrUnsupported},
		{name: "bad base64 is refused",
			images:  []adapters.Content{{Type: adapters.ContentImage, MimeType: "image/png", Data: "%%%"}},
			wantErr: base64.CorruptInputError(0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newExecFake(t, "exec-tool", "")
			s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			prompt := append(adapters.TextPrompt("describe"), tc.images...)
			ch, err := fixture.Prompt(context.Background(), s, prompt)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Prompt err = %v, want %v", err, tc.wantErr)
				}
				if _, statErr := os.Stat(f.args); !os.IsNotExist(statErr) {
					t.Errorf("codex ran despite the refused image (stat %v)", statErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			drain(t, ch, nil)
			logged, _ := os.ReadFile(f.images)
			got := strings.Split(strings.TrimSpace(string(logged)), "\n")
			if len(got) != len(tc.want) {
				t.Fatalf("codex got images %q, want %d", got, len(tc.want))
			}
			args, _ := os.ReadFile(f.args)
			for i, line := range got {
				path, content, _ := strings.Cut(line, "=")
				if "="+content != tc.want[i] {
					t.Errorf("image %d %s had content %q, want %q", i, path, content, tc.want[i][1:])
				}
				if !strings.Contains(string(args), "--image "+path+" ") || strings.Contains(path, ",") {
					t.Errorf("argv %q lacks a comma-free --image %s", args, path)
				}
				if tc.images[i].Data != "" {
					if _, err := os.Stat(path); !os.IsNotExist(err) {
						t.Errorf("temp image %s left behind after the turn (stat %v)", path, err)
					}
				}
			}
			if !strings.HasSuffix(strings.TrimSpace(string(args)), "-- describe") {
				t.Errorf("argv %q does not end with the prompt", args)
			}
		})
	}
}
