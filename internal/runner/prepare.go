package runner

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/fileuri"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/skills"
)

// prepare checks --cwd and makes, once for every attempt, the --allow-tool
// rules and the --skill skills with their allowed-tools rules and notes.
func (o *Options) prepare() (err error) {
	if o.Cwd, err = filepath.Abs(o.Cwd); err != nil { // "": the working directory
		return fmt.Errorf("%w: --cwd: %v", ErrUsage, err)
	}
	if st, err := os.Stat(o.Cwd); err != nil || !st.IsDir() {
		return fmt.Errorf("%w: --cwd %s is not a directory", ErrUsage, o.Cwd)
	}
	for _, pat := range o.AllowTools {
		rule, err := permission.AllowRule(pat, "--allow-tool "+pat)
		if err != nil {
			return fmt.Errorf("%w: --allow-tool: %v", ErrUsage, err)
		}
		o.allow = append(o.allow, rule)
	}
	for _, n := range o.Skills {
		s, err := skills.FindTrusting(o.Cwd, o.SkillsUserDir, n, o.TrustProject)
		if err != nil {
			return fmt.Errorf("%w: --skill: %v", ErrUsage, err)
		}
		o.skills = append(o.skills, s)
		for _, note := range s.Notes {
			if !slices.Contains(o.notes, note) {
				o.notes = append(o.notes, note)
			}
		}
		for _, pat := range s.AllowedTools {
			if rule, err := permission.AllowRule(pat, "skill "+s.Name+" allowed-tools "+pat); err != nil {
				o.notes = append(o.notes, fmt.Sprintf("skill %s: allowed-tools %q ignored: %v", s.Name, pat, err))
			} else {
				o.allow = append(o.allow, rule)
			}
		}
	}
	return nil
}

// sessionOptions builds the session options, placing skills the way the
// adapter takes them; prefix goes in front of the prompt (what the agent
// cannot take at system level). cleanup undoes skill placement.
func (r *run) sessionOptions(name string, caps adapters.Capabilities) (so adapters.SessionOptions, prefix string, cleanup func(), err error) {
	o, cleanup := r.o, func() {}
	so = adapters.SessionOptions{Cwd: o.Cwd, Model: o.Model, ResumeID: o.ResumeID, Fork: o.Fork, CancelGrace: o.Grace,
		Access: o.Approve.Access(), SystemPrompt: o.SystemPrompt, MCPServers: conversation.MCPFor(caps, o.MCPServers, o.Log.With().Str("agent", name).Logger())}
	var answer conversation.Answerer = o.Approve
	if o.Ask != nil {
		answer, so.Access = o.Ask, adapters.AccessAskFirst // every side effect reaches whoever answers
	}
	if o.from != nil && o.from.Agent != name {
		so.ResumeID, so.Fork = "", false // another agent's session: a handover
	}
	switch {
	case so.ResumeID != "" && !caps.Resume:
		err = fmt.Errorf("%w: agent %s cannot resume sessions (--resume)", ErrUsage, name)
	case o.Fork && o.ResumeID == "":
		err = fmt.Errorf("%w: --fork needs --resume ID, the session to copy", ErrUsage)
	case so.Fork && !caps.Fork:
		err = fmt.Errorf("%w: agent %s cannot fork sessions (--fork); resume it, or start a new one", ErrUsage, name)
	case len(o.Images) > 0 && !caps.Images:
		err = fmt.Errorf("%w: agent %s does not accept images (--image)", ErrUsage, name)
	case o.SystemPrompt != "" && !caps.SystemPrompt:
		err = fmt.Errorf("%w: agent %s cannot replace its system prompt (--system-prompt); use --append-system-prompt", ErrUsage, name)
	}
	if err != nil {
		return so, "", cleanup, err
	}
	r.gate, err = conversation.NewGate(conversation.GateOptions{Rules: o.Rules, Grants: o.Grants, Cwd: o.Cwd, Agent: name, Answerer: answer})
	if err != nil {
		return so, "", cleanup, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	so.Permission = r.gate.Ask
	r.gate.Rules().Add(o.allow...)
	if o.AppendSystemPrompt != "" {
		prefix = instruct(&so, caps, "system-instructions", o.AppendSystemPrompt)
	}
	if prefix += schemaPrompt(&so, o, caps); caps.TurnBudget {
		// else hub counts the tool rounds (budget.round). A fallback comes
		// before any tool call, so no earlier attempt spent a round of it.
		so.MaxTurns = o.MaxTurns
	}
	switch list := o.skills; {
	case len(list) == 0:
	case caps.Skills == "native" && !slices.ContainsFunc(list, func(s skills.Skill) bool { return !s.Trusted }):
		// Placed, its own SKILL.md reaches the agent, which honours its
		// allowed-tools and hooks unasked (claude): an untrusted one goes in
		// the prompt.
		dir, undo, err := skills.PlaceTemp(list)
		if err != nil {
			return so, "", cleanup, err
		}
		so.SkillDirs = []string{dir}
		if o.KeepSkills {
			r.out.progress("skills placed in %s (kept: --keep-skills)", dir)
		} else {
			cleanup = func() { _ = undo() }
		}
	case caps.Skills == "file":
		so.Instructions = strings.TrimSpace(skills.Instructions(list) + "\n\n" + so.Instructions)
	default: // "prompt" and adapters that do not say
		prefix += skills.PromptPrefix(list) + "\n\n"
	}
	return so, prefix, cleanup, nil
}

// instruct gives the agent text at system level where it takes
// instructions, else returns it as a block (tag) leading the prompt.
func instruct(so *adapters.SessionOptions, caps adapters.Capabilities, tag, text string) (lead string) {
	if caps.Instructions || caps.SystemPrompt {
		so.Instructions = strings.TrimSpace(so.Instructions + "\n\n" + text)
		return ""
	}
	return "<" + tag + ">\n" + text + "\n</" + tag + ">\n\n"
}

// promptContent builds the prompt blocks: the text (read now when it comes
// from stdin, while the agent starts) and the images.
func (r *run) promptContent() ([]adapters.Content, error) {
	text := r.o.Prompt
	if text == "" && r.o.ReadPrompt != nil {
		var err error
		if text, err = r.o.ReadPrompt(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	if strings.TrimSpace(text) == "" && len(r.o.Images) == 0 {
		return nil, fmt.Errorf("%w: empty prompt", ErrUsage)
	}
	r.promptText = text
	var prompt []adapters.Content
	if strings.TrimSpace(text) != "" {
		prompt = append(prompt, adapters.Content{Type: adapters.ContentText, Text: text})
	}
	for _, p := range r.o.Images {
		c, err := imageContent(p)
		if err != nil {
			return nil, err
		}
		prompt = append(prompt, c)
	}
	return prompt, nil
}

func imageContent(path string) (adapters.Content, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return adapters.Content{}, fmt.Errorf("%w: --image: %v", ErrUsage, err)
	}
	byExt := map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}
	mime := cmp.Or(byExt[strings.ToLower(filepath.Ext(path))], http.DetectContentType(data))
	if !strings.HasPrefix(mime, "image/") {
		return adapters.Content{}, fmt.Errorf("%w: --image %s is not an image (%s)", ErrUsage, path, mime)
	}
	abs, _ := filepath.Abs(path)
	return adapters.Content{Type: adapters.ContentImage, MimeType: mime, Data: base64.StdEncoding.EncodeToString(data), URI: fileuri.FromPath(runtime.GOOS, abs)}, nil
}
