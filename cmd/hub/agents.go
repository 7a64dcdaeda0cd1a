package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
)

const agentsHelp = `Usage: hub agents [--json | --names]

Lists every registered agent (built-in adapters, [agents.NAME] entries from
config, native provider profiles) with its capabilities.
`

func init() { commands["agents"] = command{run: runAgents, help: agentsHelp} }

func runAgents(_ context.Context, e *env, args []string) int {
	fs := newFlagSet("agents", agentsHelp, e.stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	names := fs.Bool("names", false, "print only the names, one a line (for completion scripts)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, named("hub agents: unexpected argument %q (see 'hub agents --help')\n"), fs.Arg(0))
		return exitUsage
	}
	type row struct {
		Name string `json:"name"`
		Caps any    `json:"capabilities"`
	}
	var rows []row
	for _, n := range e.registry.Names() {
		a, _ := e.registry.Get(n)
		rows = append(rows, row{n, a.Capabilities()})
	}
	if *names {
		for _, n := range e.registry.Names() {
			fmt.Fprintln(e.stdout, n)
		}
		return exitOK
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rows)
		return exitOK
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tIMAGES\tRESUME\tPERMISSIONS\tMCP\tSKILLS")
	for _, n := range e.registry.Names() {
		a, _ := e.registry.Get(n)
		c := a.Capabilities()
		fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t%v\t%s\n", n, c.Images, c.Resume, c.Permissions, c.MCP, c.Skills)
	}
	_ = tw.Flush()
	return exitOK
}
