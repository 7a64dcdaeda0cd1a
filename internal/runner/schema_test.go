package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/mockllm"
)

const reviewSchema = `{
  "type": "object",
  "properties": {"verdict": {"enum": ["approve", "reject"]}, "score": {"type": "number"}},
  "required": ["verdict", "score"],
  "additionalProperties": false
}`

const validReview = `{"verdict":"approve","score":9}`

func answer(s string) fakeScript { return steps(text(s), done(adapters.StopEndTurn)) }

// --output-schema: a valid final answer is printed as JSON (text) or put
// in the summary's output (jsonl); an invalid or missing one gets one
// repair turn on the same session, naming the first mismatch; a second
// invalid answer exits 8 naming it on one stderr line.
func TestRun_OutputSchemaAnswers(t *testing.T) {
	tests := []struct {
		name    string
		turns   []fakeScript
		want    int
		prompts int    // prompts the session got
		repair  string // the repair prompt names this
		stdout  string // text format
		errLine string // text format's stderr line for exit 10
	}{
		{name: "valid", turns: []fakeScript{answer(validReview)}, want: conversation.ExitOK, prompts: 1, stdout: validReview + "\n"},
		{name: "fenced and indented", turns: []fakeScript{answer("```json\n{\n  \"verdict\": \"reject\",\n  \"score\": 1\n}\n```")},
			want: conversation.ExitOK, prompts: 1, stdout: `{"verdict":"reject","score":1}` + "\n"},
		{name: "after narration and a tool call", turns: []fakeScript{steps(text("Reading."), toolCall("t1"), text(validReview), done(adapters.StopEndTurn))},
			want: conversation.ExitOK, prompts: 1, stdout: validReview + "\n"},
		{name: "invalid then repaired", turns: []fakeScript{answer(`{"verdict":"maybe","score":9}`), answer(validReview)},
			want: conversation.ExitOK, prompts: 2, repair: "at '/verdict'", stdout: validReview + "\n"},
		{name: "missing then repaired", turns: []fakeScript{steps(toolCall("t1"), done(adapters.StopEndTurn)), answer(validReview)},
			want: conversation.ExitOK, prompts: 2, repair: "the answer was empty", stdout: validReview + "\n"},
		{name: "invalid twice", turns: []fakeScript{answer("Looks fine to me."), answer(`{"verdict":"approve"}`)},
			want: conversation.ExitSchema, prompts: 2, repair: "the answer is not JSON",
			errLine: "hub: the answer does not match --output-schema, also after a repair turn: at '': missing property 'score' (exit 10)\n"},
	}
	for _, tt := range tests {
		for _, format := range []Format{FormatText, FormatJSONL} {
			t.Run(tt.name+"/"+string(format), func(t *testing.T) {
				a := &fakeAdapter{name: "fake", turns: tt.turns, script: answer("unexpected prompt")}
				s, out, errOut := runFake(t, context.Background(), a, func(o *Options) {
					o.Format, o.OutputSchema = format, json.RawMessage(reviewSchema)
				})
				if s.ExitCode != tt.want {
					t.Fatalf("exit %d, want %d (%s)\nstderr:\n%s", s.ExitCode, tt.want, s.Error, errOut)
				}
				a.mu.Lock()
				prompts := a.prompts
				a.mu.Unlock()
				if len(prompts) != tt.prompts {
					t.Fatalf("%d prompts, want %d", len(prompts), tt.prompts)
				}
				if tt.repair != "" {
					p := adapters.PromptText(prompts[1])
					if !strings.HasPrefix(p, "Your answer did not match the schema: ") || !strings.Contains(p, tt.repair) ||
						!strings.HasSuffix(p, "Answer again with only JSON matching the schema.") {
						t.Errorf("repair prompt %q, want it to name %q", p, tt.repair)
					}
				}
				wantOutput := strings.TrimSuffix(tt.stdout, "\n")
				if string(s.Output) != wantOutput {
					t.Errorf("summary output %s, want %s", s.Output, wantOutput)
				}
				switch format {
				case FormatText:
					if tt.stdout != "" && out != tt.stdout {
						t.Errorf("stdout %q, want %q", out, tt.stdout)
					}
					if tt.errLine != "" && !strings.HasSuffix(errOut, tt.errLine) {
						t.Errorf("stderr does not end with %q:\n%s", tt.errLine, errOut)
					}
				case FormatJSONL:
					if starts := strings.Count(out, `"type":"turn_start"`); starts != tt.prompts {
						t.Errorf("%d turn_start lines, want one per prompt (%d):\n%s", starts, tt.prompts, out)
					}
					if wantOutput != "" && !strings.Contains(out, `"output":`+wantOutput) {
						t.Errorf("summary lacks \"output\":%s:\n%s", wantOutput, out)
					}
				}
			})
		}
	}
}

// The schema reaches each agent its own way: its output-schema channel,
// else an instruction at system level, else one leading the prompt.
func TestRun_OutputSchemaReachesTheAgent(t *testing.T) {
	tests := []struct {
		name                     string
		caps                     adapters.Capabilities
		inOptions, inInstruction bool
		inPrompt                 bool
	}{
		{name: "its own channel", caps: adapters.Capabilities{OutputSchema: true}, inOptions: true},
		{name: "system-level instructions", caps: adapters.Capabilities{Instructions: true}, inInstruction: true},
		{name: "the prompt", inPrompt: true},
	}
	compact := `{"type":"object","properties":{"verdict":{"enum":["approve","reject"]},"score":{"type":"number"}},"required":["verdict","score"],"additionalProperties":false}`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &fakeAdapter{name: "fake", caps: tt.caps, script: answer(validReview)}
			s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.OutputSchema = json.RawMessage(reviewSchema) })
			if s.ExitCode != conversation.ExitOK {
				t.Fatalf("exit %d (%s)", s.ExitCode, s.Error)
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			prompt := adapters.PromptText(a.prompt)
			if got := string(a.opts.OutputSchema) == compact; got != tt.inOptions {
				t.Errorf("SessionOptions.OutputSchema %s", a.opts.OutputSchema)
			}
			if got := strings.Contains(a.opts.Instructions, compact); got != tt.inInstruction {
				t.Errorf("instructions %q", a.opts.Instructions)
			}
			if got := strings.HasPrefix(prompt, "<output-format>\n") && strings.Contains(prompt, compact) && strings.HasSuffix(prompt, "hi"); got != tt.inPrompt {
				t.Errorf("prompt %q", prompt)
			}
		})
	}
}

// A schema that is not JSON, not a valid schema, or reaches outside
// itself is a usage error before the agent starts.
func TestRun_OutputSchemaInvalidIsAUsageError(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"not JSON", `{"type":`, "--output-schema is not JSON"},
		{"not a schema", `{"type":"nonsense"}`, "--output-schema is not a valid JSON Schema: at '/type'"},
		{"a file reference", `{"$ref":"file:///etc/passwd"}`, "--output-schema is not a valid JSON Schema"},
		{"a network reference", `{"$ref":"https://example.com/s.json"}`, "--output-schema is not a valid JSON Schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started := make(chan struct{})
			a := &fakeAdapter{name: "fake", script: answer(validReview), started: started}
			s, _, errOut := runFake(t, context.Background(), a, func(o *Options) { o.OutputSchema = json.RawMessage(tt.schema) })
			if s.ExitCode != conversation.ExitUsage || !strings.Contains(s.Error, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d error %q, want exit 2 naming %q on one line\nstderr:\n%s", s.ExitCode, s.Error, tt.want, errOut)
			}
			select {
			case <-started:
				t.Fatal("the agent started")
			default:
			}
		})
	}
}

// The replay agent and the native loop on the mock LLM: valid, repaired,
// and invalid twice; the native loop sends response_format json_schema
// where its profile says the provider takes it, else the instruction in
// its system message, and the repair prompt as the next user message.
func TestRun_OutputSchemaReplayAndNative(t *testing.T) {
	type nativeRun struct {
		jsonSchema bool
		turns      []string
	}
	tests := []struct {
		name   string
		replay string     // a script in testdata/replay
		native *nativeRun // else the native loop
		want   int
		output string
		errHas string
	}{
		{name: "replay valid", replay: "schema-valid", want: conversation.ExitOK, output: `{"verdict":"reject","score":2}`},
		{name: "replay repaired", replay: "schema-repaired", want: conversation.ExitOK, output: validReview},
		{name: "replay invalid twice", replay: "schema-invalid", want: conversation.ExitSchema, errHas: "at '/score': got string, want number"},
		{name: "native response_format valid", native: &nativeRun{jsonSchema: true, turns: []string{validReview}}, want: conversation.ExitOK, output: validReview},
		{name: "native instruction valid", native: &nativeRun{turns: []string{validReview}}, want: conversation.ExitOK, output: validReview},
		{name: "native repaired", native: &nativeRun{jsonSchema: true, turns: []string{"approve, 9", validReview}}, want: conversation.ExitOK, output: validReview},
		{name: "native invalid twice", native: &nativeRun{turns: []string{"approve, 9", `{"verdict":"approve","score":9,"why":"x"}`}},
			want: conversation.ExitSchema, errHas: "at '': additional properties 'why' not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := adapters.NewRegistry()
			agent := replay.Name
			var srv *mockllm.OpenAIServer
			if tt.native != nil {
				var turns []mockllm.OpenAITurn
				for _, text := range tt.native.turns {
					turns = append(turns, mockllm.OpenAITurn{Text: text})
				}
				srv = mockllm.NewOpenAIServer(turns...)
				defer srv.Close()
				agent = "openai"
				reg.Register(openai.New(openai.Profile{Name: agent, BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true, JSONSchema: tt.native.jsonSchema}, openai.Options{}))
			} else {
				reg.Register(replay.New(filepath.Join("testdata", "replay", tt.replay+".jsonl")))
			}
			var out, errb bytes.Buffer
			s := Run(context.Background(), Options{Registry: reg, Agent: agent, Cwd: t.TempDir(), Prompt: "review", Format: FormatJSONL,
				OutputSchema: json.RawMessage(reviewSchema), Stdout: &out, Stderr: &errb, Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
			if s.ExitCode != tt.want || string(s.Output) != tt.output || !strings.Contains(s.Error, tt.errHas) {
				t.Fatalf("exit %d output %s error %q, want exit %d output %s error naming %q\n%s", s.ExitCode, s.Output, s.Error, tt.want, tt.output, tt.errHas, out.String())
			}
			if srv == nil {
				return
			}
			reqs := srv.Requests()
			if len(reqs) != len(tt.native.turns) {
				t.Fatalf("%d model requests, want %d", len(reqs), len(tt.native.turns))
			}
			var body struct {
				ResponseFormat *struct {
					Type       string `json:"type"`
					JSONSchema struct {
						Name   string          `json:"name"`
						Schema json.RawMessage `json:"schema"`
						Strict bool            `json:"strict"`
					} `json:"json_schema"`
				} `json:"response_format"`
			}
			if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			system, _ := reqs[0].Messages[0]["content"].(string)
			if f := body.ResponseFormat; tt.native.jsonSchema != (f != nil && f.Type == "json_schema" && f.JSONSchema.Strict && strings.Contains(string(f.JSONSchema.Schema), `"additionalProperties":false`)) {
				t.Errorf("response_format %s", reqs[0].Body)
			}
			if inSystem := strings.Contains(system, `"required":["verdict","score"]`); inSystem == tt.native.jsonSchema {
				t.Errorf("schema in the system message: %v, response_format: %v", inSystem, tt.native.jsonSchema)
			}
			if len(reqs) > 1 {
				msgs := reqs[1].Messages
				last, _ := msgs[len(msgs)-1]["content"].(string)
				if msgs[len(msgs)-1]["role"] != "user" || !strings.HasPrefix(last, "Your answer did not match the schema") {
					t.Errorf("the repair request's last message: %v", msgs[len(msgs)-1])
				}
			}
		})
	}
}

func TestStripFence(t *testing.T) {
	for in, want := range map[string]string{
		"```json\n{\"a\":1}\n```":    `{"a":1}`,
		"  ```\n[1]\n```\n":          `[1]`,
		`{"a":"x"}`:                  `{"a":"x"}`,
		"```json {\"a\":1}```":       "```json {\"a\":1}```", // one line: no fence to drop
		"text\n```json\n{}\n```":     "text\n```json\n{}\n```",
		"```json\n{\"a\":\"```\"}\n": "```json\n{\"a\":\"```\"}", // unclosed
	} {
		if got := stripFence(in); got != want {
			t.Errorf("stripFence(%q) = %q, want %q", in, got, want)
		}
	}
}
