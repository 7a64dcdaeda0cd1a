package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/hubdev/hub/acp"
	"github.com/hubdev/hub/internal/config"
)

const sessionsHelp = `Usage: hub sessions list [--json]
       hub sessions show ID
       hub sessions export ID [--format md|json]
       hub sessions rm ID

The sessions hub acp recorded (its session index in the state dir): list
them newest first, show one as a readable conversation, export it as
Markdown or as hub's JSON record, or remove it.
`

func init() { commands["sessions"] = command{run: runSessions, help: sessionsHelp} }

func runSessions(_ context.Context, e *env, args []string) int {
	sub := "list"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		sub, args = args[0], args[1:]
	}
	fs := newFlagSet("sessions", sessionsHelp, e.stderr)
	asJSON := fs.Bool("json", false, "list: print JSON")
	format := fs.String("format", "md", "export: md or json")
	pos, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	st := acp.OpenStore(config.StateDir())
	switch sub {
	case "list":
		return listSessions(e, st, *asJSON)
	case "show", "export", "rm":
		if len(pos) != 1 {
			fmt.Fprintf(e.stderr, "hub sessions %s: give one session id (see 'hub sessions list')\n", sub)
			return exitUsage
		}
	default:
		fmt.Fprintf(e.stderr, "hub sessions: unknown subcommand %q (list, show, export, rm)\n", sub)
		return exitUsage
	}
	id := pos[0]
	rec, ok := st.Get(id)
	if !ok {
		fmt.Fprintf(e.stderr, "hub sessions: no session %q (see 'hub sessions list')\n", id)
		return exitError
	}
	switch {
	case sub == "rm":
		if err := st.Delete(id); err != nil {
			fmt.Fprintf(e.stderr, "hub sessions rm: %v\n", err)
			return exitError
		}
	case sub == "export" && *format == "json":
		rec.History = st.History(id)
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rec)
	case sub == "export" && *format != "md":
		fmt.Fprintf(e.stderr, "hub sessions export: --format must be md or json\n")
		return exitUsage
	default:
		fmt.Fprint(e.stdout, acp.Markdown(rec, st.History(id)))
	}
	return exitOK
}

func listSessions(e *env, st *acp.Store, asJSON bool) int {
	all := st.Sessions()
	if asJSON {
		type row struct {
			ID, Agent, Cwd, Title, Updated string
		}
		rows := []row{}
		for _, r := range all {
			rows = append(rows, row{r.SessionID, r.Agent, r.Cwd, r.Title, r.UpdatedAt.Format("2006-01-02T15:04:05Z07:00")})
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rows)
		return exitOK
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tAGENT\tUPDATED\tCWD\tTITLE")
	for _, r := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.SessionID, r.Agent, r.UpdatedAt.Local().Format("2006-01-02 15:04"), r.Cwd, r.Title)
	}
	_ = tw.Flush()
	return exitOK
}
