package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/hubdev/hub/adapters/all"
	"github.com/hubdev/hub/detect"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/personas"
)

func init() { commands["doctor"] = described("doctor", runDoctor) }

func runDoctor(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("doctor")
	asJSON := fs.Bool("json", false, "print the report as JSON (schema: detect.Report)")
	agent := fs.String("agent", "", "report only this agent; exit 1 when it cannot run")
	probe := fs.Bool("probe", false, "also check that native endpoints answer")
	refresh := fs.Bool("refresh", false, "ignore the cached report")
	timeout := fs.Duration("timeout", 5*time.Second, "timeout of each agent's probe")
	listAll := fs.Bool("all", false, "also list the catalogued ACP agents that are not installed, with how to install them")
	verbose := fs.Bool("v", false, "details for every agent (path, version range, dirs, auth source, capabilities)")
	if code, ok := e.parseNoArgs(fs, args); !ok {
		return code
	}
	o := detect.Options{Config: e.cfg, Registry: e.registry, Specs: all.DoctorSpecs(), Probe: *probe, Refresh: *refresh, Timeout: *timeout, All: *listAll}
	ps := personaChecks(e)
	r := &detect.Report{Schema: detect.SchemaVersion, GeneratedAt: time.Now().UTC(), Agents: []detect.Agent{}}
	if i := slices.IndexFunc(ps, func(p detect.Persona) bool { return p.Name != "" && p.Name == *agent }); i >= 0 {
		r.Personas = ps[i : i+1] // a persona: its check alone
	} else {
		if *agent != "" {
			o.Agents, ps = []string{*agent}, nil
		}
		var err error
		if r, err = detect.Run(ctx, o); err != nil {
			fmt.Fprintf(e.stderr, named("hub doctor: %v\n"), err)
			if errors.Is(err, detect.ErrUnknownAgent) {
				return exitUsage
			}
			return exitError
		}
		r.Personas = ps
	}
	if *asJSON {
		printJSON(e.stdout, r)
	} else {
		f, ok := e.stdout.(*os.File)
		color := ok && isatty.IsTerminal(f.Fd()) && os.Getenv("NO_COLOR") == ""
		if *verbose || *agent != "" {
			detect.FormatDetails(e.stdout, r, color)
		} else {
			detect.Format(e.stdout, r, color)
		}
		formatProjects(e)
		formatPersonas(e.stdout, r.Personas)
	}
	if ready := len(r.Agents) == 1 && r.Agents[0].Ready || len(r.Personas) == 1 && r.Personas[0].State == "ready"; *agent != "" && !ready {
		return exitError
	}
	return exitOK
}

// formatProjects lists the project config files and whether hub trusts
// them (see 'hub trust').
func formatProjects(e *env) {
	projects, why := slices.Clone(e.cfg.Projects), map[string]string{}
	for _, agent := range all.AgentFiles(e.cwd) {
		for _, f := range agent.Files {
			if _, listed := why[f]; listed { // .mcp.json: claude's and qodercli's
				continue
			}
			projects, why[f] = append(projects, config.ProjectFile{Path: f, Trusted: e.trustProject || !config.UntrustedFile(f)}), "not trusted: "+agent.Without+"; run 'hub trust' to use it"
		}
	}
	if len(projects) == 0 {
		return
	}
	fmt.Fprintln(e.stdout, "\nProject config:")
	for _, p := range projects {
		state := "trusted"
		if !p.Trusted {
			state = cmp.Or(why[p.Path], "not trusted: its commands, env, endpoints, allow rules and wider modes are ignored; run 'hub trust' to use them")
		}
		fmt.Fprintf(e.stdout, "  %s  %s\n", p.Path, state)
	}
}

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
