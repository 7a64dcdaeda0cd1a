package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

func init() { commands["grants"] = described("grants", runGrants) }

func runGrants(_ context.Context, e *env, args []string) int {
	sub := "list"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		sub, args = args[0], args[1:]
	}
	fs := e.flagSet("grants")
	asJSON := fs.Bool("json", false, "list: print JSON")
	here := fs.Bool("project", false, "list, clear: only the grants of the current project")
	pos, code, ok := e.parseInterspersed(fs, args)
	if !ok {
		return code
	}
	store := permission.OpenGrants(permission.GrantsFile(config.StateDir()), nil)
	project := ""
	if *here {
		project = config.ProjectRoot(e.cwd)
	}
	switch {
	case sub == "list" && len(pos) == 0:
		return listGrants(e, store, project, *asJSON)
	case sub == "revoke" && len(pos) == 1:
		return grantsDone(e, "revoke", store.Revoke(pos[0]))
	case sub == "revoke":
		return e.fail(exitUsage, "hub grants revoke: give one grant id (see 'hub grants list')\n")
	case sub == "clear" && len(pos) == 0:
		n, err := store.Clear(project)
		if err == nil {
			fmt.Fprintf(e.stderr, named("hub grants: %d removed\n"), n)
		}
		return grantsDone(e, "clear", err)
	case sub == "list" || sub == "clear":
		return e.fail(exitUsage, "hub grants %s: unexpected argument %q\n", sub, pos[0])
	}
	return e.fail(exitUsage, "hub grants: unknown subcommand %q (list, revoke, clear)\n", sub)
}

func grantsDone(e *env, sub string, err error) int {
	if err != nil {
		return e.fail(exitError, "hub grants %s: %v\n", sub, err)
	}
	return exitOK
}

func listGrants(e *env, store *permission.Grants, project string, asJSON bool) int {
	all, err := store.List()
	if err != nil {
		return grantsDone(e, "list", err)
	}
	list := slices.DeleteFunc(append([]permission.Grant{}, all...), func(g permission.Grant) bool { return project != "" && g.Project != project })
	if asJSON {
		return printJSON(e.stdout, list)
	}
	table(e.stdout, "ID\tPROJECT\tTOOL\tSCOPE\tAGENT\tEXPIRES", list, func(g permission.Grant) string {
		return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", g.ID, g.Project, g.Tool, g.What(), cmp.Or(g.Agent, "*"), g.Expires.Local().Format("2006-01-02 15:04"))
	})
	return exitOK
}
