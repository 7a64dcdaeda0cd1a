package permission

import (
	"path"
	"slices"
	"strings"
)

// A file that names programs (package.json, a Go file's //go:generate
// lines, git's config and hooks, rg's config) is read from disk when the
// line is read; another command of the line may write it first
// (printf … > package.json && npm test), so hub would judge the old one.
// Such a line is unclear, whatever the order of its commands (a loop, a
// trap, a pipeline run them in another).

// progFile is a file read for the programs it names or one the line
// writes; with tree, the files under path whose base name tree takes
// (for a write: a directory filled with files hub cannot name).
type progFile struct {
	path string
	tree func(name string) bool
	git  bool // read by git, or written by git (clone, worktree): git writes no repository's config or hook there
	at   int  // a read: the calls emitted before it; git config's write: its own call's index, whose reads it does not change
	conf bool
}

func anyName(string) bool { return true }

// readsProg notes files read for the programs they name.
func (r *reader) readsProg(tree func(string) bool, git bool, paths ...string) {
	for _, p := range paths {
		r.progRead = append(r.progRead, progFile{path: p, tree: tree, git: git, at: len(r.out.calls)})
	}
}

// noteWrites notes what call k writes (its writtenFiles): each file, a
// directory filled, a target hub cannot know.
func (k *check) noteWrites(written []arg) {
	for _, w := range written {
		ps, ok := k.paths(w)
		if !ok {
			ps = append(ps, unknownTarget)
		}
		for _, p := range ps {
			f := progFile{path: p, git: k.c.prog() == "git"}
			if w.under || p == unknownTarget {
				f.tree = anyName
			}
			k.r.progWrote = append(k.r.progWrote, f)
		}
	}
	if k.c.prog() == "git" && gitConfigWrite(k.args()) { // git config core.hooksPath x && git commit: a config hub read before
		at := len(k.r.out.calls) - 1
		for _, d := range k.c.cwds {
			k.r.progWrote = append(k.r.progWrote, progFile{path: path.Join(gitWorkRoot(d), ".git"), tree: anyName, at: at, conf: true},
				progFile{path: path.Join(k.r.home, ".gitconfig"), at: at, conf: true}, progFile{path: path.Join(k.r.home, ".config/git"), tree: anyName, at: at, conf: true})
		}
		if hasLong(k.args(), "--system", "--file", "-f") {
			k.r.progWrote = append(k.r.progWrote, progFile{path: unknownTarget, at: at, conf: true})
		}
	}
	if k.c.prog() == "git" && gitTreeWrite(k.args()) {
		for _, d := range k.c.cwds {
			k.r.progWrote = append(k.r.progWrote, progFile{path: gitWorkRoot(d), tree: anyName, git: true})
		}
	}
}

// gitConfigWrite reports a git config that sets or removes a value.
func gitConfigWrite(args []arg) bool {
	w := texts(args)
	if len(w) == 0 || w[0] != "config" {
		return false
	}
	for _, s := range w[1:] {
		switch s {
		case "set", "unset", "rename-section", "remove-section", "edit", "--add", "--unset", "--unset-all", "--replace-all",
			"--rename-section", "--remove-section", "--edit", "-e":
			return true
		case "get", "list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color", "--get-colorbool", "--show-origin":
			return false
		}
	}
	ops := texts(operands(skipValues(args[1:], "-f", "--file", "--blob", "--type", "--default", "--comment")))
	return len(ops) > 1 && !slices.Contains([]string{"user.name", "user.email", "init.defaultbranch", "pull.rebase", "push.autosetupremote"}, strings.ToLower(ops[0]))
}

// gitTreeWrite reports a git command that writes work tree files of
// another commit, a stash or a diff (git checkout x && npm test).
func gitTreeWrite(args []arg) bool {
	w := append(texts(args), "", "")
	switch w[0] {
	case "checkout", "switch":
		newBranch := slices.ContainsFunc(w, func(s string) bool { return slices.Contains([]string{"-b", "-B", "-c", "-C"}, s) })
		return !newBranch || len(operands(args[1:])) > 1 // git checkout -b x: the same files
	case "restore", "pull", "merge", "rebase", "cherry-pick", "revert", "am", "bisect":
		return true
	case "stash":
		return !slices.Contains([]string{"list", "show", "create", "store"}, w[1])
	case "reset":
		return slices.ContainsFunc(w, func(s string) bool { return s == "--hard" || s == "--merge" || s == "--keep" })
	case "apply":
		return !slices.ContainsFunc(w, func(s string) bool {
			return slices.Contains([]string{"--check", "--stat", "--numstat", "--summary", "--cached"}, s)
		})
	}
	return false
}

// rewritesProg reports a file read for its programs that the line writes.
func (r *reader) rewritesProg() bool {
	if len(r.progRead) == 0 || len(r.progWrote) == 0 {
		return false
	}
	forms := map[string][]string{} // p and p with the links on disk resolved
	for _, f := range slices.Concat(r.progRead, r.progWrote) {
		forms[f.path] = []string{f.path, toSlash(resolveLinks(fromShellPath(f.path)))}
	}
	return slices.ContainsFunc(r.progRead, func(rd progFile) bool {
		return slices.ContainsFunc(r.progWrote, func(w progFile) bool {
			return !(rd.git && w.git) && !(w.conf && rd.at <= w.at) && overlaps(rd, w, forms)
		})
	})
}

func overlaps(rd, w progFile, forms map[string][]string) bool {
	if w.path == unknownTarget {
		return true
	}
	for _, rp := range forms[rd.path] {
		for _, wp := range forms[w.path] {
			filled := w.tree != nil && within(rp, wp)
			same := within(wp, rp) && len(winNames(wp)) == len(winNames(rp))
			inTree := rd.tree != nil && within(wp, rp) && (w.tree != nil || rd.tree(path.Base(wp)))
			if filled || same || inTree {
				return true
			}
		}
	}
	return false
}

// within reports whether p is dir or under it, names compared as Windows
// and macOS do (letter case, 8.3 names) and a glob's part as a pattern.
func within(p, dir string) bool {
	pp, dp := winNames(path.Clean(p)), winNames(path.Clean(dir))
	return len(pp) >= len(dp) && slices.EqualFunc(pp[:len(dp)], dp, func(p, d string) bool {
		m1, _ := path.Match(d, p)
		m2, _ := path.Match(p, d)
		return m1 || m2 || names(p, d) || names(d, p)
	})
}

// awkInPlace are the files gawk -i inplace rewrites: its operands but the
// program (unless -f or -e gives it).
func awkInPlace(args []arg) []arg {
	w := append(texts(args), "")
	in := slices.Contains(w, "-iinplace") || slices.Contains(w, "--include=inplace")
	for i := range len(w) - 1 {
		in = in || (w[i] == "-i" || w[i] == "--include") && w[i+1] == "inplace"
	}
	if !in {
		return nil
	}
	ops := operands(skipValues(args, "-i", "--include", "-v", "--assign", "-F", "--field-separator", "-f", "--file", "-e", "--source", "-l", "--load"))
	if !slices.ContainsFunc(args, func(a arg) bool { return slices.Contains([]string{"-f", "--file", "-e", "--source"}, a.text) }) && len(ops) > 0 {
		ops = ops[1:]
	}
	return ops
}
