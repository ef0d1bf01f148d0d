// Command testserver is a small MCP server over stdio for the mcp package's
// tests: a read-only tool, a mutating one, one that sleeps and one that
// kills the process.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type noteIn struct {
	Path string `json:"path" jsonschema:"file to write, relative to the server's working directory"`
	Text string `json:"text" jsonschema:"content of the file"`
}

type slowIn struct {
	MS int `json:"ms" jsonschema:"how long to sleep, in milliseconds"`
}

type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its input.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			if in.Text == "fail" {
				r := text("echo refused: fail")
				r.IsError = true
				return r, nil, nil
			}
			return text(in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "write_note", Description: "Writes a file."},
		func(_ context.Context, _ *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, any, error) {
			if err := os.WriteFile(filepath.Clean(in.Path), []byte(in.Text), 0o644); err != nil {
				return nil, nil, err
			}
			return text("wrote " + in.Path), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Sleeps, ignoring cancellation."},
		func(_ context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			time.Sleep(time.Duration(in.MS) * time.Millisecond)
			return text("slept"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the server process."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	if os.Getenv("TESTSERVER_PIDFILE") != "" {
		// Lets a test check that a child of the server dies with it.
		_ = os.WriteFile(os.Getenv("TESTSERVER_PIDFILE"), []byte(spawnChild()), 0o644)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("testserver: %v", err)
	}
}

// spawnChild starts a long sleep in the background and returns
// "<server pid> <child pid>".
func spawnChild() string {
	c := exec.Command("sleep", "600")
	if err := c.Start(); err != nil {
		log.Fatal(err)
	}
	return fmt.Sprintf("%d %d", os.Getpid(), c.Process.Pid)
}
