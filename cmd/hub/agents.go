package main

import (
	"context"
	"fmt"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/detect"
	"github.com/hubdev/hub/personas"
)

func init() { commands["agents"] = described("agents", runAgents) }

// personaRow is one persona as 'hub agents' shows it.
type personaRow struct {
	Description string   `json:"description"`
	Backend     string   `json:"backend"`
	File        string   `json:"file"`
	Source      string   `json:"source"`
	Mode        string   `json:"mode,omitempty"`
	Model       string   `json:"model,omitempty"`
	Tools       []string `json:"tools,omitempty"`
	// State is personas.Adapter.Verdict's; Reason says why not.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

func personaOf(a adapters.Adapter) *personaRow {
	p, ok := a.(*personas.Adapter)
	if !ok {
		return nil
	}
	state, err := p.Verdict()
	row := &personaRow{Description: p.P.Description, Backend: p.BackendName(), File: p.P.File, Source: p.P.Source,
		Mode: p.P.Mode, Model: p.P.Model, Tools: p.P.Tools, State: state}
	switch {
	case state == "untrusted":
		row.Reason = p.P.Untrusted
	case err != nil:
		row.Reason = err.Error()
	}
	return row
}

func runAgents(_ context.Context, e *env, args []string) int {
	fs := e.flagSet("agents")
	asJSON := fs.Bool("json", false, "print JSON")
	names := fs.Bool("names", false, "print only the names, one a line (for completion scripts)")
	if code, ok := e.parseNoArgs(fs, args); !ok {
		return code
	}
	type row struct {
		Name    string      `json:"name"`
		Caps    any         `json:"capabilities"`
		Persona *personaRow `json:"persona,omitempty"`
	}
	var rows, ps []row
	for _, n := range e.registry.Names() {
		a, _ := e.registry.Get(n)
		if p := personaOf(a); p != nil {
			ps = append(ps, row{n, a.Capabilities(), p})
			continue
		}
		rows = append(rows, row{n, a.Capabilities(), nil})
	}
	rows = append(rows, ps...)
	if *names {
		for _, r := range rows {
			fmt.Fprintln(e.stdout, r.Name)
		}
		return exitOK
	}
	if *asJSON {
		return printJSON(e.stdout, rows)
	}
	table(e.stdout, "AGENT\tIMAGES\tRESUME\tPERMISSIONS\tMCP\tSKILLS", rows[:len(rows)-len(ps)], func(r row) string {
		c := r.Caps.(adapters.Capabilities)
		return fmt.Sprintf("%s\t%v\t%v\t%v\t%v\t%s", r.Name, c.Images, c.Resume, c.Permissions, c.MCP, c.Skills)
	})
	if len(ps) == 0 {
		return exitOK
	}
	fmt.Fprintln(e.stdout)
	table(e.stdout, "PERSONA\tBACKEND\tSTATE\tDESCRIPTION\tFILE", ps, func(r row) string {
		p := r.Persona
		return fmt.Sprintf("%s\t%s\t%s\t%s\t%s", r.Name, p.Backend, p.State, detect.Clip(adapters.FirstLine(p.Description), 60), p.File)
	})
	for _, r := range ps {
		if r.Persona.Reason != "" {
			fmt.Fprintf(e.stdout, "%s: %s\n", r.Name, r.Persona.Reason)
		}
	}
	return exitOK
}
