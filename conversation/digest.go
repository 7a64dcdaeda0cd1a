package conversation

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/handover"
)

// Digest is what one turn did, built from its event stream (Note) and its
// workspace: what hub run prints, a delegate returns and a handover tells.
type Digest struct {
	// final is the text since the last tool call, lastFinal the last
	// non-empty segment before it.
	all, final     strings.Builder
	lastFinal      string
	lastMsgID      string
	ToolCalls      []ToolCall
	byID           map[string]int // tool call id -> index in ToolCalls
	Plan           []adapters.PlanEntry
	Usage          *adapters.Usage // summed over the turn's requests and the earlier turns of a NextTurn
	Priced         bool            // the turn's cost is hub's price: the agent reported none
	prior, turn    *adapters.Usage // the earlier turns' usage, and this one's
	Model          string          // what the agent said it uses
	AgentSessionID string
	Errors         []string            // the non-fatal errors' messages
	Fatal          *adapters.ErrorInfo // the last fatal error, or the first while none is
	Refused        []Refusal           // by the gate or by the agent in its stream
	// FilesChanged are the files the turn changed in its workspace's git
	// repository, by any means; outside one, those its changing tool calls
	// named and did not all fail to change (changedNothing).
	FilesChanged []FileChange
	named        [][2]string // a changing tool call's path and id
	saidFailed   []string    // the tool calls the agent said failed
	before       *Snapshot   // the workspace before the first turn (NextTurn keeps it)
}

type ToolCall struct {
	Title  string `json:"title"`
	Kind   string `json:"kind,omitempty"`
	Status string `json:"status,omitempty"`
}

// ToolTitle is how every output names a tool call.
func ToolTitle(t adapters.ToolCall) string { return cmp.Or(t.Title, t.Name, t.ID) }

type Refusal struct {
	ToolID string            `json:"toolId"`
	Title  string            `json:"title,omitempty"`
	Kind   adapters.ToolKind `json:"kind,omitempty"`
	Reason string            `json:"reason"`
}

// Note folds one event into the digest. A tool call closes the text before
// it as narration, returned (trimmed) for front ends that show it.
func (d *Digest) Note(ev adapters.Event) (narration string) {
	switch ev.Type {
	case adapters.EventText:
		d.text(ev)
	case adapters.EventToolCall, adapters.EventToolUpdate:
		return d.tool(ev)
	case adapters.EventPlan:
		d.Plan = ev.Plan
	case adapters.EventSessionInfo:
		if ev.Session != nil {
			d.AgentSessionID = cmp.Or(ev.Session.AgentSessionID, d.AgentSessionID)
			d.Model = cmp.Or(ev.Session.Model, d.Model)
		}
	case adapters.EventUsage:
		d.turn = MergeUsage(d.turn, ev.Usage)
		d.Usage = AddUsage(d.prior, d.turn)
	case adapters.EventError:
		d.error(ev.Error)
	case adapters.EventDecision:
		if c := ev.Decision; c != nil && !c.Allowed {
			d.Refused = append(d.Refused, Refusal{ToolID: c.ToolID, Title: c.Title, Kind: c.Kind, Reason: c.Reason})
		}
	}
	return ""
}

// Retry is an empty digest for another agent's attempt at the same turn;
// its files changed count from the workspace as d's first turn found it.
func (d *Digest) Retry() Digest { return Digest{before: d.before} }

// NextTurn starts another turn in d (a repair turn): the answer becomes
// the new turn's, while text, tool calls and usage add up.
func (d *Digest) NextTurn() {
	d.final.Reset()
	d.lastFinal = ""
	d.prior, d.turn = d.Usage, nil
}

func (d *Digest) text(ev adapters.Event) {
	newMsg := ev.MessageID != "" && ev.MessageID != d.lastMsgID
	if (newMsg || d.final.Len() == 0) && d.all.Len() > 0 && !strings.HasSuffix(d.all.String(), "\n") {
		d.all.WriteString("\n\n")
	}
	if newMsg && d.final.Len() > 0 && !strings.HasSuffix(d.final.String(), "\n") {
		d.final.WriteString("\n\n")
	}
	d.lastMsgID = cmp.Or(ev.MessageID, d.lastMsgID)
	d.all.WriteString(ev.Text)
	d.final.WriteString(ev.Text)
}

func (d *Digest) tool(ev adapters.Event) (narration string) {
	tc := ev.Tool
	if tc == nil {
		return ""
	}
	if d.byID == nil {
		d.byID = map[string]int{}
	}
	i, ok := d.byID[tc.ID]
	if ev.Type == adapters.EventToolCall && (!ok || tc.ID == "") {
		if narration = strings.TrimSpace(d.final.String()); narration != "" {
			d.lastFinal = narration
		}
		d.final.Reset()
		d.ToolCalls = append(d.ToolCalls, ToolCall{Title: ToolTitle(*tc), Kind: string(tc.Kind), Status: string(tc.Status)})
		i, ok = len(d.ToolCalls)-1, true
		d.byID[tc.ID] = i
	}
	if ok && tc.Status != "" {
		d.ToolCalls[i].Status = string(tc.Status)
	}
	if tc.Status == adapters.StatusFailed && (len(tc.Content) > 0 || tc.RawOutput != nil) {
		d.saidFailed = append(d.saidFailed, tc.ID) // in the agent's words: not a call left open that the turn's end closed
	}
	for _, l := range tc.Locations {
		if tc.Kind.ChangesFiles() && !slices.ContainsFunc(d.FilesChanged, func(f FileChange) bool { return f.Path == l.Path }) {
			d.FilesChanged = append(d.FilesChanged, FileChange{Path: l.Path, Status: "modified"})
		}
		if tc.Kind.ChangesFiles() && tc.ID != "" {
			d.named = append(d.named, [2]string{l.Path, tc.ID})
		}
	}
	return narration
}

// changedNothing says every tool call naming f failed in the agent's words
// or was refused, and no shell command ran (hub cannot tell what it wrote).
func (d *Digest) changedNothing(f FileChange) bool {
	refused := func(id string) bool {
		return slices.ContainsFunc(d.Refused, func(r Refusal) bool { return r.ToolID == id })
	}
	for id, i := range d.byID {
		if d.ToolCalls[i].Kind == string(adapters.KindExecute) && !refused(id) {
			return false
		}
	}
	n := 0
	for _, c := range d.named {
		if c[0] != f.Path {
			continue
		}
		if !slices.Contains(d.saidFailed, c[1]) && !refused(c[1]) {
			return false
		}
		n++
	}
	return n > 0
}

func (d *Digest) error(e *adapters.ErrorInfo) {
	if e != nil && !e.Fatal {
		d.Errors = append(d.Errors, e.Message)
	}
	if e != nil && (e.Fatal || d.Fatal == nil) {
		d.Fatal = new(*e)
	}
}

func (d *Digest) Tool(id string) (ToolCall, bool) {
	i, ok := d.byID[id]
	if !ok {
		return ToolCall{}, false
	}
	return d.ToolCalls[i], true
}

// Text is all the assistant text of the turn, narration included.
func (d *Digest) Text() string { return d.all.String() }

// Answer is the turn's final answer: the text after the last tool call,
// else the last text before it.
func (d *Digest) Answer() string { return cmp.Or(strings.TrimSpace(d.final.String()), d.lastFinal) }

func (d *Digest) Files() []string {
	out := []string{}
	for _, f := range d.FilesChanged {
		out = append(out, f.Path)
	}
	return out
}

func (d *Digest) AddTo(b *handover.Brief, request string) {
	t := handover.Turn{Request: request, Answer: d.Answer()}
	for _, c := range d.ToolCalls {
		t.Tools = append(t.Tools, c.Title)
	}
	b.Turns = append(b.Turns, t)
	b.Files = handover.AddFiles(b.Files, d.Files()...)
	if len(d.Plan) > 0 {
		b.Plan = b.Plan[:0]
		for _, e := range d.Plan {
			b.Plan = append(b.Plan, handover.PlanEntry{Content: e.Content, Status: e.Status})
		}
	}
}

func (d *Digest) finish(ctx context.Context, before *Snapshot, model, workspace string) {
	if before != nil && before.root != "" {
		d.FilesChanged = before.Changes(ctx)
	} else if d.FilesChanged = slices.DeleteFunc(d.FilesChanged, d.changedNothing); len(d.FilesChanged) == 0 {
		d.FilesChanged = nil
	}
	for i, f := range d.FilesChanged { // as git names them: from the workspace, with slashes
		if rel, err := filepath.Rel(workspace, f.Path); err == nil && workspace != "" && filepath.IsAbs(f.Path) && filepath.IsLocal(rel) {
			d.FilesChanged[i].Path = filepath.ToSlash(rel)
		}
	}
	// This turn's usage is priced, not the sum: an earlier turn's cost
	// must not leave this one's tokens unpriced.
	if c, ok := d.turnCost(model); ok {
		d.turn.CostUSD, d.Priced = &c, true
		d.Usage = AddUsage(d.prior, d.turn)
	}
}

// turnCost is hub's price of this turn's usage when the agent reported
// none: at the model asked for, else at the one the agent says it uses.
func (d *Digest) turnCost(model string) (float64, bool) {
	p, ok := PriceOf(model)
	if !ok {
		p, ok = PriceOf(d.Model)
	}
	if !ok || d.turn == nil || d.turn.CostUSD != nil {
		return 0, false
	}
	return p.Cost(d.turn), true
}

// Spent is the input and output tokens and the USD cost of the turns so
// far, the running one priced as its end will price it.
func (d *Digest) Spent(model string) (tokens int64, cost float64) {
	u := cmp.Or(d.Usage, &adapters.Usage{})
	if u.CostUSD != nil {
		cost = *u.CostUSD
	}
	c, _ := d.turnCost(model)
	return u.InputTokens + u.OutputTokens, cost + c
}

// MergeUsage folds one usage event into the turn's: per-request counts
// add up; of totals so far, the latest non-zero value of each counter wins.
func MergeUsage(acc, u *adapters.Usage) *adapters.Usage {
	if acc == nil || u == nil || u.PerRequest {
		return AddUsage(acc, u)
	}
	latest := counters(u)
	for i, p := range counters(acc) {
		*p = cmp.Or(*latest[i], *p)
	}
	acc.CostUSD = cmp.Or(u.CostUSD, acc.CostUSD)
	return acc
}

// AddUsage sums two usages' counts and costs; the context figures are b's.
func AddUsage(a, b *adapters.Usage) *adapters.Usage {
	switch {
	case b == nil:
		return a
	case a == nil:
		return new(*b)
	}
	s, add := *a, counters(b)
	for i, p := range counters(&s)[:summed] {
		*p += *add[i]
	}
	s.ContextUsed = cmp.Or(b.ContextUsed, s.ContextUsed)
	s.ContextSize = cmp.Or(b.ContextSize, s.ContextSize)
	if b.CostUSD != nil {
		c := *b.CostUSD
		if a.CostUSD != nil {
			c += *a.CostUSD
		}
		s.CostUSD = &c
	}
	return &s
}

// counters are u's token counts: the first summed add up, the context
// figures after them are the latest.
func counters(u *adapters.Usage) []*int64 {
	return []*int64{&u.InputTokens, &u.OutputTokens, &u.CacheReadTokens, &u.CacheWriteTokens, &u.ThoughtTokens, &u.ContextUsed, &u.ContextSize}
}

const summed = 5
