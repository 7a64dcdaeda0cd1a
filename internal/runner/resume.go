package runner

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hubdev/hub/internal/safefile"
	"github.com/hubdev/hub/internal/transcript"
)

// ResumeLast is the --resume value that names the latest run of the agent
// in the directory, like --continue.
const ResumeLast = "last"

// ContinuePrompt is the prompt of a resumed run given none.
const ContinuePrompt = "continue"

// resolveResume turns --continue (or --resume last) into the session id of
// the agent's latest run in the working directory, from the transcripts.
func (o *Options) resolveResume() error {
	if o.ResumeID == ResumeLast {
		o.ResumeID, o.Continue = "", true
	}
	if !o.Continue {
		return nil
	}
	if o.ResumeID != "" {
		return fmt.Errorf("%w: --continue and --resume %s name two sessions; pass one", ErrUsage, o.ResumeID)
	}
	cwd := canonicalDir(o.Cwd)
	id := latestRun(o.TranscriptDir, o.Agent, cwd)
	if id == "" {
		return fmt.Errorf("%w: no earlier run of %s in %s to continue", ErrUsage, o.Agent, cwd)
	}
	o.ResumeID = id
	return nil
}

// canonicalDir is dir ("" = the working directory) absolute and with its
// symbolic links resolved, as transcripts record it.
func canonicalDir(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// latestRun is the session id of agent's newest transcript made in cwd.
func latestRun(dir, agent, cwd string) string {
	if dir == "" {
		return ""
	}
	runs, _ := transcript.List(dir) // newest first
	for _, s := range runs {
		if s.Agent == agent && s.Cwd == cwd {
			return s.ID
		}
	}
	return ""
}

// holdSession takes the lock of the session a run resumes, so a second run
// resuming it at the same time fails instead of interleaving its turns
// with the first's. A fork leaves the session as it was: no lock.
func (o *Options) holdSession() (release func(), err error) {
	if o.ResumeID == "" || o.Fork || o.TranscriptDir == "" {
		return func() {}, nil
	}
	name := o.ResumeID
	if _, err := transcript.Path(o.TranscriptDir, name); err != nil { // any id an agent prints may be resumed
		name = fmt.Sprintf("%x", sha256.Sum256([]byte(name)))
	}
	release, err = safefile.Hold(filepath.Join(o.TranscriptDir, "locks", name+".lock"))
	if errors.Is(err, safefile.ErrLocked) {
		return nil, fmt.Errorf("%w: session %s is in use by another hub run; wait for it to end (%v)", ErrUsage, o.ResumeID, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: lock session %s: %v", ErrUsage, o.ResumeID, err)
	}
	return release, nil
}
