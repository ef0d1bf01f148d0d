package lsp

import (
	"encoding/json"
	"testing"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// A notification whose diagnostics relate to a location coder cannot
// read (a non-file URI) still gives its diagnostics; the generated type
// would refuse it whole.
func TestPublishedReadsWhatCoderNeeds(t *testing.T) {
	raw := []byte(`{"uri":"file:///w/a.ts","version":3,"diagnostics":[{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}},
		"severity":1,"code":2322,"source":"typescript","message":"bad",
		"relatedInformation":[{"location":{"uri":"untitled:Untitled-1","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}},"message":"here"}],
		"codeDescription":{"href":"https://example.com/2322"},"data":{"fix":1}}]}`)
	var generated protocol.PublishDiagnosticsParams
	if err := json.Unmarshal(raw, &generated); err == nil {
		t.Fatal("the generated type took a non-file related location; this test no longer shows why coder decodes its own")
	}
	var p published
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Diagnostics) != 1 || p.Version != 3 || p.Diagnostics[0].Message != "bad" || p.Diagnostics[0].Range.Start.Character != 2 {
		t.Errorf("decoded %+v", p)
	}
}
