package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolName(t *testing.T) {
	t.Parallel()
	cases := []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my server", "get.file/v2", "mcp__my_server__get_file_v2"},
		{"ünï", "x-y", "mcp___n___x-y"},
		{"", "t", "mcp_____t"},
	}
	for _, c := range cases {
		if got := toolName(c.server, c.tool); got != c.want {
			t.Errorf("toolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	long1 := toolName("server", strings.Repeat("a", 80)+"1")
	long2 := toolName("server", strings.Repeat("a", 80)+"2")
	if len(long1) != maxNameLen || long1 == long2 {
		t.Errorf("long names %q and %q", long1, long2)
	}
}

func TestToResult(t *testing.T) {
	t.Parallel()
	res := toResult(&sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "a"},
		&sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)},
		&sdk.ResourceLink{URI: "file:///x"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///t", Text: "inline"}},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b", MIMEType: "application/pdf", Blob: make([]byte, 7)}},
	}}, 1000)
	want := "a\n[audio: audio/wav, 10 bytes]\n[resource: file:///x]\n[resource: file:///t]\ninline\n[resource: file:///b, application/pdf, 7 bytes]"
	if !res.OK || res.Content != want {
		t.Errorf("content = %q", res.Content)
	}
	res = toResult(&sdk.CallToolResult{StructuredContent: map[string]int{"n": 1}}, 1000)
	if res.Content != `{"n":1}` {
		t.Errorf("structured = %q", res.Content)
	}
	res = toResult(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("é", 100)}}}, 51)
	if !strings.HasPrefix(res.Content, strings.Repeat("é", 25)+"\n[output truncated: 50 of 200 bytes shown]") {
		t.Errorf("truncated = %q", res.Content)
	}
	res = toResult(&sdk.CallToolResult{IsError: true}, 1000)
	if res.OK || !strings.Contains(res.Content, "without a message") {
		t.Errorf("empty error = %+v", res)
	}
}

func TestExpandVars(t *testing.T) {
	t.Setenv("CODER_X", "1")
	t.Setenv("CODER_EMPTY", "")
	cases := map[string]string{
		"a${CODER_X}b":                "a1b",
		"${CODER_UNSET_Y:-def}":       "def",
		"${CODER_EMPTY:-def}":         "def",
		"${CODER_X:-def}":             "1",
		"$CODER_X stays":              "$CODER_X stays",
		"${unterminated":              "${unterminated",
		"${CODER_UNSET_Y}|${CODER_X}": "|1",
	}
	for in, want := range cases {
		if got := expandVars(in); got != want {
			t.Errorf("expandVars(%q) = %q, want %q", in, got, want)
		}
	}
}
