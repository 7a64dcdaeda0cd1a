package codex

import (
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/skills"
)

// skillRoots are the folders app-server's skills/extraRoots/set adds for
// the session's skills. Codex skips hidden folders while scanning a root,
// so each PlaceTemp root is named by its .agents/skills folder.
func skillRoots(dirs []string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, skills.SharedDir(d))
	}
	return out
}

// skillPrompt renders the session's skills for the first prompt, for the
// exec fallback and for a codex without skills/extraRoots/set.
func skillPrompt(dirs []string) (string, error) {
	var list []skills.Skill
	for _, d := range dirs {
		l, err := skills.Placed(d)
		if err != nil {
			return "", err
		}
		list = append(list, l...)
	}
	if len(list) == 0 {
		return "", nil
	}
	return skills.PromptPrefix(list), nil
}

// withSkills returns prompt with prefix in front of its text.
func withSkills(prompt []adapters.Content, prefix string) []adapters.Content {
	if prefix == "" {
		return prompt
	}
	out := append([]adapters.Content{}, prompt...)
	if len(out) > 0 && out[0].Type == adapters.ContentText {
		if t := strings.TrimSpace(out[0].Text); t != "" {
			prefix += "\n\n" + out[0].Text
		}
		out[0].Text = prefix
		return out
	}
	return append([]adapters.Content{{Type: adapters.ContentText, Text: prefix}}, out...)
}
