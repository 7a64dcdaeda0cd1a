package proc

import (
	"regexp"
	"strings"
)

// npm installs a CLI on Windows as a .cmd shim. cmd.exe quotes unlike Go,
// so a prompt with quotes, & or % would reach the agent changed (or run as a
// command); hub starts what the shim starts instead: node with the
// package's script, or the package's own binary.

// shimTarget matches the program a cmd-shim runs: "%dp0%\<path>" %*.
var shimTarget = regexp.MustCompile(`"%dp0%\\([^"]+)"\s+%\*`)

// shimArgv returns the argv that the npm shim at path (its text in body)
// runs with args; false when body is not an npm shim.
func shimArgv(path, body string, args []string, exists func(string) bool, lookPath func(string) (string, error)) ([]string, bool) {
	m := shimTarget.FindAllStringSubmatch(body, -1)
	if len(m) == 0 {
		return nil, false
	}
	dir := "." // filepath.Dir of a Windows path, on any OS
	if i := strings.LastIndexAny(path, `\/`); i >= 0 {
		dir = path[:i]
	}
	target := dir + `\` + m[len(m)-1][1]
	if !strings.Contains(body, `"%_prog%"`) {
		return append([]string{target}, args...), true
	}
	node := dir + `\node.exe`
	if !exists(node) {
		p, err := lookPath("node")
		if err != nil {
			return nil, false
		}
		node = p
	}
	return append([]string{node, target}, args...), true
}
