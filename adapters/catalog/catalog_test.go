package catalog

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters/agentspec"
)

var (
	nameRe = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	envRe  = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

func TestCatalog_EveryEntryIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	bins := map[string]string{}
	for _, e := range Entries() {
		t.Run(e.Name, func(t *testing.T) {
			checks := []struct {
				what string
				ok   bool
			}{
				{"name is lower-case letters, digits and dashes", nameRe.MatchString(e.Name)},
				{"name is unique", !seen[e.Name]},
				{"title is set", e.Title != ""},
				{"bin is a bare program name", e.Bin != "" && !strings.ContainsAny(e.Bin, `/\ `)},
				{"bin is not another entry's", bins[e.Bin] == ""},
				{"args are given (empty when the program speaks ACP bare)", e.Args != nil},
				{"no arg is empty or holds a space", !strings.Contains(strings.Join(e.Args, "\x00")+"\x00", " ") && !hasEmpty(e.Args)},
				{"an npm package or an install step", e.NPM != "" || e.Install != ""},
				{"never npx", !strings.Contains(e.InstallHint(), "npx") && e.Bin != "npx"},
				{"where the entry point was confirmed", e.Source != ""},
				{"login args do not repeat the program", len(e.Login) == 0 || e.Login[0] != e.Bin},
				{"auth_required needs a way to tell", !e.AuthRequired || len(e.AuthFiles)+len(e.AuthEnv) > 0},
				{"config_env is a variable name", e.ConfigEnv == "" || envRe.MatchString(e.ConfigEnv)},
				{"auth_env are variable names", allMatch(envRe, e.AuthEnv)},
				{"env keys are variable names", allMatch(envRe, keys(e.Env))},
				{"paths start at ~ or an XDG base", allPrefixed(append([]string{e.ConfigDir}, e.AuthFiles...))},
			}
			for _, c := range checks {
				if !c.ok {
					t.Errorf("%s: %s", e.Name, c.what)
				}
			}
		})
		seen[e.Name], bins[e.Bin] = true, e.Name
	}
	if len(seen) < 25 {
		t.Errorf("catalogue has %d entries, want at least 25", len(seen))
	}
}

func TestCatalog_SpecsCarryTheEntry(t *testing.T) {
	e, ok := Lookup("auggie")
	if !ok {
		t.Fatal("auggie is not catalogued")
	}
	s := e.Spec()
	if !s.Catalog || s.Bin != "auggie" || strings.Join(s.ACPArgs, " ") != "--acp" || s.Env["AUGMENT_DISABLE_AUTO_UPDATE"] != "1" {
		t.Fatalf("spec = %+v", s)
	}
	if s.Install != "npm install -g @augmentcode/auggie" || s.LoginFix != "run `auggie login`" {
		t.Fatalf("install %q, login fix %q", s.Install, s.LoginFix)
	}
}

func TestEntry_AuthFromEnvFilesOrUnknown(t *testing.T) {
	home := t.TempDir()
	entry := Entry{Name: "x", Bin: "x", AuthEnv: []string{"X_KEY"}, AuthFiles: []string{"$XDG_DATA_HOME/x/auth.json"}}
	required := entry
	required.AuthRequired = true
	writeFile(t, filepath.Join(home, "data", "x", "auth.json"))
	tests := []struct {
		name  string
		e     Entry
		env   map[string]string
		state string
	}{
		{"a key wins", entry, map[string]string{"X_KEY": "k"}, agentspec.AuthAPIKey},
		{"a login file under XDG_DATA_HOME", entry, map[string]string{"XDG_DATA_HOME": filepath.Join(home, "data")}, agentspec.AuthLoggedIn},
		{"nothing, optional", entry, nil, agentspec.AuthUnknown},
		{"nothing, required", required, nil, agentspec.AuthNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := tt.e.auth(func(k string) string { return tt.env[k] }, "", home)
			if got.State != tt.state {
				t.Fatalf("state = %q, want %q (%+v)", got.State, tt.state, got)
			}
		})
	}
}

func TestExpand_HomeAndXDGFallbacks(t *testing.T) {
	env := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": "/cfg"}[k] }
	tests := map[string]string{
		"~/.augment/session.json":        "/h/.augment/session.json",
		"$XDG_DATA_HOME/opencode/a.json": "/h/.local/share/opencode/a.json",
		"$XDG_CONFIG_HOME/goose":         "/cfg/goose",
		"/etc/absolute":                  "/etc/absolute",
	}
	for in, want := range tests {
		if got := filepath.ToSlash(expand(in, env, "/h")); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func hasEmpty(s []string) bool {
	for _, v := range s {
		if v == "" {
			return true
		}
	}
	return false
}

func allMatch(re *regexp.Regexp, s []string) bool {
	for _, v := range s {
		if !re.MatchString(v) {
			return false
		}
	}
	return true
}

func allPrefixed(paths []string) bool {
	for _, p := range paths {
		if p != "" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "$XDG_") {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func writeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestParse_RefusesUnknownKeys(t *testing.T) {
	if _, err := parse([]byte(`[{"name": "x", "agrs": ["acp"]}]`)); err == nil {
		t.Fatal("a misspelt key must not pass silently")
	}
}

func TestReadme_ListsEveryEntryWithItsCommand(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Entries() {
		row := "| " + e.Name + " | " + e.Title + " | `" + strings.Join(append([]string{e.Bin}, e.Args...), " ") + "` |"
		if !strings.Contains(string(readme), row) {
			t.Errorf("README's catalogue table lacks %q", row)
		}
	}
}
