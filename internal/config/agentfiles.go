package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// An agent CLI reads files of its own from the repository (claude's
// .claude/settings.json, pi's .pi/extensions) that run code or grant
// tools as soon as it starts. hub starts the agent without the ones the
// user has not trusted ('hub trust'), by the one rule below.

// FilesUnder are the files under dir whose name ends in ext ("" for every
// file), with any link or unreadable entry in it: hub never trusts those,
// as the agent reads through a link what hub did not record.
func FilesUnder(dir, ext string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil && !errors.Is(err, fs.ErrNotExist) || err == nil && !d.IsDir() && (!d.Type().IsRegular() || strings.HasSuffix(p, ext)) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// Trustable are those of files 'hub trust' can record: regular files
// there, of at most MaxProjectFile bytes; a SKILL.md with its folder's
// files, each one such.
func Trustable(files []string) []string {
	return slices.DeleteFunc(slices.Clone(files), func(p string) bool { return untrustable(p) != nil })
}

// untrustable says why 'hub trust' cannot record the file at path; nil
// when it can.
func untrustable(path string) error {
	folder, err := skillFolder(path)
	for _, f := range append(folder, path) {
		if _, e := ReadProjectFile(f); err == nil {
			err = e
		}
	}
	return err
}

// UntrustedFile reports whether the project file at path is there and not
// trusted as it is now; one hub cannot read (a link to a folder, a FIFO,
// too large) is never trusted.
func UntrustedFile(path string) bool {
	data, err := ReadProjectFile(path)
	return !errors.Is(err, fs.ErrNotExist) && (err != nil || !IsTrusted(path, data))
}

// LeftOut is the notice of agent started in cwd without the untrusted
// files (and so without what also says); risk says what they may do. It
// names at most three files, so a repository of many commands still gets
// one line, and tells what the user can do about each kind.
func LeftOut(agent string, files []string, also, risk, cwd string) string {
	named := files
	if n := len(files); n > 3 {
		named = append(slices.Clone(files[:2]), fmt.Sprintf("%d more", n-2))
	}
	fix := fmt.Sprintf("run 'hub trust' in %s, or pass --trust-project", cwd)
	if never := slices.DeleteFunc(slices.Clone(files), func(p string) bool { return untrustable(p) == nil }); len(never) > 0 {
		fix = fmt.Sprintf("%s cannot be trusted (%v): 'hub trust' records only regular files of at most %d bytes, never a link to a folder, and skill folders of at most %d files; make it one, or pass --trust-project",
			never[0], untrustable(never[0]), MaxProjectFile, maxSkillFiles)
		if len(never) < len(files) {
			fix = fmt.Sprintf("run 'hub trust' in %s; %s", cwd, fix)
		}
	}
	for _, f := range files { // a skill's script, which the agent does not list
		if err := SkillChange(f); err != nil && untrustable(f) == nil {
			fix = fmt.Sprintf("%s; %v", fix, err)
			break
		}
	}
	return fmt.Sprintf("%s runs without %s%s: hub has not trusted them, and they may %s (%s)", agent, strings.Join(named, " and "), also, risk, fix)
}
