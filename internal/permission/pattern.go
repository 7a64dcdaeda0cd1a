package permission

import (
	"fmt"
	"strings"
)

// AllowRule parses an allow pattern in Claude's permission syntax, as
// --allow-tool and a skill's allowed-tools give them: "Bash(go test:*)"
// (a command prefix), "Bash(npm run build)" (that command), "Read(src/**)"
// or "Edit(docs/*.md)" (a path glob), "WebFetch" (the whole tool). name
// says where it comes from.
func AllowRule(pattern, name string) (Rule, error) {
	pattern = strings.TrimSpace(pattern)
	tool, arg, hasArg := strings.Cut(pattern, "(")
	tool = strings.TrimSpace(tool)
	if tool == "" || (hasArg && !strings.HasSuffix(arg, ")")) {
		return Rule{}, fmt.Errorf("%w: %q is not Tool or Tool(argument)", ErrInvalidRule, pattern)
	}
	r := Rule{Tool: tool, Decision: Allow, Name: name}
	if !hasArg {
		return r, nil
	}
	arg = strings.TrimSpace(strings.TrimSuffix(arg, ")"))
	switch toolKinds[strings.ToLower(tool)] {
	case "execute":
		r.Command = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(arg, "*"), ":"))
		if r.Command == "" {
			return Rule{}, fmt.Errorf("%w: %q names no command", ErrInvalidRule, pattern)
		}
	default:
		g, err := pathPattern(arg)
		if err != nil {
			return Rule{}, err
		}
		r.Path, r.pathGlob = arg, g
	}
	return r, nil
}
