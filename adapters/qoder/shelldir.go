package qoder

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/internal/permission"
)

// shellDir follows qodercli's Bash tool, whose shell keeps its directory between
// calls (no setting turns that off) and runs the commands it deems read-only, cd
// among them, without asking: so hub follows every Bash call it sees. After a
// call that may change directory the shell is in any of the directories it may
// have been in: the call can fail before or after a cd, and qodercli goes back to
// the session directory from one outside its workspace or that is gone.
type shellDir struct {
	mu    sync.Mutex
	home  string
	roots []string        // the workspace: home and the added directories
	dirs  []string        // where the next Bash call runs; nil once hub lost track
	lost  string          // the call it lost track at
	at    map[string]*run // by call id: where each call runs
}

// maxDirs bounds the directories a command is read in.
const maxDirs = 8

type run struct {
	dirs []string
	lost string
}

func followShell(cwd string, addDirs []string) acpclient.ShellFollower {
	return &shellDir{home: cwd, roots: append([]string{cwd}, addDirs...), dirs: []string{filepath.ToSlash(filepath.Clean(cwd))}, at: map[string]*run{}}
}

// bashInput is the input of qodercli's Bash tool: dir_path runs a command
// elsewhere and in the background it leaves the shell's directory as it was.
type bashInput struct {
	Command    string `json:"command"`
	DirPath    string `json:"dir_path"`
	Background bool   `json:"run_in_background"`
}

func (s *shellDir) Saw(tool adapters.ToolCall) {
	var in bashInput
	if tool.Name != "Bash" || adapters.Unmarshal(tool.RawInput, &in) != nil || strings.TrimSpace(in.Command) == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at[tool.ID] != nil {
		return
	}
	s.at[tool.ID] = &run{dirs: s.dirs, lost: s.lost}
	if in.DirPath != "" || in.Background || s.dirs == nil {
		return
	}
	if s.dirs = permission.DirsAfter(in.Command, s.dirs); s.dirs != nil {
		s.dirs = s.after(s.dirs)
	}
	if s.dirs == nil || len(s.dirs) > maxDirs {
		s.dirs, s.lost = nil, in.Command
	}
}

// after is dirs as qodercli leaves them: it keeps pwd -P (a link's target), and
// goes back home from a directory outside its workspace, or one that is gone by
// the next call.
func (s *shellDir) after(dirs []string) []string {
	home := filepath.ToSlash(filepath.Clean(s.home))
	var out []string
	for _, d := range dirs {
		switch real, in, known := s.inWorkspace(filepath.FromSlash(d)); {
		case !in && known:
			d = home
		case !known && !slices.Contains(out, home):
			out = append(out, home)
		case known && real != s.realHome():
			d = filepath.ToSlash(real)
		case known:
			d = home
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// inWorkspace reports a directory (real: through its links) in a root; known is
// false for one that does not exist (yet).
func (s *shellDir) inWorkspace(d string) (real string, in, known bool) {
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return "", false, false
	}
	var roots []string
	for _, r := range s.roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			roots = append(roots, rr)
		}
	}
	return real, within(real, roots), true
}

func (s *shellDir) realHome() string {
	if r, err := filepath.EvalSymlinks(s.home); err == nil {
		return r
	}
	return s.home
}

func within(d string, roots []string) bool {
	return slices.ContainsFunc(roots, func(r string) bool {
		rel, err := filepath.Rel(r, d)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
	})
}

// Where is where a call runs: nil while that is the session directory, or with
// dir_path (hub reads it from the input).
func (s *shellDir) Where(tool adapters.ToolCall) ([]string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.at[tool.ID]
	switch {
	case r == nil:
		return nil, ""
	case r.dirs == nil:
		return nil, "qodercli's shell keeps its directory between commands, and hub cannot tell where `" +
			adapters.OneLine(r.lost) + "` left it: every command is asked"
	case len(r.dirs) == 1 && r.dirs[0] == filepath.ToSlash(filepath.Clean(s.home)):
		return nil, ""
	}
	return r.dirs, ""
}
