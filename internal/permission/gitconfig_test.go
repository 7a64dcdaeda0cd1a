package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

func TestParseGitConfig_ReadsGitSyntax(t *testing.T) {
	tests := []struct {
		src  string
		want []gitKV
	}{
		{"[core]\n\tpager = less -R\n", []gitKV{{"core.pager", "less -R"}}},
		{"[Core]\nPAGER=x", []gitKV{{"core.pager", "x"}}},
		{"[core] pager = x", []gitKV{{"core.pager", "x"}}},
		{"\ufeff[core]\r\n\tpager = x\r\n", []gitKV{{"core.pager", "x"}}},
		{"[filter \"Lfs\"]\n\tsmudge = a", []gitKV{{"filter.Lfs.smudge", "a"}}},
		{"[filter \"a\\\"b\"]\n\tsmudge = a", []gitKV{{"filter.a\"b.smudge", "a"}}},
		{"[diff.X]\n\texternal = a", []gitKV{{"diff.x.external", "a"}}},
		{"[alias]\n\tx = \"!rm -rf ~\" # a comment\n", []gitKV{{"alias.x", "!rm -rf ~"}}},
		{"[alias]\n\tx = !echo '#' ; rm -rf ~\n", []gitKV{{"alias.x", "!echo '"}}},
		{"[alias]\n\tx = \"!echo ';' ; rm -rf ~\"\n", []gitKV{{"alias.x", "!echo ';' ; rm -rf ~"}}},
		{"[core]\n\tpager = rm \\\n -rf ~\n", []gitKV{{"core.pager", "rm  -rf ~"}}},
		{"[core]\n\tpager = a\\tb\\\\c\\\"d\n", []gitKV{{"core.pager", "a\tb\\c\"d"}}},
		{"[core]\n\tbare\n; comment\n# comment\n", []gitKV{{"core.bare", ""}}},
		{"[core]\n\teditor = vim # \\\n\tfsmonitor = rm -rf ~\n", []gitKV{{"core.editor", "vim"}, {"core.fsmonitor", "rm -rf ~"}}}, // no continuation in a comment
		{"[core] pager = \"less\"\n", []gitKV{{"core.pager", "less"}}},
		{"[filter \"a]b\"] smudge = rm -rf ~\n", []gitKV{{"filter.a]b.smudge", "rm -rf ~"}}},
		{"[url \"ext::a=b\"]\n\tinsteadOf = x\n", []gitKV{{"url.ext::a=b.insteadof", "x"}}},
		{"[core]\n\tpager = \"a\\\n b\"\n", []gitKV{{"core.pager", "a b"}}},
		// git's parser reads characters, not lines (config.c): as `git config -f FILE --list` reads them
		{"[alias][core]fsmonitor = rm -rf ~\n", []gitKV{{"core.fsmonitor", "rm -rf ~"}}},
		{"[alias]\r[core]\rfsmonitor = rm -rf ~\n", []gitKV{{"core.fsmonitor", "rm -rf ~"}}},
		{"[filter\t\"lfs\"]\n\tsmudge = rm -rf ~\n", []gitKV{{"filter.lfs.smudge", "rm -rf ~"}}},
		{"[url \"e\\xt::rm -rf /\"]\n\tinsteadOf = origin\n", []gitKV{{"url.ext::rm -rf /.insteadof", "origin"}}},
		{"[diff \"a\\\"]b\"]\n\ttextconv = x\n", []gitKV{{"diff.a\"]b.textconv", "x"}}},
		{"[core]\n\tfsmonitor = rm\r-rf   ~\n", []gitKV{{"core.fsmonitor", "rm -rf   ~"}}},
		{"[core]\n\tpager = true\x00rm -rf ~\n", []gitKV{{"core.pager", "true"}}},
		{"[core]\n\tpager = rm -rf ~\\", []gitKV{{"core.pager", "rm -rf ~"}}},
		{"[core]\n\tpager = x\v\n", []gitKV{{"core.pager", "x\v"}}},
		{"[core]\n\tpager = x\n[core \"x\" ]\n\tpager = y\n[core]\n\tpager = \"z\n\tfsmonitor = \\q\n\teditor = e\n", []gitKV{{"core.pager", "x"}, {"core.pager", "y"}, {"core.editor", "e"}}}, // git refuses the file (and runs nothing): a line it refuses is skipped
	}
	for _, tc := range tests {
		if got := parseGitConfig(tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.src, got, tc.want)
		}
	}
}

// The repository git finds is the one whose config is read: through a
// .git file naming a worktree's directory (and its commondir), an
// include, up from a subdirectory, a submodule's under .git/modules; an
// include loop ends, and a config past hub's bounds leaves it unclear.
func TestHardDeny_GitConfigOnDisk(t *testing.T) {
	fakeHome(t)
	ws := t.TempDir()
	main := filepath.Join(ws, "main", ".git")
	write(t, filepath.Join(main, "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(main, "config"), "[include]\n\tpath = loop.inc\n")
	write(t, filepath.Join(main, "loop.inc"), "[include]\n\tpath = loop.inc\n[core]\n\tfsmonitor = rm -rf ~\n")
	mkdirs(t, filepath.Join(main, "objects"), filepath.Join(main, "refs"))
	wt := filepath.Join(main, "worktrees", "wt")
	write(t, filepath.Join(wt, "HEAD"), "ref: refs/heads/wt\n")
	write(t, filepath.Join(wt, "commondir"), "../..\n")
	write(t, filepath.Join(ws, "wt", ".git"), "gitdir: "+wt+"\n")                     // absolute, as git writes it (C:/… on Windows)
	write(t, filepath.Join(ws, "rel", ".git"), "gitdir: ../main/.git/worktrees/wt\n") // relative
	mkdirs(t, filepath.Join(ws, "wt", "deep", "er"))
	repo := func(dir, config string) {
		write(t, filepath.Join(ws, dir, ".git", "config"), config)
		write(t, filepath.Join(ws, dir, ".git", "HEAD"), "ref: refs/heads/main\n")
		mkdirs(t, filepath.Join(ws, dir, ".git", "objects"), filepath.Join(ws, dir, ".git", "refs"))
	}
	repo("big", "[core]\n\tpager = "+strings.Repeat("x", maxGitConfig)+"\n[core]\n\tpager = rm -rf ~\n") // padded past the cap
	repo("super", "[submodule \"m\"]\n\turl = ../m\n")
	write(t, filepath.Join(ws, "super", ".git", "modules", "m", "config"), "[core]\n\tfsmonitor = rm -rf ~\n")
	repo("many", strings.Repeat("[include]\n\tpath = x.inc\n", maxGitFiles))
	write(t, filepath.Join(ws, "many", ".git", "x.inc"), "[user]\n\tname = x\n")
	// each file under the cap, together past it (a file including itself 8 times took 30 s a command)
	repo("self", "[include]\n\tpath = 0\n\tpath = 1\n\tpath = 2\n\tpath = 3\n\tpath = 4\n\tpath = 5\n\tpath = 6\n\tpath = 7\n\tpath = 8\n")
	repo("hooks", "[core]\n\tbare = false\n")
	for i := range 9 {
		write(t, filepath.Join(ws, "self", ".git", fmt.Sprint(i)), strings.Repeat("#", maxGitConfig/8))
		write(t, filepath.Join(ws, "hooks", ".git", "hooks", fmt.Sprint("post-checkout", i)), "#!/bin/sh\n"+strings.Repeat("#", maxGitConfig/8))
	}
	tests := []struct {
		dir, cmd      string
		deny, unclear bool
	}{
		{"main", "git status", true, true}, // the include loop: git itself stops at depth 10
		{"wt/deep/er", "git status", true, true},
		{"rel", "git diff", true, true},
		{".", "git -C rel diff", true, true},
		{".", "git status", false, false},
		{"big", "git log", false, true},
		{"super", "git status", true, false}, // git status runs git in the submodule
		{"many", "git status", false, true},
		{"self", "git status", false, true},
		{"hooks", "git status", false, true},
	}
	for _, tc := range tests {
		req := shapeRequest(tc.cmd, filepath.Join(ws, filepath.FromSlash(tc.dir)))
		if _, denied := HardDeny(req); denied != tc.deny || Unclear(req) != tc.unclear {
			t.Errorf("%q in %s: denied=%v unclear=%v, want %v %v", tc.cmd, tc.dir, denied, Unclear(req), tc.deny, tc.unclear)
		}
	}
}

// git status runs git in each submodule of the index (an entry of mode
// 160000, .gitmodules or not), wherever its .git file points: that
// repository's config is read too, in index versions 2, 3 and 4.
func TestHardDeny_GitConfigOfIndexSubmodules(t *testing.T) {
	fakeHome(t)
	ws := t.TempDir()
	for _, v := range []byte{2, 3, 4} {
		top := filepath.Join(ws, fmt.Sprint("v", v))
		write(t, filepath.Join(top, ".git", "config"), "[core]\n\tbare = false\n")
		write(t, filepath.Join(top, ".git", "HEAD"), "ref: refs/heads/main\n")
		mkdirs(t, filepath.Join(top, ".git", "objects"), filepath.Join(top, ".git", "refs"))
		write(t, filepath.Join(top, "elsewhere", "config"), "[core]\n\tfsmonitor = rm -rf ~\n")
		write(t, filepath.Join(top, "lib", "sub", ".git"), "gitdir: ../../elsewhere\n")
		write(t, filepath.Join(top, ".git", "index"), string(gitIndex(v, "a.go", "lib/s", "lib/sub")))
		if _, denied := HardDeny(shapeRequest("git status", top)); !denied {
			t.Errorf("git status over a submodule in an index of version %d: not denied", v)
		}
	}
	// the work tree of a linked worktree (its gitdir file), of a submodule (its core.worktree)
	wt := filepath.Join(ws, "v2", ".git", "worktrees", "w")
	write(t, filepath.Join(wt, "HEAD"), "ref: refs/heads/w\n")
	write(t, filepath.Join(wt, "commondir"), "../..\n")
	write(t, filepath.Join(wt, "gitdir"), filepath.Join(ws, "w", ".git")+"\n")
	write(t, filepath.Join(wt, "index"), string(gitIndex(2, "lib/sub")))
	write(t, filepath.Join(ws, "w", ".git"), "gitdir: "+wt+"\n")
	write(t, filepath.Join(ws, "w", "lib", "sub", ".git"), "gitdir: ../../../v2/elsewhere\n")
	m := filepath.Join(ws, "v3", ".git", "modules", "m")
	write(t, filepath.Join(m, "config"), "[core]\n\tworktree = ../../../m\n")
	write(t, filepath.Join(m, "HEAD"), "ref: refs/heads/main\n")
	mkdirs(t, filepath.Join(m, "objects"), filepath.Join(m, "refs"))
	write(t, filepath.Join(m, "index"), string(gitIndex(2, "lib/sub")))
	write(t, filepath.Join(ws, "v3", "m", ".git"), "gitdir: ../.git/modules/m\n")
	write(t, filepath.Join(ws, "v3", "m", "lib", "sub", ".git"), "gitdir: ../../../elsewhere\n")
	write(t, filepath.Join(ws, "v3", ".git", "config"), "[core]\n\tbare = false\n[submodule \"m\"]\n\tactive = true\n")
	must(t, os.WriteFile(filepath.Join(ws, "v3", ".git", "index"), nil, 0o600))
	for _, dir := range []string{"w", "v3/m"} {
		if _, denied := HardDeny(shapeRequest("git status", filepath.Join(ws, dir))); !denied {
			t.Errorf("git status in %s over a submodule: not denied", dir)
		}
	}
	// 40 submodules, under .git/modules and in the index: each config is read once, within the bounds
	many := filepath.Join(ws, "many")
	write(t, filepath.Join(many, ".git", "config"), "[core]\n\tbare = false\n")
	write(t, filepath.Join(many, ".git", "HEAD"), "ref: refs/heads/main\n")
	mkdirs(t, filepath.Join(many, ".git", "objects"), filepath.Join(many, ".git", "refs"))
	var subs []string
	for i := range 40 {
		name := fmt.Sprint("sub", i)
		subs = append(subs, name)
		write(t, filepath.Join(many, ".git", "modules", name, "config"), "[core]\n\tbare = false\n")
		write(t, filepath.Join(many, name, ".git"), "gitdir: ../.git/modules/"+name+"\n")
	}
	write(t, filepath.Join(many, ".git", "index"), string(gitIndex(2, subs...)))
	if req := shapeRequest("git status", many); Unclear(req) {
		t.Errorf("git status over 40 submodules: unclear")
	}
}

// gitIndex is an index of version v; a path holding "sub" is a submodule.
func gitIndex(v byte, paths ...string) []byte {
	b := []byte{'D', 'I', 'R', 'C', 0, 0, 0, v, 0, 0, 0, byte(len(paths))}
	prev := ""
	for _, p := range paths {
		entry := make([]byte, 62)
		entry[26], entry[27] = 0x81, 0xa4 // 100644
		if strings.Contains(p, "sub") {
			entry[26], entry[27] = 0xe0, 0 // 160000
		}
		entry[61] = byte(len(p))
		if v == 4 { // the bytes to drop of the previous path (one varint byte), then the rest
			common := 0
			for common < min(len(p), len(prev)) && p[common] == prev[common] {
				common++
			}
			b = append(append(append(b, entry...), byte(len(prev)-common)), p[common:]...)
			b, prev = append(b, 0), p
			continue
		}
		b = append(append(b, entry...), p...)
		b = append(b, make([]byte, 8-(62+len(p))%8)...)
	}
	return b
}

// The user's own config is theirs: its aliases are expanded (what runs
// is read), its programs (a pager) are not asked about.
func TestService_UserGitConfigAliasesOnly(t *testing.T) {
	home := fakeHome(t)
	write(t, filepath.Join(home, ".gitconfig"), "[alias]\n\twipe = !rm -rf ~\n\tfp = push -f origin main\n[core]\n\tpager = delta\n")
	write(t, filepath.Join(home, ".config", "git", "config"), "[alias]\n\tnuke = !rm -rf /\n")
	ws := t.TempDir()
	for _, cmd := range []string{"git wipe", "git fp", "git nuke", "git -C sub wipe"} {
		if _, denied := HardDeny(shapeRequest(cmd, ws)); !denied {
			t.Errorf("%q with the user's alias: not denied", cmd)
		}
	}
	s := mustNew(t)
	log := shapeRequest("git log", ws)
	s.Remember(log, adapters.AllowAlways)
	if v := s.Check(log); v.Decision != Allow {
		t.Errorf("git log under the user's own pager: %+v, want the always to cover it", v)
	}
}

// An always for a git command, given in that repository, does not cover
// it in a repository whose config has git run a program of its own (one
// the deny list does not know); a plain clone's config (lfs, husky) does
// not keep it from covering.
func TestService_AlwaysForGitNotInAnUntrustedRepository(t *testing.T) {
	fakeHome(t)
	ws := t.TempDir()
	for repo, config := range map[string]string{"clean": "[core]\n\tbare = false\n", "tarball": "[core]\n\tfsmonitor = ./collect.sh\n",
		"aliased": "[alias]\n\tst = push --force origin feature\n", "cloned": clonedConfig} {
		write(t, filepath.Join(ws, repo, ".git", "config"), config)
		write(t, filepath.Join(ws, repo, ".git", "HEAD"), "ref: refs/heads/main\n")
		mkdirs(t, filepath.Join(ws, repo, ".git", "objects"), filepath.Join(ws, repo, ".git", "refs"))
	}
	s := mustNew(t)
	cases := []struct {
		repo, cmd string
		allow     bool
	}{{"clean", "git status", true}, {"tarball", "git status", false}, {"clean", "git st", true}, {"aliased", "git st", false}, {"cloned", "git status", true}, {"cloned", "git pull", true}}
	for _, tc := range cases {
		s.Remember(shapeRequest(tc.cmd, filepath.Join(ws, tc.repo)), adapters.AllowAlways)
	}
	for _, tc := range cases {
		if v := s.Check(shapeRequest(tc.cmd, filepath.Join(ws, tc.repo))); (v.Decision == Allow) != tc.allow {
			t.Errorf("%q in %s after an always there: %+v, want allowed=%v", tc.cmd, tc.repo, v, tc.allow)
		}
	}
}

// An always for a git command covers it in that repository only (a
// subdirectory, a linked worktree of it, the same GIT_DIR), and only while
// its hooks are those it had: not in another repository, nor after a hook
// changed, was added or made executable. Non-git commands are unchanged.
func TestService_AlwaysForGitCoversItsRepositoryOnly(t *testing.T) {
	fakeHome(t)
	ws := t.TempDir()
	hookedRepo(t, filepath.Join(ws, "a"), "#!/bin/sh\nmake lint\n")
	hookedRepo(t, filepath.Join(ws, "b"), "#!/bin/sh\n./.payload\n")
	write(t, filepath.Join(ws, "home", ".gitconfig"), "[alias]\n\tci = commit\n")
	t.Setenv("HOME", filepath.Join(ws, "home"))
	write(t, filepath.Join(ws, "wt", ".git"), "gitdir: ../a/.git/worktrees/wt\n")
	write(t, filepath.Join(ws, "a", ".git", "worktrees", "wt", "commondir"), "../..\n")
	write(t, filepath.Join(ws, "a", ".git", "worktrees", "wt", "HEAD"), "ref: refs/heads/feat\n")
	req := func(cmd, dir string) Request {
		r := shapeRequest(cmd, ws)
		r.Dirs = []string{filepath.Join(ws, dir)}
		return r
	}
	shown := []string{"git commit -m wip", "GIT_DIR=../b/.git git status", "go test ./...", "git -c core.hooksPath=../b/.git/hooks commit -m x", "git ci -m wip"}
	s := mustNew(t)
	for _, cmd := range shown {
		s.Remember(req(cmd, "a"), adapters.AllowAlways)
	}
	check := func(when, cmd, dir string, allow bool) {
		t.Helper()
		if v := s.Check(req(cmd, dir)); (v.Decision == Allow) != allow {
			t.Errorf("%s: %q in %s: %+v, want allowed=%v", when, cmd, dir, v, allow)
		}
	}
	for _, tc := range []struct {
		cmd, dir string
		allow    bool
	}{{"git commit -m wip", "a", true}, {"git commit -m other", "a/sub", true}, {"git commit -m wip", "wt", true}, {"git commit -m wip", "b", false},
		{"git commit -m wip", "b/sub", false}, {"git commit -m wip", ".", false}, {"GIT_DIR=../b/.git git status", "a", true},
		{"go test ./...", "b", true}, {"git -c core.hooksPath=../b/.git/hooks commit -m x", "a", true}, {"git ci -m wip", "a/sub", true}, {"git ci -m wip", "b", false}} {
		check("before", tc.cmd, tc.dir, tc.allow)
	}
	write(t, filepath.Join(ws, "b", ".git", "hooks", "pre-commit"), "#!/bin/sh\n./.payload --again\n")
	check("b's hook changed", "GIT_DIR=../b/.git git status", "a", false)
	check("b's hook changed", "git -c core.hooksPath=../b/.git/hooks commit -m x", "a", false)
	write(t, filepath.Join(ws, "a", ".git", "hooks", "post-commit"), "#!/bin/sh\n./.payload\n")
	check("a hook added", "git commit -m wip", "a", false)
	check("a hook added", "git commit -m wip", "wt", false)
	s.Remember(req("git commit -m wip", "a"), adapters.AllowAlways)
	check("asked again", "git commit -m wip", "a", true)
	hookedRepo(t, filepath.Join(ws, "h"), "")
	write(t, filepath.Join(ws, "h", ".git", "config"), "[core]\n\thooksPath = .husky/_\n")
	write(t, filepath.Join(ws, "h", ".husky", "_", "pre-commit"), "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n")
	write(t, filepath.Join(ws, "h", ".husky", "pre-commit"), "npm test\n")
	s.Remember(req("git commit -m wip", "h"), adapters.AllowAlways)
	check("husky", "git commit -m wip", "h", true)
	write(t, filepath.Join(ws, "h", ".husky", "pre-commit"), "./.payload\n")
	check("husky's hook changed", "git commit -m wip", "h", false)
	if err := os.Chmod(filepath.Join(ws, "a", ".git", "hooks", "post-commit"), 0o755); err == nil && runtime.GOOS != "windows" {
		check("a hook made executable", "git commit -m wip", "a", false)
	}
}

// hookedRepo makes a repository at dir (a subdirectory sub too) whose
// pre-commit hook is hook.
func hookedRepo(t *testing.T, dir, hook string) {
	t.Helper()
	write(t, filepath.Join(dir, ".git", "config"), "[core]\n\tbare = false\n")
	write(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(dir, ".git", "hooks", "pre-commit"), hook)
	mkdirs(t, filepath.Join(dir, ".git", "objects"), filepath.Join(dir, ".git", "refs"), filepath.Join(dir, "sub"))
}

// clonedConfig is a plain clone's, after git lfs install --local
// (--skip-smudge) and husky's install.
const clonedConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n" +
	"[remote \"origin\"]\n\turl = https://github.com/x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
	"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[lfs]\n\trepositoryformatversion = 0\n" +
	"[lfs \"https://github.com/x/y.git/info/lfs\"]\n\taccess = basic\n" +
	"[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n" +
	"[filter \"lfs\"]\n\tsmudge = git-lfs smudge --skip -- %f\n\tprocess = git-lfs filter-process --skip\n" +
	"[core]\n\thooksPath = .husky/_\n[submodule \"x\"]\n\turl = https://x.invalid/x\n\tactive = true\n"

func write(t *testing.T, p, content string) {
	t.Helper()
	mkdirs(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
