package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// typescript-language-server publishes no document versions and nothing
// when a file's diagnostics did not change, and may publish the syntactic
// ones before the semantic ones: from its notifications alone coder could
// not tell "clean" from "not checked yet". It does forward any request to
// tsserver (its typescript.tsserverRequest command), and tsserver answers
// syntacticDiagnosticsSync and semanticDiagnosticsSync for the document as
// it is now: a pull in all but name.
const tsserverRequest = "typescript.tsserverRequest"

func offersTSServerRequest(o *protocol.ExecuteCommandOptions) bool {
	return o != nil && slices.Contains(o.Commands, tsserverRequest)
}

// tsDiagnostic is tsserver's DiagnosticWithLinePosition (1-based lines
// and columns).
type tsDiagnostic struct {
	Message       string     `json:"message"`
	Category      string     `json:"category"`
	Code          int        `json:"code"`
	StartLocation tsLocation `json:"startLocation"`
	EndLocation   tsLocation `json:"endLocation"`
}

type tsLocation struct {
	Line   int `json:"line"`
	Offset int `json:"offset"`
}

// tsDiagnostics asks tsserver for a document's syntactic and semantic
// diagnostics.
func (c *client) tsDiagnostics(ctx context.Context, path string) ([]diagnostic, error) {
	var out []diagnostic
	for _, cmd := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync"} {
		args, _ := json.Marshal(map[string]any{"file": string(protocol.URIFromPath(path)), "includeLinePosition": true})
		name, _ := json.Marshal(cmd)
		var res struct {
			Body []tsDiagnostic `json:"body"`
		}
		err := c.call(ctx, "workspace/executeCommand", protocol.ExecuteCommandParams{
			Command: tsserverRequest, Arguments: []json.RawMessage{name, args}}, &res)
		if err != nil {
			return nil, err
		}
		for _, d := range res.Body {
			out = append(out, d.lsp())
		}
	}
	return out, nil
}

func (d tsDiagnostic) lsp() diagnostic {
	sev := protocol.SeverityError
	switch d.Category {
	case "warning":
		sev = protocol.SeverityWarning
	case "suggestion":
		sev = protocol.SeverityHint
	case "message":
		sev = protocol.SeverityInformation
	}
	pos := func(l tsLocation) protocol.Position {
		return protocol.Position{Line: uint32(max(l.Line-1, 0)), Character: uint32(max(l.Offset-1, 0))}
	}
	return diagnostic{Range: protocol.Range{Start: pos(d.StartLocation), End: pos(d.EndLocation)},
		Severity: sev, Code: d.Code, Source: "typescript", Message: d.Message}
}
