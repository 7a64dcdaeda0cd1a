package permission

import (
	"cmp"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

const (
	pcLocal  = "repos:\n- repo: local\n  hooks:\n  - id: vet\n    name: vet\n    entry: go vet ./...\n    language: system\n"
	pcRemote = "repos:\n- repo: https://github.com/pre-commit/pre-commit-hooks\n  rev: v4.6.0\n  hooks:\n  - id: trailing-whitespace\n"
	pcHook   = "#!/usr/bin/env bash\nARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit)\nexec pre-commit \"${ARGS[@]}\"\n"
)

// An "always" for a command that runs pre-commit's hooks (pre-commit run, or git commit
// through the hook pre-commit installed) holds while .pre-commit-config.yaml stays as it was.
func TestAlwaysKey_PreCommitConfigAsShown(t *testing.T) {
	for _, tt := range []struct {
		name, cmd, before, after string
		covered                  bool
	}{
		{"a local hook edited", "pre-commit run --all-files", pcLocal, strings.Replace(pcLocal, "go vet ./...", "./x.sh", 1), false},
		{"a local hook edited, through git's hook", "git commit -m wip", pcLocal, strings.Replace(pcLocal, "go vet ./...", "./x.sh", 1), false},
		{"a config added", "git commit -m wip", "", pcLocal, false},
		{"a lefthook run line edited", "lefthook run pre-commit", "", "", false},
		{"unchanged", "pre-commit run --all-files", pcLocal, pcLocal, true},
		{"unchanged, through git's hook", "git commit -m wip", pcLocal, pcLocal, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fakeHome(t)
			dir, err := filepath.Abs(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			hookedRepo(t, dir, pcHook)
			file, before, after := ".pre-commit-config.yaml", tt.before, tt.after
			if strings.HasPrefix(tt.cmd, "lefthook") {
				file, before, after = "lefthook.yml", "pre-commit:\n  commands:\n    vet:\n      run: go vet ./...\n", "pre-commit:\n  commands:\n    vet:\n      run: ./x.sh\n"
			}
			if before != "" {
				write(t, filepath.Join(dir, file), before)
			}
			req := Request{Tool: "bash", Kind: adapters.KindExecute, Command: tt.cmd, Cwd: dir}
			s := mustNew(t)
			s.Remember(req, adapters.AllowAlways)
			if v := s.Check(req); v.Decision != Allow {
				t.Fatalf("the always does not cover itself: %+v", v)
			}
			write(t, filepath.Join(dir, file), after)
			if v := s.Check(req); (v.Decision == Allow) != tt.covered {
				t.Errorf("after the edit: %+v, want covered %v", v, tt.covered)
			}
		})
	}
}

// A config hub cannot read, or hooks pre-commit downloads (a remote repository, a local
// hook's additional_dependencies, try-repo), leave the line unclear: never covered by an
// always. Through git's hook, remote hooks are kept by the config's digest only.
func TestUnclear_PreCommitHubCannotRead(t *testing.T) {
	for _, tt := range []struct {
		name, cmd, file, config string
		unclear                 bool
	}{
		{"local hooks", "pre-commit run", "", pcLocal, false},
		{"no config", "pre-commit run", "", "", false},
		{"a remote repository", "pre-commit run --all-files", "", pcRemote, true},
		{"a remote repository, through git's hook", "git commit -m wip", "", pcRemote, false},
		{"additional_dependencies", "pre-commit run", "", pcLocal + "    additional_dependencies: [evil]\n", true},
		{"not YAML pre-commit takes", "pre-commit run", "", "repos:\n- repo: local\n  hooks: [\n", true},
		{"args not a list", "pre-commit run", "", pcLocal + "    args: rm\n", true},
		{"past the size hub reads", "pre-commit run", "", pcLocal + "#" + strings.Repeat("x", maxGitConfig) + "\n", true},
		{"not YAML, through git's hook", "git commit -m wip", "", "repos: [\n", true},
		{"try-repo", "pre-commit try-repo ../hooks", "", pcLocal, true},
		{"a config hub cannot name", `pre-commit run -c "$C"`, "", pcLocal, true},
		{"a lefthook config in TOML", "lefthook run pre-commit", "lefthook.toml", "[pre-commit.commands.x]\nrun = \"go vet ./...\"\n", true},
		{"a lefthook config with remotes", "lefthook run pre-commit", "lefthook.yml", "remotes:\n  - git_url: https://x.invalid/hooks\n    configs: [lefthook.yml]\n", true},
		{"a lefthook config", "lefthook run pre-commit", "lefthook.yml", "pre-commit:\n  commands:\n    vet:\n      run: go vet ./...\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fakeHome(t)
			dir, err := filepath.Abs(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			hookedRepo(t, dir, pcHook)
			if tt.config != "" {
				write(t, filepath.Join(dir, cmp.Or(tt.file, ".pre-commit-config.yaml")), tt.config)
			}
			req := Request{Tool: "bash", Kind: adapters.KindExecute, Command: tt.cmd, Cwd: dir}
			if got := Unclear(req); got != tt.unclear {
				t.Errorf("Unclear(%q) = %v, want %v", tt.cmd, got, tt.unclear)
			}
		})
	}
}
