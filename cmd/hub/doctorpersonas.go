package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hubdev/hub/detect"
	"github.com/hubdev/hub/personas"
)

// personaChecks checks each persona file: does it parse, can it run
// (trust, its backend), and do its tools and mode exist on its backend.
func personaChecks(e *env) []detect.Persona {
	_, warns := personas.Discover(personas.Dirs{Cwd: e.cwd, TrustProject: e.trustProject})
	var out []detect.Persona
	for _, n := range e.registry.Names() {
		a, _ := e.registry.Get(n)
		p, ok := a.(*personas.Adapter)
		if !ok {
			continue
		}
		problems, _ := personas.Check(p)
		state, _ := p.Verdict()
		out = append(out, detect.Persona{Name: n, File: p.P.File, Backend: p.BackendName(), State: state, Problems: problems})
	}
	for _, w := range warns {
		out = append(out, detect.Persona{File: w.Path, State: "not used", Problems: []string{w.Message}})
	}
	return out
}

// formatPersonas prints the persona checks.
func formatPersonas(w io.Writer, list []detect.Persona) {
	if len(list) == 0 {
		return
	}
	fmt.Fprintln(w, "\nPersonas:")
	for _, p := range list {
		if p.Name == "" {
			fmt.Fprintf(w, "  %s: %s\n", p.File, strings.Join(p.Problems, "; "))
			continue
		}
		fmt.Fprintf(w, "  %s  on %s  %s  %s\n", p.Name, p.Backend, p.State, p.File)
		for _, pr := range p.Problems {
			fmt.Fprintf(w, "    - %s\n", pr)
		}
	}
}
