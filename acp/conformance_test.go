package acp

import (
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
)

// C14, C29: with an agent that takes no images, image and audio prompt
// blocks are not advertised and are rejected with -32602; text and
// resource_link still work.
func TestPromptBlocks_UnadvertisedRejected(t *testing.T) {
	c := newClient(t, "", func(o *Options) {
		a := replay.New("")
		a.Caps.Images, a.Caps.Audio = false, false
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(a)
	})
	var init InitializeResponse
	c.must("initialize", InitializeRequest{ProtocolVersion: 1}, &init)
	if init.AgentCapabilities.PromptCapabilities.Image || init.AgentCapabilities.PromptCapabilities.Audio {
		t.Fatalf("advertised %+v", init.AgentCapabilities.PromptCapabilities)
	}
	sid := c.newSession(t.TempDir())
	for _, b := range []ContentBlock{{Type: BlockImage, Data: "aGk=", MimeType: "image/png"}, {Type: BlockAudio, Data: "aGk=", MimeType: "audio/wav"}} {
		if _, e := c.call("session/prompt", PromptRequest{SessionID: sid, Prompt: []ContentBlock{b}}); e == nil || e.Code != CodeInvalidParams {
			t.Errorf("%s block: %v", b.Type, e)
		}
	}
	var r PromptResponse
	c.must("session/prompt", PromptRequest{SessionID: sid, Prompt: []ContentBlock{TextBlock("hi"), {Type: BlockResourceLink, URI: "file:///a", Name: "a"}}}, &r)
	if r.StopReason != StopEndTurn {
		t.Fatalf("stop %q", r.StopReason)
	}
}

// C27: whatever the adapter reports, stopReason is one of the five values.
func TestStopReason_AlwaysFromEnum(t *testing.T) {
	for in, want := range map[adapters.StopReason]string{
		"end_turn": StopEndTurn, "max_tokens": StopMaxTokens, "max_turn_requests": StopMaxTurnRequests,
		"refusal": StopRefusal, "cancelled": StopCancelled, "": StopEndTurn, "error": StopEndTurn, "tool_use": StopEndTurn,
	} {
		if got := stopReason(in); got != want {
			t.Errorf("stopReason(%q) = %q, want %q", in, got, want)
		}
	}
}

// C35: permission options sent to the editor are non-empty, with unique ids
// and kinds from the four values.
func TestPermissionOptions_ValidForEditor(t *testing.T) {
	opt := func(id string, k adapters.PermissionOptionKind) adapters.PermissionOption {
		return adapters.PermissionOption{ID: id, Name: id, Kind: k}
	}
	cases := []struct {
		name string
		in   []adapters.PermissionOption
		want string
	}{
		{"none gives defaults", nil, defaultIDs()},
		{"duplicates and empty ids dropped", []adapters.PermissionOption{opt("a", adapters.AllowOnce), opt("a", adapters.RejectOnce), opt("", adapters.RejectOnce), opt("b", adapters.RejectOnce)}, "a:allow_once b:reject_once"},
		{"unknown kind dropped", []adapters.PermissionOption{opt("a", "allow_forever"), opt("b", adapters.RejectAlways)}, "b:reject_always"},
		{"only invalid gives defaults", []adapters.PermissionOption{opt("a", "maybe")}, defaultIDs()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, o := range permissionOptions(tc.in) {
				got = append(got, o.OptionID+":"+o.Kind)
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("got %v want %s", got, tc.want)
			}
		})
	}
}

func defaultIDs() string {
	var s []string
	for _, o := range adapters.DefaultPermissionOptions() {
		s = append(s, o.ID+":"+string(o.Kind))
	}
	return strings.Join(s, " ")
}

// C41: $/cancel_request for the client's in-flight prompt is ignored; the
// prompt is still answered exactly once (here after session/cancel).
func TestCancelRequest_PromptAnsweredOnce(t *testing.T) {
	c := newClient(t, scriptFile(t, `{"wait_cancel":true}`))
	sid, _ := c.start(t)
	c.sendID("70", "session/prompt", promptReq(sid, "x"))
	c.notify("$/cancel_request", map[string]any{"requestId": 70})
	c.notify("session/cancel", SessionIDRequest{SessionID: sid})
	c.waitFor(t, func() bool { return c.indexOfResponse("70") >= 0 })
	c.must("session/list", ListSessionsRequest{}, nil) // later traffic flushes any duplicate
	time.Sleep(20 * time.Millisecond)
	n := 0
	for _, m := range c.messages() {
		if m.Method == "" && string(m.ID) == "70" {
			n++
			if m.Error != nil || !strings.Contains(string(m.Result), StopCancelled) {
				t.Fatalf("prompt answered %s %v", m.Result, m.Error)
			}
		}
	}
	if n != 1 {
		t.Fatalf("prompt answered %d times", n)
	}
}

// C21: the advertised current mode and every select option's current value
// are among their choices.
func TestConfigOptions_CurrentValuesValid(t *testing.T) {
	c := newClient(t, "")
	c.init(ClientCapabilities{})
	var r NewSessionResponse
	c.must("session/new", NewSessionRequest{Cwd: t.TempDir(), McpServers: []McpServer{}}, &r)
	if r.Modes == nil || !hasMode(r.Modes.AvailableModes, r.Modes.CurrentModeID) {
		t.Fatalf("modes %+v", r.Modes)
	}
	for _, o := range r.ConfigOptions {
		if !hasValue(o, o.CurrentValue) {
			t.Errorf("option %s current %q not among its values", o.ID, o.CurrentValue)
		}
	}
}

func hasMode(modes []SessionMode, id string) bool {
	for _, m := range modes {
		if m.ID == id {
			return true
		}
	}
	return false
}

func hasValue(o SessionConfigOption, v string) bool {
	if o.Type != "select" {
		return true
	}
	all := o.Options
	for _, g := range o.Groups {
		all = append(all, g.Options...)
	}
	for _, x := range all {
		if x.Value == v {
			return true
		}
	}
	return false
}
