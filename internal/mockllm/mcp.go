package mockllm

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// mcpPrefix marks a scripted tool name as an MCP server's tool, resolved
// against the tools the request offers.
const mcpPrefix = "mcp-tool:"

// MCPTool names tool of the MCP server the agent knows as server, for a
// scripted tool call. The server answers with the name the agent gave that
// tool (claude's mcp__server__tool, server__tool, or the bare name), so a
// script need not know each agent's convention; when the request offers no
// such tool, the turn fails with a 400 naming the tools it had.
func MCPTool(server, tool string) string { return mcpPrefix + server + "/" + tool }

// resolveMCP returns name as the agent offered it; ok is false when name
// is an MCP tool the request does not offer.
func resolveMCP(name string, offered []string) (string, bool) {
	ref, isMCP := strings.CutPrefix(name, mcpPrefix)
	if !isMCP {
		return name, true
	}
	server, tool, _ := strings.Cut(ref, "/")
	for _, c := range []string{"mcp__" + server + "__" + tool, server + "__" + tool, server + "." + tool, tool} {
		if slices.Contains(offered, c) {
			return c, true
		}
	}
	return "", false
}

// resolveCalls returns a copy of a turn's tool calls with each name (at
// name) resolved against the request's tools; msg says which MCP tool
// they lack.
func resolveCalls[C any](calls []C, name func(*C) *string, tools []map[string]any) (out []C, msg string, ok bool) {
	offered := toolNames(tools)
	out = slices.Clone(calls)
	for i := range out {
		p := name(&out[i])
		if *p, ok = resolveMCP(*p, offered); !ok {
			return nil, fmt.Sprintf("mockllm: the request offers no MCP tool %s (tools: %s)",
				strings.TrimPrefix(*name(&calls[i]), mcpPrefix), strings.Join(offered, ", ")), false
		}
	}
	return out, "", true
}

// toolNames are the names of tools in a request, at the JSON path the API
// uses (top-level "name", or "function"."name").
func toolNames(tools []map[string]any) []string {
	var out []string
	for _, t := range tools {
		f, _ := t["function"].(map[string]any)
		if n, ok := cmp.Or(t["name"], f["name"]).(string); ok {
			out = append(out, n)
		}
	}
	return out
}
