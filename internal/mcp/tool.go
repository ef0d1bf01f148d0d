package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/tools"
)

// maxNameLen is the longest tool name OpenAI-style APIs accept.
const maxNameLen = 64

// tool adapts one server tool to tools.Tool.
type tool struct {
	srv      *server
	name     string // mcp__<server>__<tool>
	remote   string // the server's own name for it
	desc     string
	schema   json.RawMessage
	readOnly bool
}

var _ tools.Tool = (*tool)(nil)

func adapters(s *server, remote []*sdk.Tool) []tools.Tool {
	out := make([]tools.Tool, 0, len(remote))
	for _, r := range remote {
		out = append(out, &tool{
			srv:    s,
			name:   toolName(s.name, r.Name),
			remote: r.Name,
			desc:   describe(s.name, r),
			schema: inputSchema(r.InputSchema),
			// Only an explicit hint makes a tool read-only: it then runs
			// concurrently with other reads and passes read-only policies.
			readOnly: r.Annotations != nil && r.Annotations.ReadOnlyHint,
		})
	}
	return out
}

func (t *tool) Name() string            { return t.name }
func (t *tool) Description() string     { return t.desc }
func (t *tool) Schema() json.RawMessage { return t.schema }

// Facts: another program's tool may do anything; it is asked (unless its
// server hints it is read-only), enabled in build mode only, and given to
// no subagent.
func (t *tool) Facts() tools.Facts {
	return tools.Facts{Kind: chat.ToolOther, Effect: tools.EffectOpen}
}

// Prepare keeps the checked arguments as they are (the server reads them)
// and shows them, shortened, for the tool-start line. Only an explicit
// read-only hint makes a call read-only.
func (t *tool) Prepare(c *tools.Call) error {
	s := strings.Join(strings.Fields(string(c.Input)), " ")
	if s == "{}" {
		s = ""
	}
	c.Summary = truncateRunes(s, 80)
	c.ReadOnly = t.readOnly
	return nil
}

func (t *tool) Run(ctx context.Context, c *tools.Call) (tools.Result, error) {
	args := c.Input
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return t.srv.call(ctx, t.remote, args), nil
}

func describe(server string, r *sdk.Tool) string {
	d := strings.TrimSpace(r.Description)
	if d == "" {
		d = r.Name
	}
	return d + "\n\n(MCP tool " + r.Name + " from server " + server + ")"
}

// inputSchema returns the server's schema, or an empty object schema when it
// sent none that marshals.
func inputSchema(s any) json.RawMessage {
	if s != nil {
		if b, err := json.Marshal(s); err == nil && len(b) > 0 && b[0] == '{' {
			return b
		}
	}
	return json.RawMessage(`{"type":"object","properties":{}}`)
}

// toolName builds mcp__<server>__<tool> from sanitised parts. Names longer
// than providers accept are cut and given a hash suffix so they stay unique.
func toolName(server, remote string) string {
	n := "mcp__" + sanitize(server) + "__" + sanitize(remote)
	if len(n) <= maxNameLen {
		return n
	}
	h := fnv.New32a()
	h.Write([]byte(n))
	return fmt.Sprintf("%s_%08x", n[:maxNameLen-9], h.Sum32())
}

// sanitize keeps [A-Za-z0-9_-] and turns every other rune into _.
func sanitize(s string) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// toResult turns a call result into what the model sees: text blocks
// joined, binary blocks summarised, capped at max bytes.
func toResult(res *sdk.CallToolResult, max int) tools.Result {
	text := contentText(res)
	if len(text) > max {
		cut := truncateBytes(text, max)
		text = cut + fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", len(cut), len(text))
	}
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return tools.Failure("%s", text)
	}
	lines := strings.Count(text, "\n") + 1
	if text == "" {
		lines = 0
	}
	return tools.Result{OK: true, Content: text, Summary: fmt.Sprintf("%d lines", lines)}
}

func contentText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, blockText(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

func blockText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource: %s]", c.URI)
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[resource]"
		}
		if r.Text != "" {
			return fmt.Sprintf("[resource: %s]\n%s", r.URI, r.Text)
		}
		return fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
	default:
		return fmt.Sprintf("[%T content]", c)
	}
}

// truncateBytes cuts s to at most n bytes without splitting a UTF-8 rune.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
