package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coder-agent/coder/internal/config"
)

type lookupIn struct {
	Key string `json:"key"`
}

// httpServer serves an MCP server with one read-only tool over streamable
// HTTP and records the Authorization header of every request.
func httpServer(t *testing.T) (*httptest.Server, func() []string) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "remote", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "lookup", Description: "Looks a key up.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in lookupIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "value of " + in.Key},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte{1, 2, 3}},
			}}, nil, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var mu sync.Mutex
	var auth []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), auth...)
	}
}

func TestStreamableHTTPServer(t *testing.T) {
	t.Setenv("CODER_TEST_MCP_TOKEN", "s3cret")
	ts, auth := httpServer(t)
	m := newManager(t, map[string]config.MCPServer{
		"remote": {Type: "http", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${CODER_TEST_MCP_TOKEN}"}},
	}, Options{CallTimeout: 10 * time.Second})
	got := toolsByName(t, m)
	lookup, ok := got["mcp__remote__lookup"]
	if !ok || !readOnly(t, lookup) {
		t.Fatalf("tools = %v", keys(got))
	}
	res := run(t, lookup, `{"key":"k1"}`)
	if !res.OK || res.Content != "value of k1\n[image: image/png, 3 bytes]" {
		t.Errorf("lookup = %+v", res)
	}
	for _, a := range auth() {
		if a != "Bearer s3cret" {
			t.Fatalf("a request went out with Authorization %q", a)
		}
	}
	if st := m.Status(); st[0].Transport != "http" || st[0].State != "running" {
		t.Errorf("Status = %+v", st)
	}
}

func TestHTTPServerUnreachable(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close()
	m := newManager(t, map[string]config.MCPServer{"gone": {URL: url}}, Options{StartTimeout: 5 * time.Second})
	_, errs := m.Tools(context.Background())
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), `mcp server "gone": failed to start: `) {
		t.Errorf("errors = %v", errs)
	}
}
