package acp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// Crash recovery: a crash costs one turn. The next prompt starts the agent
// again, resuming its own session where it can; an agent that comes back
// without the conversation (it cannot resume, its resume failed, or the
// session switched to it) gets a briefing of hub's record with the next
// prompt. Three crashes within a minute stop the restarts.

const (
	crashLimit  = 3
	crashWindow = time.Minute
)

// errCrashLoop is the prompt's error while the agent keeps crashing.
var errCrashLoop = errors.New("the agent crashed 3 times within a minute; hub stopped restarting it")

// noteCrash records a crash of the session's agent.
func (ss *session) noteCrash() {
	now := ss.srv.opts.Now()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.crashes = append(ss.crashes, now)
	if len(ss.crashes) > crashLimit {
		ss.crashes = ss.crashes[len(ss.crashes)-crashLimit:]
	}
}

// crashLooping reports whether the last crashes came too fast to restart.
func (ss *session) crashLooping() error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.crashes) < crashLimit || ss.srv.opts.Now().Sub(ss.crashes[0]) > crashWindow {
		return nil
	}
	return fmt.Errorf("%s: %w; see its stderr in hub's log, fix the cause, then prompt again after a minute", ss.rec.Agent, errCrashLoop)
}

// startFresh says whether a start that failed to resume should start the
// agent afresh: not when the agent cannot run at all.
func startFresh(err error) bool {
	return !errors.Is(err, adapters.ErrNotInstalled) && !errors.Is(err, adapters.ErrNotAuthenticated) &&
		!errors.Is(err, adapters.ErrBadCwd) && !errors.Is(err, context.Canceled)
}

// startWithResume starts a, resuming the agent's session when opts say so;
// a resume that fails starts the agent afresh (losing its context, which
// the briefing restores).
func (ss *session) startWithResume(ctx context.Context, a adapters.Adapter, opts adapters.SessionOptions) (adapters.Session, bool, error) {
	b, err := a.Start(ctx, opts)
	if err == nil || opts.ResumeID == "" || !startFresh(err) {
		return b, opts.ResumeID == "", err
	}
	ss.srv.log.Warn().Err(err).Str("session", ss.id()).Str("agent", a.Name()).Msg("resume failed; starting the agent afresh")
	opts.ResumeID = ""
	b, err = a.Start(ctx, opts)
	return b, true, err
}

// answeredBefore reports whether an earlier turn got an answer the agent
// has not seen: only then does an agent starting without the conversation
// (or coming back to it) miss something. Caller holds ss.mu.
func (ss *session) answeredBefore() bool {
	hist := ss.rec.History
	if seen := ss.since - ss.dropped; seen > 0 {
		hist = hist[min(seen, len(hist)):]
	}
	for _, u := range hist {
		if u.AgentMessageChunk != nil || u.ToolCall != nil {
			return true
		}
	}
	return false
}

// withBriefing puts the briefing in front of the prompt when the agent
// started without the conversation, once, and tells the user.
func (ss *session) withBriefing(content []adapters.Content) []adapters.Content {
	ss.mu.Lock()
	brief, briefed := ss.pendingBrief, ss.briefed
	ss.pendingBrief, ss.briefed = "", false
	ss.mu.Unlock()
	if brief == "" && !briefed {
		return content
	}
	ss.emit(schema.SessionUpdate{AgentThoughtChunk: &schema.ContentChunk{Content: schema.TextBlock(
		"hub gave the agent its record of the conversation it missed.\n")}})
	if brief == "" {
		return content
	}
	return append([]adapters.Content{{Type: adapters.ContentText, Text: brief}}, content...)
}

// handover says agents taking the session over are briefed (not "none").
func (ss *session) handover() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.rec.Handover != handoverNone
}

// missed is answeredBefore, taking ss.mu itself.
func (ss *session) missed() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.answeredBefore()
}
