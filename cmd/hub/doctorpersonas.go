package main

import (
	"fmt"

	"github.com/hubdev/hub/personas"
)

// doctorPersona reports the persona called name (ok false when it is
// not one): exit 1 when it cannot run.
func doctorPersona(e *env, name string) (code int, ok bool) {
	a, err := e.registry.Get(name)
	if err != nil {
		return 0, false
	}
	p, ok := a.(*personas.Adapter)
	if !ok {
		return 0, false
	}
	problems, runs := personas.Check(p)
	fmt.Fprintf(e.stdout, "persona %s on %s (%s): %s\n", name, p.BackendName(), p.P.File, p.P.Description)
	for _, pr := range problems {
		fmt.Fprintf(e.stdout, "  - %s\n", pr)
	}
	if !runs {
		return exitError, true
	}
	return exitOK, true
}

// formatPersonas checks each persona file: does it parse, can it run
// (trust, its backend), and do its tools and mode exist on its backend.
func formatPersonas(e *env) {
	_, warns := personas.Discover(personas.Dirs{Cwd: e.cwd, TrustProject: e.trustProject})
	var list []*personas.Adapter
	for _, n := range e.registry.Names() {
		if a, err := e.registry.Get(n); err == nil {
			if p, ok := a.(*personas.Adapter); ok {
				list = append(list, p)
			}
		}
	}
	if len(list) == 0 && len(warns) == 0 {
		return
	}
	fmt.Fprintln(e.stdout, "\nPersonas:")
	for _, a := range list {
		problems, ok := personas.Check(a)
		state := "ok"
		if !ok {
			state = "cannot run"
		}
		fmt.Fprintf(e.stdout, "  %s  on %s  %s  %s\n", a.Name(), a.BackendName(), state, a.P.File)
		for _, p := range problems {
			fmt.Fprintf(e.stdout, "    - %s\n", p)
		}
	}
	for _, w := range warns {
		fmt.Fprintf(e.stdout, "  %s\n", w)
	}
}
