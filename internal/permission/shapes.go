package permission

import (
	"cmp"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hubdev/hub/adapters"
)

// RequestOf describes a tool call. A call that carries a command is checked as that command,
// whatever kind it claims; delegate_agent by the agent it names.
func RequestOf(tc adapters.ToolCall, cwd string) Request {
	req := Request{Tool: cmp.Or(tc.Name, string(tc.Kind)), Kind: tc.Kind, Cwd: cwd, Command: CommandOf(tc), Paths: PathsOf(tc, cwd)}
	switch {
	case req.Command != "":
		req.Kind, req.Dirs = adapters.KindExecute, dirsOf(tc, cwd)
		if req.Dirs == nil {
			req.Dirs, req.Kept = tc.Dirs, len(tc.Dirs) > 0
		}
		req.Argv = argvOnly(tc)
		if !req.Argv {
			req.Shell = tc.Shell
		}
	case req.Tool == "delegate_agent":
		var a struct{ Agent, Session string }
		_ = json.Unmarshal(tc.RawInput, &a)
		req.Command = cmp.Or(a.Agent, a.Session)
	}
	if len(req.Paths) > 0 {
		req.Path = req.Paths[0]
	}
	return req
}

// Raw input keys, as normKey writes them. dirKeys name where a command runs
// (gemini's run_shell_command says dir_path); each also names a file.
var (
	commandKeys = []string{"command", "cmd", "argv", "script", "commandline", "shellcommand", "chars"}
	pathKeys    = []string{"path", "filepath", "filename", "file", "notebookpath", "target", "targetfile",
		"destination", "dest", "source", "src", "oldpath", "newpath"}
	dirKeys      = []string{"dir", "directory", "cwd", "workdir", "dirpath", "workingdir", "workingdirectory"}
	fileKeys     = slices.Concat(pathKeys, dirKeys)
	pathListKeys = []string{"paths", "files", "filepaths"}
)

// editorVerbs are the "command" values of file editor tools.
var editorVerbs = set("view", "create", "str_replace", "insert", "undo_edit", "write", "read")

// normKey makes file_path, filePath and FILE-PATH one.
func normKey(k string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
}

const maxInputDepth = 5

// CommandOf returns the shell command a tool call runs, whatever kind it claims: each command
// key at any depth (an argv array quoted word by word) with its "args", joined as one list;
// else an execute call's title. An editor tool's "command" ("view", …) is none.
func CommandOf(tc adapters.ToolCall) string {
	var cmds []string
	walkInput(tc.RawInput, func(obj map[string]json.RawMessage) {
		var cmd string
		for _, k := range commandKeys {
			if c := commandValue(obj[k]); c != "" && !editorVerbs[c] {
				cmd = c
				break
			}
		}
		if args := commandValue(obj["args"]); args != "" {
			cmd = strings.TrimSpace(cmd + " " + args)
		}
		if cmd != "" {
			cmds = append(cmds, cmd)
		}
	})
	if len(cmds) == 0 && tc.Kind == adapters.KindExecute {
		return tc.Title
	}
	return strings.Join(cmds, "\n")
}

// PathsOf lists every file a tool call names, absolute against cwd: locations, diffs, and the
// raw input's paths at any depth (with the keys of a patch's "changes" object).
func PathsOf(tc adapters.ToolCall, cwd string) []string {
	var raw []string
	for _, l := range tc.Locations {
		raw = append(raw, l.Path)
	}
	for _, c := range tc.Content {
		if c.Type == adapters.ToolContentDiff {
			raw = append(raw, c.Path)
		}
	}
	walkInput(tc.RawInput, func(obj map[string]json.RawMessage) {
		raw = appendStrings(raw, obj, fileKeys)
		for _, k := range pathListKeys {
			var ps []string
			if json.Unmarshal(obj[k], &ps) == nil {
				raw = append(raw, ps...)
			}
		}
		var changes map[string]json.RawMessage
		if json.Unmarshal(obj["changes"], &changes) == nil {
			raw = append(raw, slices.Sorted(maps.Keys(changes))...)
		}
	})
	return absAll(raw, cwd)
}

// dirsOf is where a tool call's command runs when its raw input names it.
func dirsOf(tc adapters.ToolCall, cwd string) []string {
	var raw []string
	walkInput(tc.RawInput, func(obj map[string]json.RawMessage) { raw = appendStrings(raw, obj, dirKeys) })
	return absAll(raw, cwd)
}

// appendStrings appends the values of obj's keys that are strings.
func appendStrings(out []string, obj map[string]json.RawMessage, keys []string) []string {
	for _, k := range keys {
		var s string
		if json.Unmarshal(obj[k], &s) == nil {
			out = append(out, s)
		}
	}
	return out
}

// absAll is the paths of raw that are not blank, absolute against cwd, each once.
func absAll(raw []string, cwd string) []string {
	home, _ := os.UserHomeDir()
	var out []string
	for _, p := range raw {
		if p = strings.TrimSpace(p); p != "" {
			if a := absTarget(p, home, cwd); !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// walkInput calls visit for each object of a raw input (keys normalised), outermost first; a
// raw input that is a string holding JSON is read as that JSON. A hostile agent may nest or
// encode what it runs.
func walkInput(raw json.RawMessage, visit func(map[string]json.RawMessage)) {
	var walk func(raw json.RawMessage, depth int)
	walk = func(raw json.RawMessage, depth int) {
		if depth > maxInputDepth {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			norm := make(map[string]json.RawMessage, len(obj))
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				if _, dup := norm[normKey(k)]; !dup {
					norm[normKey(k)] = obj[k]
				}
			}
			visit(norm)
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				walk(obj[k], depth+1)
			}
			return
		}
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil {
			for _, v := range list {
				walk(v, depth+1)
			}
			return
		}
		var s string
		if depth == 0 && json.Unmarshal(raw, &s) == nil { // a whole input sent as a string; not a file's content
			if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
				walk(json.RawMessage(t), depth+1)
			}
		}
	}
	walk(raw, 0)
}

// commandValue reads a command string, or an argv array as a command line.
func commandValue(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var argv []string
	if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return ""
	}
	for i, a := range argv {
		argv[i] = quoteWord(a)
	}
	return strings.Join(argv, " ")
}

func argvOnly(tc adapters.ToolCall) bool {
	cmds, notArgv := 0, false
	walkInput(tc.RawInput, func(obj map[string]json.RawMessage) {
		notArgv = notArgv || obj["args"] != nil
		for _, k := range commandKeys {
			var argv []string
			if obj[k] != nil {
				cmds++
				notArgv = notArgv || json.Unmarshal(obj[k], &argv) != nil
			}
		}
	})
	return cmds > 0 && !notArgv
}

func quoteWord(a string) string {
	if q, err := syntax.Quote(a, syntax.LangBash); err == nil {
		return q
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
