package personas

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

var ErrUntrusted = errors.New("untrusted persona")

// Adapter runs a persona on its backend adapter; it registers under the
// persona's name, so every front end runs it like any agent.
type Adapter struct {
	P       Persona
	Backend adapters.Adapter
	As      string // the name of an agent taking a persona's turn over (conversation.FallbackAgents)
}

var _ adapters.Persona = (*Adapter)(nil)

func (a *Adapter) Name() string { return cmp.Or(a.As, a.P.Name) }

func (a *Adapter) Description() string { return a.P.Description }

func (a *Adapter) BackendName() string {
	if a.Backend == nil {
		return a.P.Agent
	}
	return a.Backend.Name()
}

func (a *Adapter) Capabilities() adapters.Capabilities {
	if a.Backend == nil {
		return adapters.Capabilities{Notes: fmt.Sprintf("persona on %s, which is not an agent hub knows (%s)", a.P.Agent, a.P.File)}
	}
	c := a.Backend.Capabilities()
	c.DefaultModel = cmp.Or(a.P.Model, c.DefaultModel)
	c.Notes = fmt.Sprintf("persona on %s (%s): %s", a.Backend.Name(), a.P.File, a.P.Description)
	return c
}

// Verdict is the persona's state, the one every front end says: "ready",
// "untrusted", "cannot run" as written, or "not ready" here.
func (a *Adapter) Verdict() (state string, err error) { return Verdict(a, adapters.Ready) }

// Verdict is what every front end says of agent a; ready is adapters.Ready,
// or a cache of it.
func Verdict(a adapters.Adapter, ready func(adapters.Adapter) error) (state string, err error) {
	if p, ok := a.(*Adapter); ok {
		switch {
		case !p.P.Trusted:
			return "untrusted", fmt.Errorf("%w: %s", ErrUntrusted, p.P.Untrusted)
		case p.Backend == nil:
			return "cannot run", p.noBackend()
		}
		_, _, err := p.P.modeOn(p.Backend.Capabilities(), p.Backend.Name())
		if err = cmp.Or(p.carries(), err); err != nil {
			return "cannot run", err
		}
		a = p.Backend
	}
	if err := ready(a); err != nil {
		return "not ready", err
	}
	return "ready", nil
}

func (a *Adapter) Ready() error {
	_, err := a.Verdict()
	return err
}

// carries refuses a persona of another mode taking a persona's turn over:
// its mode would replace the carried one's, and hub cannot tell which of
// two backend modes is narrower.
func (a *Adapter) carries() error {
	in, ok := a.Backend.(*Adapter)
	if !ok || a.As == "" || cmp.Or(in.P.Mode, ModeDefault) == cmp.Or(a.P.Mode, ModeDefault) {
		return nil
	}
	return fmt.Errorf("persona %s runs in mode %s, not persona %s's %s: it cannot take %s's turn over: %w",
		in.P.Name, cmp.Or(in.P.Mode, ModeDefault), a.P.Name, cmp.Or(a.P.Mode, ModeDefault), a.P.Name, adapters.ErrUnsupported)
}

func (a *Adapter) noBackend() error {
	return fmt.Errorf("%w %q: persona %s (%s) runs on it; fix its agent key (see 'hub agents')", adapters.ErrUnknownAgent, a.P.Agent, a.P.Name, a.P.File)
}

func (a *Adapter) Start(ctx context.Context, opts adapters.SessionOptions) (adapters.Session, error) {
	if !a.P.Trusted {
		return nil, fmt.Errorf("%w %s: %s: %w", ErrUntrusted, a.P.Name, a.P.Untrusted, adapters.ErrUnsupported)
	}
	if a.Backend == nil {
		return nil, a.noBackend()
	}
	if err := a.carries(); err != nil {
		return nil, err
	}
	opts, warns, err := a.P.Apply(opts, a.Backend.Capabilities(), a.Backend.Name())
	if err != nil {
		return nil, err
	}
	s, err := a.Backend.Start(ctx, opts)
	if err != nil || len(warns) == 0 {
		return s, err
	}
	return &warned{Forward: adapters.Forward{Session: s}, warns: warns}, nil
}

// Delegated narrows so, the session options of delegate a, by each persona
// of chain (the root first): a persona never widens through what it
// delegates. Its deny and ask rules and its plan or read-only mode bind
// the delegate; its tools stay its own.
func Delegated(chain []adapters.Adapter, a adapters.Adapter, so *adapters.SessionOptions) error {
	for _, c := range chain {
		p, ok := c.(*Adapter)
		if !ok {
			continue
		}
		so.Permission = p.P.gate(config.PermissionsConfig{Rules: p.P.own()}, so.Permission, so.Cwd, "")
		if m := p.P.Mode; m == ModePlan || m == ModeReadOnly {
			if err := p.P.bind(a, so); err != nil {
				return err
			}
		}
	}
	return nil
}

// bind keeps delegate a of p, in plan or read-only mode, from writing files
// or running commands: in that mode when a has it (else its default, never
// the one asked for), no write tool offered, and the gate refusing them.
func (p Persona) bind(a adapters.Adapter, so *adapters.SessionOptions) error {
	if d, ok := a.(*Adapter); ok && !slices.Contains([]string{"", ModeDefault, ModePlan, ModeReadOnly}, d.P.Mode) {
		return fmt.Errorf("persona %s runs in mode %s, and persona %s's %s mode binds its delegates: pick another agent: %w",
			d.P.Name, d.P.Mode, p.Name, p.Mode, adapters.ErrUnsupported)
	}
	caps := a.Capabilities()
	so.Mode = ""
	for _, m := range []string{p.Mode, ModePlan, ModeReadOnly} {
		if so.Mode == "" && slices.ContainsFunc(caps.Modes, func(o adapters.Option) bool { return o.ID == m }) {
			so.Mode = m
		}
	}
	so.Access, so.Tools = adapters.AccessAskFirst, &adapters.ToolFilter{Deny: slices.Clone(adapters.WriteKinds)}
	var rules []config.PermissionRule
	for _, k := range adapters.WriteKinds {
		rules = append(rules, config.PermissionRule{Tool: k, Decision: "deny"})
	}
	so.Permission = p.gate(config.PermissionsConfig{Rules: rules}, so.Permission, so.Cwd,
		fmt.Sprintf("persona %s is in %s mode: its delegates may not change files or run commands", p.Name, p.Mode))
	return nil
}

// gate marks what the persona's rules deny as refused and what they ask as
// must-ask, for the session's gate, and names the persona in each request.
// why, when set, is what a refusal says instead of the rule.
func (p Persona) gate(rules config.PermissionsConfig, next adapters.PermissionFunc, cwd, why string) adapters.PermissionFunc {
	if next == nil {
		return nil
	}
	own, err := permission.New(rules)
	if err != nil { // Parse checked every rule
		own, _ = permission.New(config.PermissionsConfig{})
	}
	return func(ctx context.Context, req *adapters.PermissionRequest) adapters.PermissionDecision {
		switch v, _ := own.Narrow(permission.RequestOf(req.Tool, cwd)); v.Decision {
		case permission.Deny:
			req.Refusal = &adapters.Refusal{By: "persona " + p.Name, Reason: cmp.Or(why, "persona "+p.Name+": "+v.Reason)} // its rules' index is no rule of the user's
		case permission.Ask:
			req.MustAsk = "persona " + p.Name + ": " + v.Reason
		}
		if !strings.HasPrefix(req.Tool.Title, p.Name+": ") {
			req.Tool.Title = p.Name + ": " + strings.TrimSpace(req.Tool.Title)
		}
		return next(ctx, req)
	}
}

// warned is a session whose first turn starts with the persona's warnings.
type warned struct {
	adapters.Forward
	warns []string
	once  sync.Once
}

func (w *warned) Steer(ctx context.Context, prompt []adapters.Content) error {
	if c, ok := w.Session.(adapters.Steerer); ok {
		return c.Steer(ctx, prompt)
	}
	return adapters.ErrNoTurn
}

func (w *warned) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	w.once.Do(func() {
		for _, m := range w.warns {
			emit(adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: m, Code: adapters.CodeWarning}})
		}
	})
	return w.Session.Prompt(ctx, prompt, emit)
}
