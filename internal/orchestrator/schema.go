package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/coder-agent/coder/internal/chat"
)

// OutputSchema asks for a final answer that is one JSON value valid
// against a JSON Schema (--json-schema): the model is told the schema
// with the request, the answer is checked when the turn would end, and a
// mismatch is sent back once, saying what failed, before the turn fails.
type OutputSchema struct {
	// Text is the schema as given, shown to the model.
	Text     string
	Resolved *jsonschema.Resolved
}

// ParseOutputSchema reads a JSON Schema (draft 2020-12 or draft-07).
func ParseOutputSchema(text []byte) (*OutputSchema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(text, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %w", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("not a usable JSON Schema: %w", err)
	}
	return &OutputSchema{Text: strings.TrimSpace(string(text)), Resolved: r}, nil
}

// ErrSchemaMismatch ends a turn whose final answer was not valid against
// the output schema after one more try.
var ErrSchemaMismatch = errors.New("the final answer is not valid against the JSON schema")

// schemaRetries is how many times a mismatch is sent back.
const schemaRetries = 1

func (o *Orchestrator) schemaReminder() string {
	s := o.opts.Workflow.OutputSchema
	if s == nil {
		return ""
	}
	return "\n\n<system-reminder>When you are done, your final message must be only a JSON value — no other text, no code fence — valid against this JSON Schema:\n" +
		s.Text + "\n</system-reminder>"
}

// schemaStep checks the final answer against the output schema. A match
// is kept as the structured output; a mismatch goes back to the model
// once, with what failed; a second one fails the turn.
func (o *Orchestrator) schemaStep(ctx context.Context, ts *turnState) (again bool, err error) {
	s := o.opts.Workflow.OutputSchema
	if s == nil {
		return false, nil
	}
	raw, problem := checkAnswer(s, ts.last.Content)
	if problem == "" {
		ts.structured = raw
		return false, nil
	}
	if ts.schemaTries >= schemaRetries {
		return false, fmt.Errorf("%w: %s", ErrSchemaMismatch, problem)
	}
	ts.schemaTries++
	msg := "Your final answer is not valid against the JSON Schema: " + problem +
		"\nReply with only the corrected JSON value: no other text, no code fence."
	return true, o.conv.append(ctx, chat.Message{Role: chat.RoleUser, Content: msg})
}

// checkAnswer reads answer as one JSON value (a code fence around it is
// forgiven) and validates it; problem says what is wrong, "" for nothing.
func checkAnswer(s *OutputSchema, answer string) (raw json.RawMessage, problem string) {
	text := strings.TrimSpace(answer)
	if body, ok := strings.CutPrefix(text, "```"); ok {
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body[nl+1:]), "```"))
		}
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, "it is not JSON (" + err.Error() + ")"
	}
	if dec.More() {
		return nil, "it is more than one JSON value"
	}
	if err := s.Resolved.Validate(plain(v)); err != nil {
		return nil, err.Error()
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil {
		return nil, err.Error()
	}
	return buf.Bytes(), ""
}

// plain turns json.Numbers into float64, the number type the validator
// knows (UseNumber kept integers exact until then; the raw text is kept).
func plain(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = plain(e)
		}
	case []any:
		for i, e := range x {
			x[i] = plain(e)
		}
	}
	return v
}
