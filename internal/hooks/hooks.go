// Package hooks runs the user's command hooks ([[hooks.EVENT]] in hub's
// config) on session events: SessionStart, UserPromptSubmit, PreToolUse,
// PostToolUse and Stop. Each hook is a shell command, supervised by
// internal/proc (reaped, and killed as a group on timeout), that reads one
// JSON object (Input) on stdin. Exit 0 passes (stdout may carry its JSON
// Outcome), exit 2 blocks with stderr as the reason, anything else is a
// failure the user is warned of; a failed PreToolUse hook denies the call.
//
// The native loop gates on Run's Outcome; for the CLI agents, whose tools
// hub cannot stop, an Observer runs the hooks on the Event stream.
package hooks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hubdev/hub/internal/config"
)

// Event names a hook event.
type Event string

// The hook events, as configured ([[hooks.PreToolUse]]).
const (
	SessionStart     Event = "SessionStart"
	UserPromptSubmit Event = "UserPromptSubmit"
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	Stop             Event = "Stop"
)

// DefaultTimeout bounds a hook whose config sets no timeout.
const DefaultTimeout = 30 * time.Second

// maxOutput bounds the tool output a PostToolUse hook reads.
const maxOutput = 256 << 10

// Decision is what a hook says about the call or prompt it saw.
type Decision string

// The decisions: Allow skips asking the user (never a deny rule or the
// hard deny list), Deny blocks, Ask and none leave the decision to the
// permission service.
const (
	None  Decision = ""
	Allow Decision = "allow"
	Deny  Decision = "deny"
	Ask   Decision = "ask"
)

// Input is the JSON object a hook reads on stdin. Exactly the fields of
// its event are set.
type Input struct {
	Event   Event  `json:"event"`
	Session string `json:"session,omitempty"`
	Cwd     string `json:"cwd"`
	Agent   string `json:"agent,omitempty"`
	// Tool, Kind and ToolCallID name the call (PreToolUse, PostToolUse);
	// Input is its arguments as the agent gave them.
	Tool       string          `json:"tool,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	// Output and Status are the call's result (PostToolUse): "completed"
	// or "failed".
	Output string `json:"output,omitempty"`
	Status string `json:"status,omitempty"`
	// Prompt is the user's text (UserPromptSubmit).
	Prompt string `json:"prompt,omitempty"`
	// StopReason is why the turn ended (Stop).
	StopReason string `json:"stopReason,omitempty"`
}

// Outcome is what the hooks of one event said together; one hook's
// answer, which it may print as JSON on stdout when it exits 0, is its
// Decision and Reason.
type Outcome struct {
	// Decision is Deny when a hook blocked (or, for PreToolUse, failed),
	// else Allow when one allowed, else None.
	Decision Decision `json:"decision"`
	// Reason is the blocking hook's reason, for the model and the user.
	Reason string `json:"reason"`
	// Warnings say which hooks failed or timed out, one line each.
	Warnings []string `json:"-"`
}

// Hook is one configured hook.
type Hook struct {
	Event   Event
	Command string
	Timeout time.Duration
	// Name says where it is configured, "hooks.PreToolUse[0]".
	Name    string
	matcher *regexp.Regexp
}

// Runner runs the configured hooks. A nil *Runner has none: every method
// is then free.
type Runner struct {
	hooks map[Event][]Hook
	// stopGrace is the wait between the stop signal and the kill of a
	// hook that timed out.
	stopGrace time.Duration
}

// New builds a runner from the config's hooks; nil when there are none,
// so callers pay nothing.
func New(cfg map[string][]config.HookConfig) (*Runner, error) {
	r := &Runner{hooks: map[Event][]Hook{}, stopGrace: time.Second}
	for ev, hs := range cfg {
		for i, h := range hs {
			hook := Hook{Event: Event(ev), Command: h.Command, Timeout: cmp.Or(h.Timeout.Duration, DefaultTimeout),
				Name: fmt.Sprintf("hooks.%s[%d]", ev, i)}
			if h.Matcher != "" && (hook.Event == PreToolUse || hook.Event == PostToolUse) {
				re, err := regexp.Compile("(?i)" + h.Matcher)
				if err != nil {
					return nil, fmt.Errorf("%s.matcher %q: %w", hook.Name, h.Matcher, err)
				}
				hook.matcher = re
			}
			r.hooks[hook.Event] = append(r.hooks[hook.Event], hook)
		}
	}
	if len(r.hooks) == 0 {
		return nil, nil
	}
	return r, nil
}

// Has says whether any hook is configured for ev.
func (r *Runner) Has(ev Event) bool { return r != nil && len(r.hooks[ev]) > 0 }

// Only is r with ev's hooks alone (nil: none), for an agent that runs the
// others itself.
func (r *Runner) Only(ev Event) *Runner {
	if !r.Has(ev) {
		return nil
	}
	return &Runner{hooks: map[Event][]Hook{ev: r.hooks[ev]}, stopGrace: r.stopGrace}
}

// matches says whether h runs for in: a tool hook's matcher must find the
// tool's name or kind.
func (h Hook) matches(in Input) bool {
	return h.matcher == nil || h.matcher.MatchString(in.Tool) || (in.Kind != "" && h.matcher.MatchString(in.Kind))
}

// Run runs the hooks of in.Event that match, in config order, and stops
// at the first that blocks. Only PreToolUse fails closed: a hook that
// fails or times out there denies the call.
func (r *Runner) Run(ctx context.Context, in Input) Outcome {
	var out Outcome
	if r == nil {
		return out
	}
	in.Output = in.Output[:min(len(in.Output), maxOutput)]
	data, err := json.Marshal(in)
	if err != nil {
		return Outcome{Decision: Deny, Reason: fmt.Sprintf("hook input not encoded: %v", err)}
	}
	for _, h := range r.hooks[in.Event] {
		if !h.matches(in) {
			continue
		}
		a, err := r.exec(ctx, h, data, in.Cwd)
		if err != nil {
			failure := h.Name + " (" + h.Command + ") " + err.Error()
			out.Warnings = append(out.Warnings, failure)
			if in.Event == PreToolUse {
				return Outcome{Decision: Deny, Reason: failure, Warnings: out.Warnings}
			}
			continue
		}
		switch a.Decision {
		case Deny:
			out.Decision, out.Reason = Deny, a.Reason
			return out
		case Allow:
			out.Decision, out.Reason = Allow, a.Reason
		}
	}
	return out
}

// decode reads a hook's exit: 0 with an optional JSON answer, 2 blocking
// with stderr as the reason; the error says how it failed.
func decode(h Hook, code int, stdout, stderr string) (Outcome, error) {
	switch code {
	case 0:
		return decodeAnswer(h, stdout)
	case 2:
		return Outcome{Decision: Deny, Reason: cmp.Or(strings.TrimSpace(stderr), "blocked by "+h.Name+" ("+h.Command+")")}, nil
	}
	msg := fmt.Sprintf("failed with exit code %d", code)
	if tail := strings.TrimSpace(stderr); tail != "" {
		msg += ": " + tail // one line: StderrTail joins its lines with " | "
	}
	return Outcome{}, errors.New(msg)
}

// decodeAnswer reads the JSON answer of a hook that exited 0; output that
// is not a JSON object is the hook's own business and allows nothing.
func decodeAnswer(h Hook, stdout string) (a Outcome, err error) {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return a, nil
	}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return Outcome{}, fmt.Errorf("printed invalid JSON: %w", err)
	}
	a.Decision = Decision(strings.ToLower(strings.TrimSpace(string(a.Decision))))
	switch a.Decision {
	case None, Allow, Deny, Ask:
	case "block":
		a.Decision = Deny
	default:
		return Outcome{}, fmt.Errorf("answered decision %q: use allow, deny or ask", a.Decision)
	}
	if a.Decision == Deny && a.Reason == "" {
		a.Reason = "denied by " + h.Name + " (" + h.Command + ")"
	}
	return a, nil
}
