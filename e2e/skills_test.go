//go:build e2e && unix

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	skillsE2EWrite(t, filepath.Join(home, ".config", "hub", "skills", skillsE2EName))
}

// skillsE2EWrite writes the test skill's SKILL.md into dir.
func skillsE2EWrite(t *testing.T, dir string) {
	t.Helper()
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

// skillsE2EProject writes the skill into the project's .hub/skills, where
// only hub looks.
func skillsE2EProject(t *testing.T, cwd string) {
	t.Helper()
	skillsE2EWrite(t, filepath.Join(cwd, ".hub", "skills", skillsE2EName))
}

// skillsE2ETree lists every path under dir, relative to it.
func skillsE2ETree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// claudeUserTexts returns the text blocks of the request's user messages.
func claudeUserTexts(req mockllm.AnthropicRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m["role"] != "user" {
			continue
		}
		switch c := m["content"].(type) {
		case string:
			out = append(out, c)
		case []any:
			for _, b := range c {
				if b, ok := b.(map[string]any); ok && b["type"] == "text" {
					s, _ := b["text"].(string)
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// Claude loads the skill natively from hub's temp dir (passed as --add-dir):
// it lists the skill's name and description among those available to its
// Skill tool, the body stays out of the request until the model invokes
// the skill, the user's prompt goes through as typed, and the temp dir is
// gone after the run.
func TestSkills_Claude(t *testing.T) {
	mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Noted."})
	defer mock.Close()
	home, cwd := t.TempDir(), t.TempDir()
	skillsE2EProject(t, cwd)
	before := skillsE2ETree(t, cwd)
	// trusted: an untrusted project skill only goes into the prompt (TestRun_UntrustedProjectSkillNeverPlacedNatively)
	r := runHub(t, home, claudeHubConfig(t, mock), "", "--agent", "claude", "--cwd", cwd, "--trust-project", "--skill", skillsE2EName, "--format", "jsonl", "take a note")
	if r.code != 0 || !strings.Contains(runText(r), "Noted.") {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, e2eTail(r.stderr, 30))
	}
	reqs := mock.Requests()
	if len(reqs) == 0 {
		t.Fatal("claude sent no request")
	}
	body := string(reqs[0].Body)
	if !strings.Contains(body, "- "+skillsE2EName+": "+skillsE2EDesc) {
		t.Errorf("skill %q is not in claude's list of available skills", skillsE2EName)
	}
	if strings.Contains(body, skillsE2EBody) {
		t.Errorf("the skill body was sent before the model asked for it")
	}
	if texts := claudeUserTexts(reqs[0]); !slices.Contains(texts, "take a note") {
		t.Errorf("the user's prompt did not go through as typed: %q", texts)
	}
	if tmp := skillsE2ETempDir.FindString(body); tmp == "" {
		t.Errorf("no hub-skills temp dir named in the request")
	} else if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("skills temp dir %s left after the run (stat err %v)", tmp, err)
	}
	if after := skillsE2ETree(t, cwd); !slices.Equal(before, after) {
		t.Errorf("project dir changed: before %q, after %q", before, after)
	}
}

// Over ACP hub announces the project's skills as slash commands and expands
// `/name args` into the skill in front of the args.
func TestSkills_ClaudeACPCommand(t *testing.T) {
	mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Noted."})
	defer mock.Close()
	cwd := t.TempDir()
	skillsE2EProject(t, cwd)
	before := skillsE2ETree(t, cwd)
	h := startHub(t, claudeHubConfig(t, mock), nil)
	h.initialize(nil)
	sid := h.newSession(cwd)
	announced := func(u map[string]any) bool {
		cmds, _ := u["availableCommands"].([]any)
		for _, c := range cmds {
			if c, ok := c.(map[string]any); ok && c["name"] == skillsE2EName {
				return true
			}
		}
		return false
	}
	if _, ok := h.waitUpdate(announced, e2eCallTimeout); !ok {
		t.Fatalf("skill %q never announced as a command\n%s", skillsE2EName, e2eTail(h.stderr(), 30))
	}
	stop, updates, err := h.prompt(sid, "/"+skillsE2EName+" take a note")
	if err != nil || stop != "end_turn" || !strings.Contains(claudeChunkText(updates), "Noted.") {
		t.Fatalf("stop=%q err=%v text %q\n%s", stop, err, claudeChunkText(updates), e2eTail(h.stderr(), 30))
	}
	reqs := mock.Requests()
	if len(reqs) == 0 {
		t.Fatal("claude sent no request")
	}
	expanded := false
	for _, s := range claudeUserTexts(reqs[len(reqs)-1]) {
		i, j := strings.Index(s, skillsE2EBody), strings.LastIndex(s, "take a note")
		expanded = expanded || (i >= 0 && j > i && !strings.HasPrefix(s, "/"))
	}
	if !expanded {
		t.Errorf("want the skill body before the args in the prompt; user texts: %q", claudeUserTexts(reqs[len(reqs)-1]))
	}
	if after := skillsE2ETree(t, cwd); !slices.Equal(before, after) {
		t.Errorf("project dir changed: before %q, after %q", before, after)
	}
}
