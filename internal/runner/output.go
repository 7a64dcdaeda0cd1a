package runner

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/mask"
)

// EnvelopeVersion is the "v" of every jsonl line.
const EnvelopeVersion = 1

// envelope is one jsonl line; every line starts {"v":1,"type":… and ends
// with when hub wrote it (RFC 3339, milliseconds, UTC). A permission line
// adds the decision hub took, why, and by what (adapters.Decision.By).
type envelope struct {
	V         int    `json:"v"`
	Candidate string `json:"candidate,omitempty"`
	adapters.Event
	Decision *adapters.PermissionDecision `json:"decision,omitempty"`
	Reason   string                       `json:"reason,omitempty"`
	By       string                       `json:"by,omitempty"`
	TS       string                       `json:"ts"`
}

// head starts hub's own jsonl lines.
type head struct {
	V         int    `json:"v"`
	Type      string `json:"type"`
	TS        string `json:"ts"`
	Candidate string `json:"candidate,omitempty"`
}

// hubLine is a turn's start or end (its agent; the end's stop reason and
// usage) or a fallback (from, to, why): each line has its own fields.
type hubLine struct {
	head
	Agent      string              `json:"agent,omitempty"`
	StopReason adapters.StopReason `json:"stopReason,omitempty"`
	Usage      *adapters.Usage     `json:"usage,omitempty"`
	From       string              `json:"from,omitempty"`
	To         string              `json:"to,omitempty"`
	Reason     string              `json:"reason,omitempty"`
}

// output writes stdout and stderr for one run; safe for the spinner
// goroutine.
type output struct {
	o       Options
	start   time.Time
	mu      sync.Mutex
	spin    bool
	stopped chan struct{}
	wg      sync.WaitGroup
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func newOutput(o Options) *output {
	if !o.NoMask {
		m := cmp.Or(o.Mask, mask.Default())
		if o.Format == FormatJSONL {
			o.Stdout = m.JSONWriter(o.Stdout)
		} else {
			o.Stdout = m.Writer(o.Stdout)
		}
		o.Stderr = m.Writer(o.Stderr)
	}
	out := &output{o: o, start: o.Now(), stopped: make(chan struct{}), spin: o.StderrTTY && o.Format == FormatText}
	if out.spin {
		out.wg.Go(out.spinner)
	}
	return out
}

func (w *output) spinner() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-w.stopped:
			return
		case <-t.C:
		}
		w.mu.Lock()
		fmt.Fprintf(w.o.Stderr, "\r\x1b[K%s %s %.1fs", spinFrames[i%len(spinFrames)], w.o.Agent, w.o.Now().Sub(w.start).Seconds())
		w.mu.Unlock()
	}
}

// close stops the spinner and clears its line.
func (w *output) close() {
	close(w.stopped)
	w.wg.Wait()
	if w.spin {
		w.mu.Lock()
		defer w.mu.Unlock()
		fmt.Fprint(w.o.Stderr, "\r\x1b[K")
	}
}

func (w *output) color(code, s string) string {
	if !w.o.StderrTTY || w.o.NoColor {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// line writes one progress line to stderr, clearing the spinner first.
func (w *output) line(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spin {
		fmt.Fprint(w.o.Stderr, "\r\x1b[K")
	}
	fmt.Fprintln(w.o.Stderr, s)
}

func (w *output) progress(format string, args ...any) {
	w.textLine(w.color("2", w.o.Name+": "+fmt.Sprintf(format, args...)))
}

// textLine writes a progress line in text format only: jsonl leaves
// stderr to logs.
func (w *output) textLine(s string) {
	if w.o.Format == FormatText {
		w.line(s)
	}
}

func (w *output) warning(s string) { w.textLine(w.color("33", "warning: "+s)) }

// narration shows assistant text that a tool call followed: progress, not
// the final answer.
func (w *output) narration(text string) {
	for _, l := range strings.Split(text, "\n") {
		w.textLine(w.color("2", "│ "+l))
	}
}

// fatalLine shows a fatal error that a later one replaced in the summary.
func (w *output) fatalLine(e *adapters.ErrorInfo) {
	w.textLine(w.color("31", tagged("error: "+trimDetail(e.Message, e.Detail), e.Code)))
	w.detail(e.Detail)
}

func tagged(msg string, code adapters.ErrorCode) string {
	if code != "" {
		msg += " [" + string(code) + "]"
	}
	return msg
}

// detail writes an agent's stderr tail, one line each (adapters join the
// lines with " | " or newlines).
func (w *output) detail(d string) {
	for _, l := range strings.Split(strings.ReplaceAll(d, " | ", "\n"), "\n") {
		if l = strings.TrimRight(l, " \r"); strings.TrimSpace(l) != "" {
			w.textLine("  | " + l)
		}
	}
}

// decided writes a decision (an EventDecision) as a permission line: the
// request (or the call the agent refused itself), the answer and what
// decided it, and why.
func (w *output) decided(ev adapters.Event) {
	d := ev.Decision
	p := cmp.Or(ev.Permission, &adapters.PermissionRequest{Tool: adapters.ToolCall{ID: d.ToolID, Title: d.Title, Kind: d.Kind}})
	if w.o.Format == FormatJSONL {
		answer := cmp.Or(d.Answer, &adapters.PermissionDecision{Kind: map[bool]adapters.PermissionOptionKind{true: adapters.AllowOnce, false: adapters.RejectOnce}[d.Allowed]})
		w.jsonl(envelope{V: EnvelopeVersion, TS: w.ts(), Candidate: w.o.Candidate, Event: adapters.Event{Type: adapters.EventPermission, Permission: p},
			Decision: answer, Reason: d.Reason, By: d.By})
		return
	}
	verdict := map[bool]string{true: w.color("32", "allowed"), false: w.color("31", "denied")}[d.Allowed]
	w.line(fmt.Sprintf("? permission %s: %s (%s)", toolLabel(p.Tool), verdict, d.Reason))
}

func (w *output) event(ev adapters.Event) {
	switch {
	case ev.Type == adapters.EventDecision && ev.Decision != nil: // whatever took it
		w.decided(ev)
	case w.o.Format == FormatJSONL:
		w.jsonl(envelope{V: EnvelopeVersion, TS: w.ts(), Candidate: w.o.Candidate, Event: ev})
	case ev.Type == adapters.EventToolCall && ev.Tool != nil:
		w.line(w.color("36", "→ "+toolLabel(*ev.Tool)))
	case ev.Type == adapters.EventToolUpdate && ev.Tool != nil && ev.Tool.Status == adapters.StatusFailed:
		w.line(w.color("31", "✗ tool "+ev.Tool.ID+" failed"))
	case ev.Type == adapters.EventError && ev.Error != nil && !ev.Error.Fatal:
		// Fatal errors end up in the summary line (with their stderr tail);
		// the others are warnings and retries.
		w.line(w.color("33", tagged("warning: "+oneLine(ev.Error.Message), ev.Error.Code)))
	}
}

func toolLabel(t adapters.ToolCall) string {
	s := conversation.ToolTitle(t)
	if t.Kind != "" {
		s += " [" + string(t.Kind) + "]"
	}
	return s
}

// turn writes a turn boundary (jsonl only); the end carries the turn's
// stop reason and usage.
func (w *output) turn(typ, agent string, stop adapters.StopReason, u *adapters.Usage) {
	if w.o.Format == FormatJSONL {
		w.jsonl(hubLine{head: w.head(typ), Agent: agent, StopReason: stop, Usage: u})
	}
}

// fallback tells, on stderr and as a jsonl event, that the next agent
// takes over.
func (w *output) fallback(from, to, reason string) {
	if w.o.Format == FormatJSONL {
		w.jsonl(hubLine{head: w.head("fallback"), From: from, To: to, Reason: reason})
	}
	w.line(w.color("33", w.o.Name+": "+conversation.HandoverLine(reason, to)))
}

func (w *output) head(typ string) head {
	return head{V: EnvelopeVersion, Type: typ, TS: w.ts(), Candidate: w.o.Candidate}
}

// ts is the time stamp of a jsonl line: RFC 3339 with milliseconds.
func (w *output) ts() string { return w.o.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func (w *output) jsonl(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"v": EnvelopeVersion, "type": "error", "error": map[string]string{"message": "encode event: " + err.Error()}})
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.o.Stdout.Write(append(b, '\n'))
}

// summary prints the answer (text) or the summary line (jsonl), and the
// outcome to stderr.
func (w *output) summary(s Summary) {
	if w.o.Format == FormatJSONL {
		typ := map[bool]string{false: "summary", true: "candidate"}[w.o.Candidate != ""] // the run's own summary comes after every candidate
		w.jsonl(struct {
			head
			Summary
		}{w.head(typ), s})
		return
	}
	if s.Answer != "" {
		_, _ = fmt.Fprint(w.o.Stdout, strings.TrimSuffix(s.Answer, "\n")+"\n")
	}
	if s.Error != "" {
		w.line(w.color("31", fmt.Sprintf("%s: %s (exit %d)", w.o.Name, s.Error, s.ExitCode)))
	}
	w.detail(s.Detail)
	if s.AgentSessionID != "" && s.Resumable {
		w.line(w.color("2", w.o.Name+": session "+s.AgentSessionID+" (continue with --resume "+s.AgentSessionID+")"))
	}
}
