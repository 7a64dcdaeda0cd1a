package gemini

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	fx "github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestStreamJSON_FallbackSession(t *testing.T) {
	fixture, _ := filepath.Abs("testdata/streamjson-tool/stream.jsonl")
	var argvs [][]string
	sj := acpclient.StreamJSON{Name: "gemini",
		Argv: func(prompt, resume string, _ adapters.SessionOptions) []string {
			argvs = append(argvs, []string{prompt, resume})
			if prompt == "die" {
				return proctest.Command("err:oops\n", "exit:41")
			}
			return proctest.Command("cat:" + fixture)
		},
		NewDecoder: func() adapters.LineDecoder { return NewGeminiDecoder() }}
	s, err := sj.Fallback()(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := fx.Prompt(context.Background(), s, adapters.TextPrompt("first"))
	if err != nil {
		t.Fatal(err)
	}
	evs := fx.Collect(ch)
	if got := fx.Text(evs); got != "Running a command now.The command printed hello-from-tool. Done." {
		t.Fatalf("text = %q", got)
	}
	if s.ID() != "2b2c9acb-3d2b-409b-9b42-32152bfe2b5a" || evs[len(evs)-1].StopReason != adapters.StopEndTurn {
		t.Fatalf("id=%q stop=%q", s.ID(), evs[len(evs)-1].StopReason)
	}
	ch, _ = fx.Prompt(context.Background(), s, adapters.TextPrompt("die"))
	evs = fx.Collect(ch)
	if argvs[1][1] != s.ID() {
		t.Fatalf("second prompt did not resume: %q", argvs[1])
	}
	if e := evs[len(evs)-2]; e.Type != adapters.EventError || !strings.Contains(e.Error.Message, "exit code 41") || e.Error.Detail != "oops" {
		t.Fatalf("error event = %+v", e)
	}
}
