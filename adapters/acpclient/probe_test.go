package acpclient

import (
	"github.com/hubdev/hub/internal/proc/proctest"

	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
)

func TestProbe_AnswersWhatTheAgentSaysAndStopsIt(t *testing.T) {
	before := proc.Live()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	init, err := Probe(ctx, []string{os.Args[0]}, append(os.Environ(), fakeEnv+"=1"))
	if err != nil {
		t.Fatal(err)
	}
	if c := CapsFromInit(init); !c.Resume || c.Images {
		t.Fatalf("caps = %+v, want the fake's (loadSession, no images)", c)
	}
	if proc.Live() != before {
		t.Fatal("the probed agent was left running")
	}
}

func TestProbe_AnAgentThatExitsIsAnInitializeError(t *testing.T) {
	_, err := Probe(context.Background(), proctest.Command("err:broken\n", "exit:3"), os.Environ())
	if !errors.Is(err, ErrInitialize) {
		t.Fatalf("err = %v, want ErrInitialize", err)
	}
}

// An agent gone before it answers initialize is told one way, with its
// exit status and stderr, whichever of its signs hub met first: the fake
// closes its pipes before it exits, so a broken pipe or the connection's
// end comes before the exit is seen. It stays a start failure to the
// fallback rule (neither a crash nor a turn's error), and the stderr lines
// it carries are what the rule reads a login failure from.
func TestStart_AgentGoneBeforeInitializeIsOneMessage(t *testing.T) {
	cases := []struct {
		name   string
		stderr []string
	}{
		{"one line", []string{"fake: no config found"}},
		{"login above a stack line", []string{"Error: not logged in", "    at main (cli.js:1:1)"}},
	}
	for _, tc := range cases {
		var ops []string
		for _, l := range tc.stderr {
			ops = append(ops, "err:"+l+"\n")
		}
		argv := proctest.Command(append(ops, "closeio", "exit:1")...)
		starts := map[string]func() error{
			"session": func() error {
				_, err := New(Config{Name: "gone", Argv: argv, Logger: zerolog.Nop(), InitTimeout: 20 * time.Second}).
					Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
				return err
			},
			"probe": func() error {
				_, err := Probe(context.Background(), argv, os.Environ())
				return err
			},
		}
		for name, start := range starts {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				seen := map[string]int{}
				for range 50 {
					err := start()
					var te *adapters.TurnError
					if !errors.Is(err, ErrInitialize) || errors.Is(err, adapters.ErrClosed) || errors.As(err, &te) {
						t.Fatalf("err = %v, want an ErrInitialize that is no crash and no turn's error", err)
					}
					seen[err.Error()]++
				}
				last := tc.stderr[len(tc.stderr)-1]
				for msg := range seen {
					if len(seen) > 1 || !strings.Contains(msg, "exit code 1") || !strings.Contains(msg, tc.stderr[0]) ||
						(len(tc.stderr) == 1 && strings.Count(msg, last) != 1) {
						t.Fatalf("messages = %v, want one, with the exit code and stderr (a single line once)", seen)
					}
				}
			})
		}
	}
}

func TestAdapter_LearnCapsFromInitialize(t *testing.T) {
	for _, learn := range []bool{false, true} {
		a := New(Config{Name: "fake", Argv: []string{os.Args[0]}, Env: map[string]string{fakeEnv: "1"}, Logger: zerolog.Nop(),
			Caps: adapters.Capabilities{Images: true}, LearnCaps: learn})
		s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
		if c := a.Capabilities(); c.Images == learn || c.Resume != learn {
			t.Errorf("learn=%v: caps = %+v (the fake answers loadSession and no images)", learn, c)
		}
	}
}

func TestAdapter_AuthRequiredNamesTheLogin(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "needs-auth")
	_ = os.Mkdir(dir, 0o755)
	a := New(Config{Name: "fake", Argv: []string{os.Args[0]}, Env: map[string]string{fakeEnv: "1"}, Logger: zerolog.Nop(),
		LoginHint: "run `fake login`"})
	_, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: dir})
	if !errors.Is(err, adapters.ErrNotAuthenticated) || !strings.Contains(err.Error(), "run `fake login`") {
		t.Fatalf("err = %v", err)
	}
}
