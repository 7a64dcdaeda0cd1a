package acpclient

import (
	"context"
	"slices"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
)

// StreamJSON describes a one-process-per-prompt fallback channel such as
// `gemini -p ... -o stream-json`.
type StreamJSON struct {
	Name string
	// Argv is the command line of one prompt; resumeID is "" on the first.
	Argv       func(prompt, resumeID string, opts adapters.SessionOptions) []string
	NewDecoder func() adapters.LineDecoder
	// TestedVersions and Version (which may run the CLI) name the agent's
	// version when a record is unknown; Quiet sources warn at debug.
	TestedVersions string
	Version        func() string
	Quiet          func(source string) bool
	Env            map[string]string
	Grace          time.Duration
	Logger         zerolog.Logger
}

// WithoutFlags is a copy of argv (program and arguments) without flags,
// for the fallback channel of an agent that takes them only in ACP mode.
func WithoutFlags(argv []string, flags ...string) []string {
	return append([]string{argv[0]}, slices.DeleteFunc(slices.Clone(argv[1:]), func(a string) bool { return slices.Contains(flags, a) })...)
}

// Fallback returns a Fallback that opens stream-json sessions: one agent
// process per prompt, resuming the agent's session by id. What the agent
// says outside its stream reaches the turn through the session's Note.
func (c StreamJSON) Fallback() Fallback {
	return func(_ context.Context, opts adapters.SessionOptions, _ error) (adapters.Session, error) {
		raw := adapters.NewUnknownRecords(c.Logger, c.Name, c.TestedVersions,
			adapters.UnknownOptions{Version: c.Version, SlowVersion: true, Quiet: c.Quiet})
		return &adapters.PerPrompt{Name: c.Name, ResumeID: opts.ResumeID, NewDecoder: c.NewDecoder,
			Rules: adapters.RulesOf(opts, nil, raw),
			Command: func(prompt []adapters.Content, resumeID string) (proc.Spec, func(), error) {
				return c.spec(prompt, resumeID, opts), nil, nil
			}}, nil
	}
}

// spec is the process of one prompt; a new agent session gets the
// instructions in front of its first prompt.
func (c StreamJSON) spec(prompt []adapters.Content, resumeID string, opts adapters.SessionOptions) proc.Spec {
	text := adapters.PromptText(prompt)
	if opts.Instructions != "" && resumeID == "" {
		text = opts.Instructions + "\n\n" + text
	}
	argv := c.Argv(text, resumeID, opts)
	return proc.Spec{Path: argv[0], Args: argv[1:], Dir: opts.Cwd, Env: adapters.Environ(nil, c.Env, opts.Env),
		StopSignal: syscall.SIGINT, Grace: c.Grace}
}
