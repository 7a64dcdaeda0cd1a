package openai

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai/tools"
)

// needHostShell skips t where the bash tool's shell does not run: on
// Windows without Git Bash the tool runs commands with PowerShell, which
// Wine lacks (its powershell.exe is a stub).
func needHostShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "windows" {
		return
	}
	env, err := tools.NewEnv(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := env.Prepare("bash", json.RawMessage(`{"command":"echo probe"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res := p.Run(context.Background(), func(adapters.ToolCall) {}); !strings.Contains(res.Output, "probe") {
		t.Skipf("the bash tool's shell (PowerShell on Windows without Git Bash) does not run here: %q", res.Output)
	}
}
