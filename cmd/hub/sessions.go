package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/hubdev/hub/acp"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/mask"
	"github.com/hubdev/hub/internal/transcript"
)

func init() { commands["sessions"] = described("sessions", runSessions) }

func runSessions(_ context.Context, e *env, args []string) int {
	sub := "list"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		sub, args = args[0], args[1:]
	}
	fs := e.flagSet("sessions")
	asJSON := fs.Bool("json", false, "list: print JSON")
	format := fs.String("format", "md", "export: md or json")
	pos, code, ok := e.parseInterspersed(fs, args)
	if !ok {
		return code
	}
	st := acp.OpenStore(config.StateDir())
	switch sub {
	case "list":
		if len(pos) > 0 {
			return e.fail(exitUsage, "hub sessions list: unexpected argument %q (see 'hub sessions --help')\n", pos[0])
		}
		return listSessions(e, st, *asJSON)
	case "show", "export", "rm":
		if len(pos) != 1 {
			return e.fail(exitUsage, "hub sessions %s: give one session id (see 'hub sessions list')\n", sub)
		}
	default:
		return e.fail(exitUsage, "hub sessions: unknown subcommand %q (list, show, export, rm)\n", sub)
	}
	if sub == "export" && *format != "md" && *format != "json" {
		return e.fail(exitUsage, "hub sessions export: --format must be md or json\n")
	}
	if sub == "rm" {
		return removeSession(e, st, pos[0])
	}
	return showSession(e, pos[0], sub == "export" && *format == "json")
}

// recordDirs hold the transcripts hub acp did not index: the native
// loop's and audited ones, then hub run's records.
func recordDirs() []string { return []string{config.TranscriptDir(), runsDir()} }

// runsDir keeps hub run's record of each run, for --resume and --continue.
func runsDir() string { return filepath.Join(config.StateDir(), "runs") }

// sessionRow is one line of hub sessions list.
type sessionRow struct {
	ID, Agent, Cwd, Title string
	Updated               time.Time
	// Source is "acp" (hub acp's index) or "transcript".
	Source string
}

// sessionRows are the index's sessions, then the transcripts no indexed
// session names (native runs of hub run, audited runs), newest first.
func sessionRows(st *acp.Store) []sessionRow {
	var rows []sessionRow
	named := map[string]bool{}
	for _, r := range st.Sessions() {
		rows = append(rows, sessionRow{r.SessionID, r.Agent, r.Cwd, r.Title, r.UpdatedAt, "acp"})
		named[r.SessionID], named[r.AgentSessionID] = true, true
	}
	for _, dir := range recordDirs() {
		trs, _ := transcript.List(dir)
		for _, t := range trs {
			if !named[t.ID] {
				rows = append(rows, sessionRow{t.ID, t.Agent, t.Cwd, t.Title, t.Updated, "transcript"})
				named[t.ID] = true
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Updated.After(rows[j].Updated) })
	return rows
}

func listSessions(e *env, st *acp.Store, asJSON bool) int {
	all := sessionRows(st)
	if asJSON {
		return printJSON(e.stdout, append([]sessionRow{}, all...))
	}
	table(e.stdout, "SESSION\tAGENT\tUPDATED\tCWD\tTITLE", all, func(r sessionRow) string {
		return fmt.Sprintf("%s\t%s\t%s\t%s\t%s", r.ID, r.Agent, r.Updated.Local().Format("2006-01-02 15:04"), r.Cwd, r.Title)
	})
	return exitOK
}

// showSession prints one session's record, from hub acp's index or a
// transcript, as Markdown or as its JSON records.
func showSession(e *env, id string, asJSON bool) int {
	var recs []transcript.Record
	var err error
	for _, dir := range append([]string{acp.IndexDir(config.StateDir())}, recordDirs()...) {
		if recs, err = transcript.Read(dir, id); !errors.Is(err, transcript.ErrNotFound) {
			break
		}
	}
	if errors.Is(err, transcript.ErrNotFound) {
		return e.fail(exitError, "hub sessions: no session %q (see 'hub sessions list')\n", id)
	}
	if err != nil && len(recs) == 0 {
		return e.fail(exitError, "hub sessions: %v\n", err)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, named("hub sessions: %v; showing the other records\n"), err)
	}
	if asJSON {
		return printJSON(mask.Default().JSONWriter(e.stdout), recs) // files older than masking
	}
	fmt.Fprint(e.stdout, transcript.Markdown(recs))
	return exitOK
}

// removeSession removes a session from the index and its transcripts: the
// one under its id, and its agent's own under the agent session id.
func removeSession(e *env, st *acp.Store, id string) int {
	ids := []string{id}
	rec, _ := st.Get(id)
	found := rec != nil
	if found {
		if err := st.Delete(id); err != nil {
			return e.fail(exitError, "hub sessions rm: %v\n", err)
		}
		if rec.AgentSessionID != "" {
			ids = append(ids, rec.AgentSessionID)
		}
	}
	for _, dir := range recordDirs() {
		for _, tid := range ids {
			switch err := transcript.Remove(dir, tid); {
			case err == nil:
				found = true
			case !errors.Is(err, transcript.ErrNotFound):
				return e.fail(exitError, "hub sessions rm: %v\n", err)
			}
		}
	}
	if !found {
		return e.fail(exitError, "hub sessions: no session %q (see 'hub sessions list')\n", id)
	}
	return exitOK
}
