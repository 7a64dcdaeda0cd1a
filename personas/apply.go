package personas

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

// gated are the kinds the gate can refuse; a persona that lists none of a
// kind's tools gets a deny rule for it.
var gated = []adapters.ToolKind{adapters.KindRead, adapters.KindSearch, adapters.KindEdit, adapters.KindDelete,
	adapters.KindMove, adapters.KindExecute, adapters.KindFetch}

// bypassModes skip hub's permission gate: a persona cannot choose them
// (the user still can).
var bypassModes = map[string]bool{"bypasspermissions": true, "dontask": true, "full-access": true, "yolo": true, "danger-full-access": true}

// canonical is a tool entry as hub's filter names it: its kind when hub
// knows the name, else the name; Claude's delegation tools are also hub's.
func canonical(tool string) []string {
	if k, ok := permission.KindOfTool(tool); ok {
		return []string{string(k)}
	}
	if t := strings.ToLower(tool); t == "task" || t == "agent" {
		return []string{t, "delegate_agent"}
	}
	return []string{strings.ToLower(tool)}
}

// Filter is nil when the persona lists no tools and its mode takes none away.
func (p Persona) Filter() *adapters.ToolFilter {
	var f adapters.ToolFilter
	if p.ToolsSet {
		f.Allow = []string{}
		for _, t := range p.Tools {
			c := canonical(t)
			f.Allow = append(f.Allow, c...)
			if c[0] == string(adapters.KindEdit) { // an edit tool may delete and move
				f.Allow = append(f.Allow, string(adapters.KindDelete), string(adapters.KindMove))
			}
		}
		if len(p.Delegates) > 0 { // naming its delegates lists delegation
			f.Allow = append(f.Allow, "delegate_agent")
		}
	}
	for _, t := range p.Disallowed {
		f.Deny = append(f.Deny, canonical(t)...)
	}
	if p.Mode == ModePlan || p.Mode == ModeReadOnly {
		f.Deny = append(f.Deny, adapters.WriteKinds...)
	}
	if f.Allow == nil && f.Deny == nil {
		return nil
	}
	return &f
}

// Rules are the user's rules narrowed by the persona: a deny for each
// kind of tool it may not use, then its own deny and ask rules (never allow).
func (p Persona) Rules(user config.PermissionsConfig) config.PermissionsConfig {
	out := user
	out.Rules = slices.Clone(user.Rules)
	f := p.Filter()
	for _, k := range gated {
		if !f.Permits("", k) {
			out.Rules = append(out.Rules, config.PermissionRule{Tool: string(k), Decision: "deny"})
		}
	}
	for _, name := range p.Disallowed {
		out.Rules = append(out.Rules, config.PermissionRule{Tool: name, Decision: "deny"})
	}
	out.Rules = append(out.Rules, p.own()...)
	return out
}

func (p Persona) own() []config.PermissionRule {
	return slices.DeleteFunc(slices.Clone(p.Permissions), func(r config.PermissionRule) bool {
		return !slices.Contains([]string{"deny", "ask"}, strings.ToLower(strings.TrimSpace(r.Decision)))
	})
}

// Apply fits opts to the persona on a backend with caps. The warnings say
// what the backend cannot take; err, that the persona cannot run on it.
func (p Persona) Apply(opts adapters.SessionOptions, caps adapters.Capabilities, backend string) (adapters.SessionOptions, []string, error) {
	var warns []string
	switch {
	case p.Prompt == "":
	case p.Replace && caps.SystemPrompt && opts.SystemPrompt == "":
		opts.SystemPrompt = p.Prompt
	default:
		if p.Replace {
			warns = append(warns, fmt.Sprintf("persona %s: %s cannot replace its system prompt; the persona's prompt is added to it", p.Name, backend))
		}
		opts.Instructions = strings.TrimSpace(p.Prompt + "\n\n" + opts.Instructions)
	}
	opts.Model = cmp.Or(opts.Model, p.Model)
	mode, warn, err := p.modeOn(caps, backend)
	if err != nil {
		return opts, nil, err
	}
	opts.Mode = cmp.Or(mode, opts.Mode)
	if warn != "" {
		warns = append(warns, "persona "+p.Name+": "+warn)
	}
	if f := p.Filter(); f != nil {
		if o := opts.Tools; o != nil { // the persona whose turn it takes over narrowed them first
			f.Deny = append(f.Deny, o.Deny...)
			switch {
			case o.Allow == nil:
			case f.Allow == nil:
				f.Allow = o.Allow
			default: // what both list
				f.Allow = slices.DeleteFunc(f.Allow, func(e string) bool {
					return !slices.ContainsFunc(o.Allow, func(a string) bool { return strings.EqualFold(a, e) })
				})
			}
		}
		opts.Tools = f
	}
	opts.Permission = p.gate(p.Rules(config.PermissionsConfig{}), opts.Permission, opts.Cwd, "")
	if text, ws := p.skillInstructions(opts.Cwd); text != "" || len(ws) > 0 {
		opts.Instructions = strings.TrimSpace(opts.Instructions + "\n\n" + text)
		warns = append(warns, ws...)
	}
	p.delegation(&opts)
	return opts, warns, nil
}

// modeOn is the backend mode the persona runs in ("": the session's own).
// A mode the backend lacks is an error, not the backend's default: that
// might grant more than the persona says.
func (p Persona) modeOn(caps adapters.Capabilities, backend string) (mode, warn string, err error) {
	switch m := p.Mode; {
	case m == "" || m == ModeDefault:
	case bypassModes[strings.ToLower(m)]:
		warn = fmt.Sprintf("mode %s is ignored: it would let %s skip hub's permission gate, and a persona only narrows", m, backend)
	case slices.ContainsFunc(caps.Modes, func(o adapters.Option) bool { return o.ID == m }):
		mode = m
	case m == ModePlan || m == ModeReadOnly:
		warn = fmt.Sprintf("%s has no %s mode; hub refuses its writes and commands instead", backend, m)
	case caps.ModesLater: // its start refuses a mode it lacks
		mode = m
	default:
		err = fmt.Errorf("%w (%s)", HasMode(caps, backend, m), p.File)
	}
	return mode, warn, err
}

// HasMode is nil when agent can start in mode m (an agent that tells its
// modes only at start refuses one it lacks then).
func HasMode(caps adapters.Capabilities, agent, m string) error {
	if caps.ModesLater || slices.ContainsFunc(caps.Modes, func(o adapters.Option) bool { return o.ID == m }) {
		return nil
	}
	var ids []string
	for _, o := range caps.Modes {
		ids = append(ids, o.ID)
	}
	return fmt.Errorf("mode %q: %s's modes are %s: %w", m, agent, cmp.Or(strings.Join(ids, ", "), "none"), adapters.ErrUnsupported)
}
