package openai

import (
	"embed"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/template"
	"time"

	"github.com/hubdev/hub/internal/config"
)

//go:embed prompts
var promptFS embed.FS

//go:embed prompts/compact.md
var compactText string

var systemTmpl = template.Must(template.ParseFS(promptFS, "prompts/system.md"))

// projectFileBudget caps the AGENTS.md text put into the system prompt.
const projectFileBudget = 16 << 10

func systemPrompt(cwd, instructions string, now time.Time) string {
	file, text := projectInstructions(cwd)
	var b strings.Builder
	_ = systemTmpl.Execute(&b, map[string]string{
		"Cwd": cwd, "OS": runtime.GOOS + "/" + runtime.GOARCH, "Date": now.Format("2006-01-02"),
		"ProjectFile": file, "ProjectText": text, "Instructions": strings.TrimSpace(instructions),
	})
	return b.String()
}

// projectInstructions finds AGENTS.md (or CLAUDE.md) in cwd or the nearest
// parent, stopping at the repository root or the home directory.
func projectInstructions(cwd string) (string, string) {
	home, _ := os.UserHomeDir()
	for _, dir := range config.ProjectDirs(cwd) {
		for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
			p := filepath.Join(dir, name)
			// A repository's file: a FIFO or /dev/zero symlink must not
			// block or fill memory, nor link to the user's files.
			if b, err := config.ReadContainedProjectFile(p); err == nil {
				s := string(b)
				if len(s) > projectFileBudget {
					s = s[:projectFileBudget] + "\n[truncated]"
				}
				return p, strings.TrimSpace(s)
			}
		}
		if dir == home {
			break
		}
	}
	return "", ""
}
