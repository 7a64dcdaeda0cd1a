//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
)

const (
	skillsE2EName = "zebra-notes"
	skillsE2EDesc = "Takes notes about zebras in a quagga-approved format."
	skillsE2EBody = "Write every note as a numbered okapi list."
)

// skillsE2EUser writes one skill into the hub user config dir under home,
// where only hub looks: the agent can know it only from hub.
func skillsE2EUser(t *testing.T, home string) {
	t.Helper()
	dir := filepath.Join(home, ".config", "hub", "skills", skillsE2EName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + skillsE2EName + "\ndescription: " + skillsE2EDesc + "\n---\n" + skillsE2EBody + "\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// skillsE2EEmpty fails if dir holds anything: the run must not write into
// the user's project.
func skillsE2EEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the run left %s in the project dir", filepath.Join(dir, e.Name()))
	}
}

var skillsE2ETempDir = regexp.MustCompile(`/[^"\s\\]*hub-skills-[0-9]+`)

// Through app-server codex loads the skill natively: its catalog in the
// request lists the skill's name and description from hub's temp dir, the
// body stays out of the prompt until the model opens SKILL.md, and the temp
// dir is gone after the run. The exec fallback cannot add a skills dir and
// gets the skill in front of the prompt.
func TestSkills_Codex(t *testing.T) {
	tests := []struct {
		name      string
		transport string
		native    bool
	}{
		{name: "app-server loads natively", native: true},
		{name: "exec fallback gets the prompt", transport: "exec"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mock := mockllm.NewResponsesServer(mockllm.ResponsesTurn{Text: "Noted."})
			defer mock.Close()
			home, cwd := t.TempDir(), t.TempDir()
			skillsE2EUser(t, home)
			cfg := codexHubConfig(t, mock)
			if tc.transport != "" {
				cfg = strings.Replace(cfg, "options = { ", "options = { transport = "+strconvQuote(tc.transport)+", ", 1)
			}
			r := runHub(t, home, cfg, "", "--agent", "codex", "--cwd", cwd, "--skill", skillsE2EName, "--format", "jsonl", "take a note")
			if r.code != 0 || !strings.Contains(runText(r), "Noted.") {
				t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, e2eTail(r.stderr, 30))
			}
			reqs := mock.Requests()
			if len(reqs) == 0 {
				t.Fatal("codex sent no request")
			}
			body := string(reqs[0].Body)
			if got := strings.Contains(body, skillsE2EName+": "+skillsE2EDesc); got != tc.native {
				t.Errorf("skill %q in codex's own catalog = %v, want %v", skillsE2EName, got, tc.native)
			}
			if got := strings.Contains(body, skillsE2EBody); got == tc.native {
				t.Errorf("skill body in the request = %v, want %v", got, !tc.native)
			}
			if !codexInputHas(reqs[0], "take a note") {
				t.Errorf("the user's prompt is missing: %v", reqs[0].Input)
			}
			if tc.native {
				tmp := skillsE2ETempDir.FindString(body)
				if tmp == "" {
					t.Errorf("no hub-skills temp dir named in the request")
				} else if _, err := os.Stat(tmp); !os.IsNotExist(err) {
					t.Errorf("skills temp dir %s left after the run (stat err %v)", tmp, err)
				}
			}
			skillsE2EEmpty(t, cwd)
		})
	}
}

// Gemini cannot be pointed at a skills dir outside the user's project and
// home, so the skill arrives in front of the prompt.
func TestSkills_GeminiPrompt(t *testing.T) {
	bin := e2eCLI(t, "gemini", "gemini")
	mock := mockllm.NewGeminiServer(mockllm.GeminiTurn{Text: "Noted."})
	defer mock.Close()
	home, cwd := t.TempDir(), t.TempDir()
	geminiSettings(t, home)
	skillsE2EUser(t, home)
	r := runHub(t, home, geminiHubCfg(bin, mock), "", "--agent", "gemini", "--cwd", cwd, "--skill", skillsE2EName, "--format", "jsonl", "take a note")
	if r.code != 0 || !strings.Contains(runText(r), "Noted.") {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, e2eTail(r.stderr, 30))
	}
	reqs := mock.ModelRequests()
	if len(reqs) == 0 {
		t.Fatal("gemini sent no request")
	}
	body := string(reqs[0].Body)
	if i, j := strings.Index(body, skillsE2EBody), strings.Index(body, "take a note"); i < 0 || j < i {
		t.Errorf("want the skill body before the user's prompt; request:\n%s", body)
	}
	skillsE2EEmpty(t, cwd)
}
