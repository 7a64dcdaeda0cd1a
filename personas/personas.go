// Package personas reads agents defined in one Markdown file (a superset of
// Claude Code's subagent format) and runs them on any backend adapter,
// narrowing the session's tools and permissions to what the file lists.
package personas

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/skills"
)

var ErrMalformed = errors.New("malformed persona")

// Modes every backend understands through hub's permission gate.
const (
	ModeDefault  = "default"
	ModePlan     = "plan"
	ModeReadOnly = "read-only"
)

type Persona struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Agent       string `json:"agent,omitempty"` // the backend ("": the configured default agent)
	Model       string `json:"model,omitempty"`
	Mode        string `json:"mode,omitempty"`
	// Tools are as written (Claude's names, hub's tool names or kinds);
	// nil: every tool.
	Tools       []string                `json:"tools,omitempty"`
	ToolsSet    bool                    `json:"-"`
	Disallowed  []string                `json:"disallowedTools,omitempty"`
	Permissions []config.PermissionRule `json:"permissions,omitempty"` // deny and ask rules after the user's own
	Skills      []string                `json:"skills,omitempty"`
	Delegates   []string                `json:"delegates,omitempty"`
	Replace     bool                    `json:"replace,omitempty"` // the body replaces the system prompt
	Prompt      string                  `json:"-"`
	File        string                  `json:"file"`
	Source      string                  `json:"source"`
	// Trusted: a file of the user's, or a project file the user trusted
	// as it is now. Untrusted says why not.
	Trusted   bool           `json:"trusted"`
	Untrusted string         `json:"untrusted,omitempty"`
	Extra     map[string]any `json:"extra,omitempty"` // the keys hub does not use, kept
	Notes     []string       `json:"notes,omitempty"` // for the user, once: unknown keys, ignored rules
}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// claudeQuiet are Claude Code keys that change nothing about what the
// persona may do: kept without a note.
var claudeQuiet = map[string]bool{"color": true, "maxTurns": true, "background": true, "memory": true}

// Parse decodes an agent file; its errors are one line: file, line and key.
func Parse(file string, data []byte) (Persona, error) {
	front, body, why := skills.FrontMatter(data)
	if why != "" {
		return Persona{}, fmt.Errorf("%w: %s:1: %s", ErrMalformed, file, why)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return Persona{}, fmt.Errorf("%w: %s: front matter: %s", ErrMalformed, file, adapters.OneLine(err.Error()))
	}
	p := Persona{File: file, Prompt: strings.TrimSpace(string(body))}
	if len(doc.Content) == 1 {
		m := doc.Content[0]
		if m.Kind != yaml.MappingNode {
			return Persona{}, fmt.Errorf("%w: %s:%d: front matter must be a mapping of keys", ErrMalformed, file, m.Line)
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			if err := p.set(k.Value, v); err != nil {
				return Persona{}, fmt.Errorf("%w: %s:%d: key %s: %v", ErrMalformed, file, k.Line, k.Value, adapters.OneLine(err.Error()))
			}
		}
	}
	switch {
	case p.Name == "":
		return Persona{}, fmt.Errorf("%w: %s:1: key name: missing", ErrMalformed, file)
	case !validName.MatchString(p.Name) || len(p.Name) > 64:
		return Persona{}, fmt.Errorf("%w: %s:1: key name: %q must be 1-64 letters, digits, '-', '_' or '.'", ErrMalformed, file, p.Name)
	case p.Description == "":
		return Persona{}, fmt.Errorf("%w: %s:1: key description: missing (say when to use %s)", ErrMalformed, file, p.Name)
	}
	return p, nil
}

func (p *Persona) set(key string, v *yaml.Node) error {
	scalars := map[string]*string{"name": &p.Name, "description": &p.Description, "agent": &p.Agent, "model": &p.Model,
		"mode": &p.Mode, "permissionMode": &p.Mode}
	lists := map[string]*[]string{"tools": &p.Tools, "disallowedTools": &p.Disallowed, "disallowed-tools": &p.Disallowed,
		"skills": &p.Skills, "delegates": &p.Delegates}
	var err error
	switch {
	case scalars[key] != nil && v.Kind != yaml.ScalarNode:
		err = errors.New("must be a single value")
	case scalars[key] != nil:
		*scalars[key] = strings.TrimSpace(v.Value)
		if p.Model == "inherit" {
			p.Model = ""
		}
	case lists[key] != nil:
		*lists[key], err = skills.NameList(v, func(s string) []string { return strings.Split(s, ",") })
		p.ToolsSet = p.ToolsSet || key == "tools" && err == nil
	case key == "replace":
		err = v.Decode(&p.Replace)
	case key == "permissions":
		p.Permissions, err = rules(v)
		if slices.ContainsFunc(p.Permissions, func(r config.PermissionRule) bool { return strings.EqualFold(r.Decision, "allow") }) {
			p.Notes = append(p.Notes, fmt.Sprintf("%s:%d: key permissions: allow rules are ignored: a persona only narrows your permissions", p.File, v.Line))
		}
	default:
		var x any
		_ = v.Decode(&x)
		if p.Extra == nil {
			p.Extra = map[string]any{}
		}
		p.Extra[key] = x
		if !claudeQuiet[key] {
			p.Notes = append(p.Notes, fmt.Sprintf("%s:%d: key %s is not used by hub (kept)", p.File, v.Line, key))
		}
	}
	return err
}

// rules takes the config's rule tables ([{tool, path, command,
// decision}]) or Claude's pattern lists ({deny: ["Bash(rm:*)"], ask: …}).
func rules(v *yaml.Node) ([]config.PermissionRule, error) {
	var out []config.PermissionRule
	switch v.Kind {
	case yaml.SequenceNode:
		if err := v.Decode(&out); err != nil {
			return nil, err
		}
	case yaml.MappingNode:
		var m map[string][]string
		if err := v.Decode(&m); err != nil {
			return nil, errors.New("must map allow, ask or deny to lists of Tool(pattern)")
		}
		for _, d := range []string{"allow", "ask", "deny"} {
			for _, pat := range m[d] {
				r, err := permission.AllowRule(pat, "persona")
				if err != nil {
					return nil, err
				}
				out = append(out, config.PermissionRule{Tool: r.Tool, Path: r.Path, Command: r.Command, Decision: d})
			}
			delete(m, d)
		}
		for k := range m {
			return nil, fmt.Errorf("%q must be allow, ask or deny", k)
		}
	default:
		return nil, errors.New("must be a list of rules or a mapping of allow, ask and deny")
	}
	if _, err := permission.New(config.PermissionsConfig{Rules: out}); err != nil {
		return nil, err
	}
	return out, nil
}
