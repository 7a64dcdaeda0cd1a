package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

// schemaURL names the schema inside the compiler; it has no other
// resources, so a $ref must point inside the schema.
const schemaURL = "mem://hub/output-schema.json"

// compileSchema compiles OutputSchema (draft 2020-12 unless it names
// another) and leaves it compact, for the agents; a schema that does not
// compile is a usage error naming why.
func (o *Options) compileSchema() error {
	if len(o.OutputSchema) == 0 {
		return nil
	}
	var raw bytes.Buffer
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(o.OutputSchema))
	if err == nil {
		err = json.Compact(&raw, o.OutputSchema)
	}
	if err != nil {
		return fmt.Errorf("%w: --output-schema is not JSON: %v", ErrUsage, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{}) // no files, no network: the agents get the schema alone
	if err = c.AddResource(schemaURL, doc); err == nil {
		o.schema, err = c.Compile(schemaURL)
	}
	if err != nil {
		return fmt.Errorf("%w: --output-schema is not a valid JSON Schema: %s", ErrUsage, firstError(err))
	}
	o.OutputSchema = raw.Bytes()
	return nil
}

// checkAnswer validates an answer (a ```json fence around it dropped)
// against sch and returns it as compact JSON.
func checkAnswer(sch *jsonschema.Schema, answer string) ([]byte, error) {
	answer = stripFence(answer)
	if answer == "" {
		return nil, errors.New("the answer was empty")
	}
	var out bytes.Buffer
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(answer))
	if err == nil {
		err = json.Compact(&out, []byte(answer))
	}
	if err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %w", err)
	}
	if err := sch.Validate(v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// firstError is err's first mismatch on one line: the first leaf of a
// validation error ("at '/score': got string, want number").
func firstError(err error) string {
	if se, ok := errors.AsType[*jsonschema.SchemaValidationError](err); ok {
		err = se.Err
	}
	ve, ok := errors.AsType[*jsonschema.ValidationError](err)
	if !ok {
		return oneLine(err.Error())
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return oneLine(ve.Error())
}

// stripFence drops a Markdown code fence wrapping the whole answer.
func stripFence(s string) string {
	s = strings.TrimSpace(s)
	body, ok := strings.CutPrefix(s, "```")
	if !ok || !strings.HasSuffix(body, "```") {
		return s
	}
	if _, rest, ok := strings.Cut(body, "\n"); ok { // the info string ("json") ends the first line
		return strings.TrimSpace(strings.TrimSuffix(rest, "```"))
	}
	return s
}

// schemaPrompt holds the agent to the schema: through its own channel
// (Capabilities.OutputSchema), else by an instruction, system-level where
// the agent takes one, else leading the prompt (returned as lead).
func schemaPrompt(so *adapters.SessionOptions, o Options, caps adapters.Capabilities) (lead string) {
	switch {
	case o.schema == nil:
	case caps.OutputSchema:
		so.OutputSchema = o.OutputSchema
	default:
		return instruct(so, caps, "output-format", "Give your final answer as JSON only, with no prose and no code fence around it, matching this JSON Schema:\n"+string(o.OutputSchema))
	}
	return ""
}

// conform validates the final answer of a turn that ended normally. An
// invalid or missing one gets one repair turn through the same pipeline;
// a repaired answer that still does not match sets schemaErr.
func (r *run) conform(ctx context.Context, spec conversation.TurnSpec) {
	if r.o.schema == nil || !r.endedWell() {
		return
	}
	out, err := checkAnswer(r.o.schema, r.digest.Answer())
	if err != nil {
		r.out.progress("the answer does not match --output-schema (%s); asking once more", firstError(err))
		r.digest.NextTurn() // the repair turn's answer is the final one
		spec.Watch, spec.Lead, spec.Prompt = false, nil, adapters.TextPrompt(fmt.Sprintf(
			"Your answer did not match the schema: %s. Answer again with only JSON matching the schema.", firstError(err)))
		if err := r.turn(ctx, spec); err != nil && r.stopCause() == nil {
			r.failure = &adapters.ErrorInfo{Message: fmt.Sprintf("the repair turn for --output-schema failed: %v", err), Fatal: true}
		}
		if !r.endedWell() {
			return // the repair turn's own failure decides the exit code
		}
		out, err = checkAnswer(r.o.schema, r.digest.Answer())
	}
	r.output, r.schemaErr = out, err
}

// endedWell says the turn so far ended on its own, without an error.
func (r *run) endedWell() bool {
	return r.stop == adapters.StopEndTurn && r.failure == nil && r.stopCause() == nil && (r.digest.Fatal == nil || !r.digest.Fatal.Fatal)
}
