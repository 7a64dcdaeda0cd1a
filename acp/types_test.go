package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// goldenTypes maps a schema $defs name to a fresh Go value of that type.
var goldenTypes = map[string]func() any{
	"InitializeRequest":              func() any { return &schema.InitializeRequest{} },
	"InitializeResponse":             func() any { return &schema.InitializeResponse{} },
	"NewSessionRequest":              func() any { return &schema.NewSessionRequest{} },
	"NewSessionResponse":             func() any { return &schema.NewSessionResponse{} },
	"LoadSessionRequest":             func() any { return &schema.LoadSessionRequest{} },
	"LoadSessionResponse":            func() any { return &schema.LoadSessionResponse{} },
	"ListSessionsRequest":            func() any { return &schema.ListSessionsRequest{} },
	"ListSessionsResponse":           func() any { return &schema.ListSessionsResponse{} },
	"SetSessionModeRequest":          func() any { return &schema.SetSessionModeRequest{} },
	"SetSessionConfigOptionRequest":  func() any { return &schema.SetSessionConfigOptionRequest{} },
	"SetSessionConfigOptionResponse": func() any { return &schema.SetSessionConfigOptionResponse{} },
	"PromptRequest":                  func() any { return &schema.PromptRequest{} },
	"PromptResponse":                 func() any { return &schema.PromptResponse{} },
	"RequestPermissionRequest":       func() any { return &schema.RequestPermissionRequest{} },
	"RequestPermissionResponse":      func() any { return &schema.RequestPermissionResponse{} },
	"ReadTextFileRequest":            func() any { return &schema.ReadTextFileRequest{} },
	"ReadTextFileResponse":           func() any { return &schema.ReadTextFileResponse{} },
	"WriteTextFileRequest":           func() any { return &schema.WriteTextFileRequest{} },
	"CreateTerminalRequest":          func() any { return &schema.CreateTerminalRequest{} },
	"CreateTerminalResponse":         func() any { return &schema.CreateTerminalResponse{} },
	"TerminalOutputRequest":          func() any { return &schema.TerminalRequest{} },
	"TerminalOutputResponse":         func() any { return &schema.TerminalOutputResponse{} },
	"WaitForTerminalExitResponse":    func() any { return &schema.WaitForTerminalExitResponse{} },
	"Error":                          func() any { return &jsonrpc.Error{} },
	"CancelNotification":             func() any { return &schema.SessionIDRequest{} },
	"SessionNotification":            func() any { return &schema.SessionNotification{} },
	"AuthenticateRequest":            func() any { return &schema.AuthenticateRequest{} },
	"ResumeSessionRequest":           func() any { return &schema.ResumeSessionRequest{} },
	"ResumeSessionResponse":          func() any { return &schema.ResumeSessionResponse{} },
	"CloseSessionRequest":            func() any { return &schema.SessionIDRequest{} },
	"DeleteSessionRequest":           func() any { return &schema.SessionIDRequest{} },
	"WaitForTerminalExitRequest":     func() any { return &schema.TerminalRequest{} },
	"KillTerminalRequest":            func() any { return &schema.TerminalRequest{} },
	"ReleaseTerminalRequest":         func() any { return &schema.TerminalRequest{} },
	// Results that are always {} (hub answers with struct{}{}).
	"AuthenticateResponse":    func() any { return &struct{}{} },
	"CloseSessionResponse":    func() any { return &struct{}{} },
	"DeleteSessionResponse":   func() any { return &struct{}{} },
	"SetSessionModeResponse":  func() any { return &struct{}{} },
	"WriteTextFileResponse":   func() any { return &struct{}{} },
	"KillTerminalResponse":    func() any { return &struct{}{} },
	"ReleaseTerminalResponse": func() any { return &struct{}{} },
}

// hubMethods are the methods whose params and results hub puts on or reads
// from the wire: the ones it serves, and the client methods it calls (as an
// agent, or as the client of ACP agents through adapters/acpclient).
func hubMethods() []string {
	out := []string{"session/cancel", "session/update", "session/request_permission",
		"fs/read_text_file", "fs/write_text_file", "terminal/create", "terminal/output",
		"terminal/wait_for_exit", "terminal/kill", "terminal/release"}
	for m := range methods {
		out = append(out, m)
	}
	return out
}

// Every protocol type of a method hub uses (by the schema's x-method) has a
// Go type and at least one golden file, so each is round-tripped and
// schema-validated by TestGolden_RoundTripAndSchema.
func TestGolden_EveryProtocolTypeCovered(t *testing.T) {
	requireSchema(t)
	raw, err := os.ReadFile(schemaPath())
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs map[string]struct {
			Method string `json:"x-method"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, m := range hubMethods() {
		used[m] = true
	}
	n := 0
	for def, d := range schema.Defs {
		if !used[d.Method] {
			continue
		}
		n++
		if _, ok := goldenTypes[def]; !ok {
			t.Errorf("$defs/%s (%s) has no Go type in goldenTypes", def, d.Method)
			continue
		}
		if files, _ := filepath.Glob("../testdata/acp/golden/" + def + "__*.json"); len(files) == 0 {
			t.Errorf("$defs/%s (%s) has no golden file in testdata/acp/golden", def, d.Method)
		}
	}
	if n < 30 {
		t.Fatalf("only %d protocol types found for hub's methods; is x-method still in the schema?", n)
	}
}

func TestGolden_RoundTripAndSchema(t *testing.T) {
	files, err := filepath.Glob("../testdata/acp/golden/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	if schemaPath() == "" {
		t.Log("ACP schema not found (../shared/acp/schema.json, $ACP_SCHEMA or the SDK under .cache/e2e): round trips only, no schema validation")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		def, _, _ := strings.Cut(name, "__")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			mk, ok := goldenTypes[def]
			if !ok {
				t.Fatalf("no Go type for $defs/%s", def)
			}
			v := mk()
			if err := json.Unmarshal(data, v); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if !jsonEqual(data, out) {
				t.Errorf("round trip differs\n got: %s\nwant: %s", out, data)
			}
			validateDef(t, def, data)
			validateDef(t, def, out)
		})
	}
}

func TestContentBlock_RejectsUnknownType(t *testing.T) {
	for _, in := range []string{
		`{"type":"video","data":"x"}`,
		`{"type":"image","data":"x"}`,
		`{"type":"resource_link","name":"a"}`,
		`{"type":"text"}`,
	} {
		var c schema.ContentBlock
		if err := json.Unmarshal([]byte(in), &c); err == nil {
			t.Errorf("%s: accepted", in)
		}
	}
}

func TestSessionUpdate_RejectsUnknownKind(t *testing.T) {
	var u schema.SessionUpdate
	if err := json.Unmarshal([]byte(`{"sessionUpdate":"nope"}`), &u); err == nil {
		t.Fatal("unknown kind accepted")
	}
}

func TestSessionUpdate_EmptyMarshalFails(t *testing.T) {
	if _, err := json.Marshal(schema.SessionUpdate{}); err == nil {
		t.Fatal("empty update marshalled")
	}
}

func TestUsageUpdate_KeepsZeroRequiredFields(t *testing.T) {
	b, _ := json.Marshal(schema.SessionNotification{SessionID: "s", Update: schema.SessionUpdate{Usage: &schema.UsageUpdate{}}})
	if !strings.Contains(string(b), `"used":0`) || !strings.Contains(string(b), `"size":0`) {
		t.Fatalf("zero used/size dropped: %s", b)
	}
	validateDef(t, "SessionNotification", b)
}

func TestConfigOption_GroupedAndBoolean(t *testing.T) {
	in := `[{"id":"m","name":"M","type":"select","currentValue":"a","options":[{"group":"g","name":"G","options":[{"value":"a","name":"A"}]}]},{"id":"b","name":"B","type":"boolean","currentValue":true}]`
	var opts []schema.SessionConfigOption
	if err := json.Unmarshal([]byte(in), &opts); err != nil {
		t.Fatal(err)
	}
	if len(opts[0].Groups) != 1 || opts[0].Values()[0] != "a" || !opts[1].BoolValue {
		t.Fatalf("decoded %+v", opts)
	}
	out, _ := json.Marshal(opts)
	if !jsonEqual([]byte(in), out) {
		t.Fatalf("round trip: %s", out)
	}
}
