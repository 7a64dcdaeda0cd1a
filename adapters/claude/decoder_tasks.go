package claude

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"

	"github.com/hubdev/hub/adapters"
)

// claudeTask is a task as the task tools name it: by TaskID in their input, by ID in
// their results and the task list, where ID stays "" until the TaskCreate result (of
// tool_use toolID) names it.
type claudeTask struct {
	ID      string `json:"id"`
	TaskID  string `json:"taskId"`
	Subject string `json:"subject"`
	Status  string `json:"status"`
	toolID  string
}

type claudeTaskResult struct {
	Task  *claudeTask    `json:"task"`
	Tasks *[]*claudeTask `json:"tasks"`
}

var claudeTaskCreatedRE = regexp.MustCompile(`Task #(\S+) created`)

// claudeIsTaskTool says whether name is one of the task tools by which Claude Code 2.x
// replaced TodoWrite: each touches one task, so the decoder keeps the whole list.
func claudeIsTaskTool(name string) bool {
	return slices.Contains([]string{"TaskCreate", "TaskUpdate", "TaskList", "TaskGet"}, name)
}

// taskUse applies a task tool's input; it returns a plan event when the list changed.
func (d *ClaudeDecoder) taskUse(id, name string, input []byte) []adapters.Event {
	var in claudeTask
	_ = adapters.Unmarshal(input, &in)
	switch name {
	case "TaskCreate":
		d.tasks = append(d.tasks, &claudeTask{toolID: id, Subject: in.Subject, Status: "pending"})
	case "TaskUpdate":
		if !d.updateTask(in) {
			return nil
		}
	default:
		return nil // TaskList, TaskGet: their results carry the state
	}
	return d.taskPlan()
}

func (d *ClaudeDecoder) updateTask(in claudeTask) bool {
	id := cmp.Or(in.TaskID, in.ID)
	i := slices.IndexFunc(d.tasks, func(t *claudeTask) bool { return id != "" && t.ID == id })
	if in.Status == "deleted" {
		if i < 0 {
			return false
		}
		d.tasks = slices.Delete(d.tasks, i, i+1)
		return true
	}
	if i < 0 {
		if id == "" {
			return false
		}
		// A task created before this stream (resumed session).
		d.tasks = append(d.tasks, &claudeTask{ID: id, Subject: cmp.Or(in.Subject, "Task #"+id), Status: "pending"})
		i = len(d.tasks) - 1
	}
	t := d.tasks[i]
	t.Subject, t.Status = cmp.Or(in.Subject, t.Subject), cmp.Or(in.Status, t.Status)
	return true
}

// taskResult binds created task ids and adopts the lists the CLI reports.
func (d *ClaudeDecoder) taskResult(b *claudeBlockJSON, rec *claudeToolRecord, structured json.RawMessage) []adapters.Event {
	var res claudeTaskResult
	_ = adapters.Unmarshal(structured, &res)
	switch rec.name {
	case "TaskCreate":
		return d.taskCreated(b, &res)
	case "TaskList":
		if b.IsError || res.Tasks == nil {
			return nil
		}
		d.tasks = slices.DeleteFunc(*res.Tasks, func(t *claudeTask) bool { return t == nil })
		return d.taskPlan()
	case "TaskGet":
		if b.IsError || res.Task == nil || res.Task.ID == "" || !d.updateTask(*res.Task) {
			return nil
		}
		return d.taskPlan()
	}
	return nil
}

func (d *ClaudeDecoder) taskCreated(b *claudeBlockJSON, res *claudeTaskResult) []adapters.Event {
	i := slices.IndexFunc(d.tasks, func(t *claudeTask) bool { return t.toolID == b.ToolUseID }) // toolUse made one per id
	if i < 0 {
		return nil
	}
	if b.IsError {
		d.tasks = slices.Delete(d.tasks, i, i+1)
		return d.taskPlan()
	}
	t := d.tasks[i]
	if res.Task != nil {
		t.ID = res.Task.ID
		if res.Task.Subject != "" && res.Task.Subject != t.Subject {
			t.Subject = res.Task.Subject
			return d.taskPlan()
		}
		return nil
	}
	for _, c := range claudeResultContent(b.Content) {
		if m := claudeTaskCreatedRE.FindStringSubmatch(c.Text); m != nil {
			t.ID = m[1]
		}
	}
	return nil
}

func (d *ClaudeDecoder) taskPlan() []adapters.Event {
	plan := make([]adapters.PlanEntry, 0, len(d.tasks))
	for _, t := range d.tasks {
		plan = append(plan, claudePlanEntry(t.Subject, t.Status, ""))
	}
	return []adapters.Event{{Type: adapters.EventPlan, Plan: plan}}
}
