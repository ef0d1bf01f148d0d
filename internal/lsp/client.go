package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// client speaks LSP to one server process: the protocol's types come from
// powernap's copy of the generated LSP 3.17 types, JSON-RPC 2.0 with LSP's
// header framing from sourcegraph/jsonrpc2. It knows the few methods coder
// needs: initialize, the document notifications and diagnostics.
type client struct {
	conn *jsonrpc2.Conn
	// pull: the server answers textDocument/diagnostic; ts: it forwards
	// requests to tsserver (see tsserver.go). Otherwise coder waits for
	// what it publishes.
	pull, ts bool
	// nextID numbers requests, so a request that timed out can be cancelled.
	nextID   atomic.Uint64
	settings map[string]any
	folders  []protocol.WorkspaceFolder
	onDiag   func(published)
}

// clientOptions say what the client tells the server.
type clientOptions struct {
	root        string
	initOptions map[string]any
	settings    map[string]any
	// onDiag is called, in order, with every publishDiagnostics.
	onDiag func(published)
}

// published is a publishDiagnostics notification.
type published struct {
	URI         string       `json:"uri"`
	Version     int32        `json:"version,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

// diagnostic is the part of an LSP Diagnostic coder reads. Decoding the
// whole generated type would reject a notification over a field coder
// does not use (a related location in a non-file URI, say).
type diagnostic struct {
	Range    protocol.Range              `json:"range"`
	Severity protocol.DiagnosticSeverity `json:"severity,omitempty"`
	Code     any                         `json:"code,omitempty"`
	Source   string                      `json:"source,omitempty"`
	Message  string                      `json:"message"`
}

// initializeResult is the part of the server's answer to initialize coder
// reads, decoded as leniently (the generated union types refuse shapes
// they do not know).
type initializeResult struct {
	Capabilities struct {
		DiagnosticProvider     json.RawMessage                 `json:"diagnosticProvider"`
		ExecuteCommandProvider *protocol.ExecuteCommandOptions `json:"executeCommandProvider"`
	} `json:"capabilities"`
}

// dial connects to a started server and runs the initialize handshake.
func dial(ctx context.Context, rwc io.ReadWriteCloser, o clientOptions) (*client, error) {
	c := &client{settings: o.settings, onDiag: o.onDiag,
		folders: []protocol.WorkspaceFolder{{URI: string(protocol.URIFromPath(o.root)), Name: filepath.Base(o.root)}}}
	stream := jsonrpc2.NewBufferedStream(rwc, jsonrpc2.VSCodeObjectCodec{})
	// The handler runs on the reading goroutine, so notifications are seen
	// in the order they came; it never blocks on the server.
	c.conn = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(c.handle),
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	var res initializeResult
	if err := c.call(ctx, "initialize", initializeParams(o, c.folders), &res); err != nil {
		_ = c.conn.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	dp := strings.TrimSpace(string(res.Capabilities.DiagnosticProvider))
	c.pull = dp != "" && dp != "null" && dp != "false"
	c.ts = !c.pull && offersTSServerRequest(res.Capabilities.ExecuteCommandProvider)
	if err := c.conn.Notify(ctx, "initialized", struct{}{}); err != nil {
		_ = c.conn.Close()
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return c, nil
}

// initParams is LSP's InitializeParams with a null processId: the server
// may run in another PID namespace, where coder's PID means nothing, and
// servers that watch that PID would exit; the sandbox ends them with coder.
type initParams struct {
	ProcessID             *int32                     `json:"processId"`
	ClientInfo            *protocol.ClientInfo       `json:"clientInfo,omitempty"`
	RootPath              string                     `json:"rootPath"`
	RootURI               protocol.DocumentURI       `json:"rootUri"`
	Capabilities          map[string]any             `json:"capabilities"`
	InitializationOptions map[string]any             `json:"initializationOptions,omitempty"`
	WorkspaceFolders      []protocol.WorkspaceFolder `json:"workspaceFolders"`
}

// capabilities are the client's: only what coder uses, written out (the
// generated ClientCapabilities type would send every section, some with
// null lists that servers choke on). A function, not a variable: nothing
// of coder's LSP client is built at start-up.
func capabilities() map[string]any {
	return map[string]any{
		"textDocument": map[string]any{
			"synchronization":    map[string]any{"didSave": true},
			"publishDiagnostics": map[string]any{"versionSupport": true},
			"diagnostic":         map[string]any{},
		},
		"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
		"general":   map[string]any{"positionEncodings": []string{"utf-16"}},
	}
}

func initializeParams(o clientOptions, folders []protocol.WorkspaceFolder) initParams {
	return initParams{
		ClientInfo:            &protocol.ClientInfo{Name: "coder"},
		RootPath:              o.root,
		RootURI:               protocol.URIFromPath(o.root),
		Capabilities:          capabilities(),
		InitializationOptions: o.initOptions,
		WorkspaceFolders:      folders,
	}
}

// handle answers what a server asks of its client and takes its
// notifications. Requests coder has no use for get an empty answer, so a
// server waiting for one goes on.
func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p published
		if err := json.Unmarshal(params, &p); err == nil && c.onDiag != nil {
			c.onDiag(p)
		}
		return nil, nil
	case "workspace/configuration":
		var p protocol.ConfigurationParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = section(c.settings, it.Section)
		}
		return out, nil
	case "workspace/workspaceFolders":
		return c.folders, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "coder applies no edits from language servers"}, nil
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create",
		"window/showMessageRequest", "window/showDocument", "workspace/diagnostic/refresh",
		"workspace/semanticTokens/refresh", "workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		return nil, nil
	}
	if req.Notif {
		return nil, nil // logs, progress, telemetry
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "coder does not handle " + req.Method}
}

// section finds a dotted section ("python.analysis") in the settings; the
// empty section is all of them.
func section(settings map[string]any, name string) any {
	if name == "" {
		return settings
	}
	var cur any = settings
	for part := range strings.SplitSeq(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

// call sends a request; when ctx ends first the server is told to cancel it.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	id := jsonrpc2.ID{Num: c.nextID.Add(1)}
	err := c.conn.Call(ctx, method, params, result, jsonrpc2.PickID(id))
	if ctx.Err() != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
		_ = c.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id.Num})
	}
	return err
}

func (c *client) didClose(ctx context.Context, path string) error {
	return c.conn.Notify(ctx, "textDocument/didClose", protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.URIFromPath(path)}})
}

func (c *client) didOpen(ctx context.Context, path, languageID string, version int32, text string) error {
	return c.conn.Notify(ctx, "textDocument/didOpen", protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: protocol.URIFromPath(path),
			LanguageID: protocol.LanguageKind(languageID), Version: version, Text: text},
	})
}

// didChange sends the whole new text, then didSave: the file is on disk
// already, and some servers check saved files only.
func (c *client) didChange(ctx context.Context, path string, version int32, text string) error {
	uri := protocol.URIFromPath(path)
	err := c.conn.Notify(ctx, "textDocument/didChange", protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{Version: version, TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Value: protocol.TextDocumentContentChangeWholeDocument{Text: text}}},
	})
	if err != nil {
		return err
	}
	return c.conn.Notify(ctx, "textDocument/didSave", protocol.DidSaveTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}})
}

// asks: the client can ask for a document's diagnostics (fetch) rather
// than wait for them to be published.
func (c *client) asks() bool { return c.pull || c.ts }

// fetch asks for a document's diagnostics as the server sees it now.
func (c *client) fetch(ctx context.Context, path string) ([]diagnostic, error) {
	if c.ts {
		return c.tsDiagnostics(ctx, path)
	}
	return c.diagnostics(ctx, path)
}

// diagnostics pulls a document's diagnostics (textDocument/diagnostic).
func (c *client) diagnostics(ctx context.Context, path string) ([]diagnostic, error) {
	var rep struct {
		Kind  string       `json:"kind"`
		Items []diagnostic `json:"items"`
	}
	err := c.call(ctx, "textDocument/diagnostic", protocol.DocumentDiagnosticParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.URIFromPath(path)}}, &rep)
	if err != nil {
		return nil, err
	}
	// gopls leaves out "kind": a report that is not "unchanged" is full.
	if rep.Kind == "unchanged" {
		return nil, fmt.Errorf("textDocument/diagnostic: an unchanged report, though coder sent no previous one")
	}
	return rep.Items, nil
}

// shutdown asks the server to end (shutdown, then exit).
func (c *client) shutdown(ctx context.Context) {
	if c.call(ctx, "shutdown", nil, nil) == nil {
		_ = c.conn.Notify(ctx, "exit", nil)
	}
	_ = c.conn.Close()
}
