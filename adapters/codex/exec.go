package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
)

// execSession runs one `codex exec --json` process per turn and continues
// the thread with `codex exec resume <thread_id>`. Codex exec never asks
// for approval: the sandbox mode decides.
type execSession struct {
	adapters.PerPrompt
	a    *Adapter
	opts adapters.SessionOptions
	// skills goes in front of prompts until a codex exec that got them
	// started (exec cannot add a skills folder); used under PerPrompt's lock.
	skills string
	schema string // the temp file of SessionOptions.OutputSchema ("": none)
}

func (a *Adapter) startExec(opts adapters.SessionOptions) (*execSession, error) {
	if opts.Fork { // codex exec resume would continue the original thread
		return nil, fmt.Errorf("codex exec cannot fork a thread: %w", adapters.ErrUnsupported)
	}
	text, err := skillPrompt(opts.SkillDirs)
	if err != nil {
		return nil, fmt.Errorf("codex skills: %w", err)
	}
	schema, err := schemaFile(opts.OutputSchema)
	if err != nil {
		return nil, err
	}
	s := &execSession{a: a, opts: opts, skills: text, schema: schema}
	// One decoder for the thread's processes: exec reports cumulative usage.
	dec := NewCodexExecDecoder()
	s.PerPrompt = adapters.PerPrompt{Name: "codex", ResumeID: opts.ResumeID, Command: s.command, Started: func() { s.skills = "" },
		NewDecoder: func() adapters.LineDecoder { return dec },
		Rules:      adapters.RulesOf(opts, nil, a.unknownRecords())}
	return s, nil
}

// schemaFile writes the output schema where `codex exec --output-schema`
// reads it; "" when there is none. Close removes it.
func schemaFile(schema json.RawMessage) (string, error) {
	if len(schema) == 0 {
		return "", nil
	}
	f, err := os.CreateTemp("", "hub-codex-schema-*.json")
	if err != nil {
		return "", fmt.Errorf("codex exec: temp file for the output schema: %w", err)
	}
	_, err = f.Write(schema)
	if err = errors.Join(err, f.Close()); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("codex exec: write the output schema: %w", err)
	}
	return f.Name(), nil
}

func (s *execSession) args(prompt string, images []string) []string {
	args := append(s.a.cfg.ArgvOr("codex")[1:], "exec")
	if thread := s.ID(); thread != "" {
		args = append(args, "resume", thread)
	}
	sandbox, _ := s.a.policy(s.opts) // exec never asks
	args = append(args, "--json", "--skip-git-repo-check", "-c", "sandbox_mode="+tomlString(sandbox))
	args = adapters.AppendFlags(args, "-m", s.opts.Model)
	if s.opts.Instructions != "" {
		args = append(args, "-c", "developer_instructions="+tomlString(s.opts.Instructions))
	}
	args = adapters.AppendFlags(append(args, configOverrides(s.opts)...), "--output-schema", s.schema)
	for _, img := range images {
		args = append(args, "--image", img)
	}
	return append(args, "--", prompt)
}

// command is the codex exec process of one prompt; its images are temp
// files until the process is gone. Cancelled, it gets SIGINT as in a terminal.
func (s *execSession) command(prompt []adapters.Content, _ string) (proc.Spec, func(), error) {
	images, cleanup, err := imageFiles(prompt)
	if err != nil {
		return proc.Spec{}, nil, err
	}
	text := adapters.PromptText(withSkills(prompt, s.skills))
	return proc.Spec{Path: s.a.cfg.ArgvOr("codex")[0], Args: s.args(text, images),
		Dir: s.opts.Cwd, Env: s.a.env(s.opts), StopSignal: syscall.SIGINT, Grace: 2 * time.Second}, cleanup, nil
}

// Close also removes the output schema file.
func (s *execSession) Close() error {
	_ = s.PerPrompt.Close()
	if s.schema != "" {
		_ = os.Remove(s.schema)
	}
	return nil
}
