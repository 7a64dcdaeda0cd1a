package claude

import (
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// claudePlans renders each plan event as "content:status;..." lines.
func claudePlans(ev []adapters.Event) []string {
	var out []string
	for _, e := range ev {
		if e.Type != adapters.EventPlan {
			continue
		}
		var s []string
		for _, p := range e.Plan {
			if p.Priority != "medium" {
				s = append(s, "bad priority "+p.Priority)
			}
			s = append(s, p.Content+":"+p.Status)
		}
		out = append(out, strings.Join(s, ";"))
	}
	return out
}

func TestDecodeClaude_TasksRecorded(t *testing.T) {
	ev := claudeFixture(t, "rec-tasks")
	want := []string{
		"Write the parser:pending",
		"Write the parser:pending;Add tests:pending",
		"Write the parser:in_progress;Add tests:pending",
		"Write the parser:completed;Add tests:pending",
		"Write the parser:completed;Add table tests:in_progress",
		"Write the parser:completed;Add table tests:in_progress", // TaskList result
	}
	if got := claudePlans(ev); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plans:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, e := range ev {
		if (e.Type == adapters.EventToolCall || e.Type == adapters.EventToolUpdate) && strings.HasPrefix(e.Tool.ID, "toolu_mock_") {
			t.Errorf("task tool leaked as %s: %+v", e.Type, e.Tool)
		}
	}
}

func TestClaudeDecoder_TaskEdgeCases(t *testing.T) {
	const (
		create = `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"%ID%","name":"TaskCreate","input":{"subject":"%S%","description":"d"}}]}}`
		result = `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"%ID%","content":"%C%"%ERR%}]}%TUR%}`
		update = `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"%ID%","name":"%N%","input":%IN%}]}}`
	)
	r := strings.NewReplacer
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"id from result text when structured result is missing", []string{
			r("%ID%", "c1", "%S%", "A").Replace(create),
			r("%ID%", "c1", "%C%", "Task #7 created successfully: A", "%ERR%", "", "%TUR%", "").Replace(result),
			r("%ID%", "u1", "%N%", "TaskUpdate", "%IN%", `{"taskId":"7","status":"completed"}`).Replace(update),
		}, []string{"A:pending", "A:completed"}},
		{"failed create is withdrawn", []string{
			r("%ID%", "c1", "%S%", "A").Replace(create),
			r("%ID%", "c1", "%C%", "boom", "%ERR%", `,"is_error":true`, "%TUR%", "").Replace(result),
		}, []string{"A:pending", ""}},
		{"deleted task leaves the list", []string{
			r("%ID%", "c1", "%S%", "A").Replace(create),
			r("%ID%", "c1", "%C%", "ok", "%ERR%", "", "%TUR%", `,"tool_use_result":{"task":{"id":"1","subject":"A"}}`).Replace(result),
			r("%ID%", "c2", "%S%", "B").Replace(create),
			r("%ID%", "c2", "%C%", "ok", "%ERR%", "", "%TUR%", `,"tool_use_result":{"task":{"id":"2","subject":"B"}}`).Replace(result),
			r("%ID%", "u1", "%N%", "TaskUpdate", "%IN%", `{"taskId":"1","status":"deleted"}`).Replace(update),
		}, []string{"A:pending", "A:pending;B:pending", "B:pending"}},
		{"unknown id after resume is added", []string{
			r("%ID%", "u1", "%N%", "TaskUpdate", "%IN%", `{"taskId":"3","status":"in_progress"}`).Replace(update),
		}, []string{"Task #3:in_progress"}},
		{"TaskGet and TaskList adopt the CLI's state", []string{
			r("%ID%", "g1", "%N%", "TaskGet", "%IN%", `{"taskId":"4"}`).Replace(update),
			r("%ID%", "g1", "%C%", "ok", "%ERR%", "", "%TUR%", `,"tool_use_result":{"task":{"id":"4","subject":"Old","status":"completed","blocks":[],"blockedBy":[]}}`).Replace(result),
			r("%ID%", "l1", "%N%", "TaskList", "%IN%", `{}`).Replace(update),
			r("%ID%", "l1", "%C%", "ok", "%ERR%", "", "%TUR%", `,"tool_use_result":{"tasks":[{"id":"5","subject":"New","status":"weird","blockedBy":[]}]}`).Replace(result),
		}, []string{"Old:completed", "New:pending"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := claudePlans(DecodeClaude([]byte(strings.Join(tt.lines, "\n"))))
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("plans = %q, want %q", got, tt.want)
			}
		})
	}
}
