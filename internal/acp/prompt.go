package acp

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/input"
	"github.com/coder-agent/coder/internal/orchestrator"
)

// promptInput turns a prompt's content into the input a person would have
// typed: text as is, a linked workspace file as an @path reference (the
// core attaches it), embedded context (the editor's buffer text) as a
// block after the text, so a leading / still names a command; image
// blocks are the request's images.
func promptInput(blocks []sdk.ContentBlock, workspace string) (orchestrator.Prompt, error) {
	var text, context strings.Builder
	var imgs []chat.Image
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			text.WriteString(b.Text.Text)
		case b.ResourceLink != nil:
			text.WriteString(linkText(b.ResourceLink.Uri, b.ResourceLink.Name, workspace))
		case b.Resource != nil:
			context.WriteString(embedded(b.Resource.Resource))
		case b.Image != nil:
			img, err := imageInput(b.Image)
			if err != nil {
				return orchestrator.Prompt{}, err
			}
			imgs = append(imgs, img)
		case b.Audio != nil:
			return orchestrator.Prompt{}, &sdk.RequestError{Code: codeInvalidParams,
				Message: "coder takes text, images, file links and embedded text resources; audio is not supported"}
		}
	}
	in := text.String()
	if context.Len() > 0 {
		in = strings.TrimRight(in, "\n") + "\n" + context.String()
	}
	return orchestrator.Prompt{Text: in, Images: imgs}, nil
}

// linkText is a file link as an @reference when it names a file in the
// workspace, else as a Markdown link the model can follow with its tools.
func linkText(uri, name, workspace string) string {
	if p := filePath(uri); p != "" {
		if rel, err := filepath.Rel(workspace, p); err == nil && !strings.HasPrefix(rel, "..") {
			rel = filepath.ToSlash(rel)
			if strings.ContainsAny(rel, " \t\"") {
				return ` @"` + rel + `" `
			}
			return " @" + rel + " "
		}
		return " " + p + " "
	}
	return " [" + name + "](" + uri + ") "
}

// filePath is the path of a file:// URI, "" for other URIs.
func filePath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	return filepath.Clean(filepath.FromSlash(u.Path))
}

// embedded is an embedded resource as a context block; binary ones are
// named, not sent.
func embedded(r sdk.EmbeddedResourceResource) string {
	switch {
	case r.TextResourceContents != nil:
		t := r.TextResourceContents
		return "\n<context uri=\"" + t.Uri + "\">\n" + strings.TrimRight(t.Text, "\n") + "\n</context>\n"
	case r.BlobResourceContents != nil:
		return "\n(binary resource " + r.BlobResourceContents.Uri + " not attached)\n"
	}
	return ""
}

// refusedCommand answers the terminal's / commands that have no place in
// an editor thread: those that would change the session under the editor
// (its threads map to coder's sessions one to one) or end the program.
// They are left out of the command list too.
func refusedCommand(typed string) string {
	line := input.Parse(typed)
	if line.Kind != input.Command {
		return ""
	}
	switch line.Name {
	case "new":
		return "In an editor, /new is the editor's: start a new thread there."
	case "resume":
		return "In an editor, /resume is the editor's: open the session from its history (coder's session ids load with session/load); /sessions lists them."
	case "clear":
		return "In an editor, start a new thread to begin afresh."
	case "output":
		return "In an editor, each tool call's entry shows its output."
	case "exit", "quit":
		return "In an editor, close the thread (or the agent panel) instead."
	}
	return ""
}

// Provider stop reasons that say the answer was withheld. (A cut answer
// always ends its turn with orchestrator.ErrTruncated.)
var refusalStops = map[string]bool{"refusal": true, "content_filter": true}

// stopReason is how a prompt turn ended, in ACP's words; a failed turn is
// an error (the JSON-RPC error carries the reason). lastStop is the
// provider's stop reason of the last model call.
func stopReason(out orchestrator.Outcome, err error, lastStop string) (sdk.StopReason, error) {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), out.State == event.StateAborted:
		return sdk.StopReasonCancelled, nil
	case errors.Is(err, orchestrator.ErrStepLimit):
		return sdk.StopReasonMaxTurnRequests, nil
	case errors.Is(err, orchestrator.ErrTruncated):
		return sdk.StopReasonMaxTokens, nil
	case err != nil:
		msg := strings.TrimSpace(out.Reason)
		if msg == "" {
			msg = err.Error()
		}
		return "", &sdk.RequestError{Code: codeInternalError, Message: msg}
	case refusalStops[lastStop]:
		return sdk.StopReasonRefusal, nil
	}
	return sdk.StopReasonEndTurn, nil
}
