package orchestrator

import (
	"strings"
	"testing"
)

func TestCheckAnswer(t *testing.T) {
	s, err := ParseOutputSchema([]byte(`{"type":"object","properties":{"count":{"type":"integer"},"files":{"type":"array","items":{"type":"string"}}},"required":["count"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ answer, raw, problem string }{
		{`{"count": 3, "files": ["a.go"]}`, `{"count":3,"files":["a.go"]}`, ""},
		{"```json\n{\"count\": 12345678901}\n```", `{"count":12345678901}`, ""},
		{`{"count": "three"}`, "", "count"},
		{`{"count": 3, "extra": true}`, "", "extra"},
		{`{"files": []}`, "", "count"},
		{"There are 3 files.", "", "not JSON"},
		{`{"count": 1} {"count": 2}`, "", "more than one JSON value"},
	} {
		raw, problem := checkAnswer(s, tc.answer)
		if string(raw) != tc.raw || (tc.problem == "") != (problem == "") || !strings.Contains(problem, tc.problem) {
			t.Errorf("%q: raw %s problem %q; want %s, %q", tc.answer, raw, problem, tc.raw, tc.problem)
		}
	}
	if _, err := ParseOutputSchema([]byte(`{"type": 12}`)); err == nil {
		t.Fatal("a schema with a number for a type was accepted")
	}
	if _, err := ParseOutputSchema([]byte(`not json`)); err == nil {
		t.Fatal("not JSON was accepted as a schema")
	}
}
