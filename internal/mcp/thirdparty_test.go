//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/config"
)

// npmDir returns the directory where the CI script ran
//
//	npm install --prefix "$CODER_TEST_NPM_DIR" @modelcontextprotocol/server-filesystem
//
// The test is skipped when the variable is unset; when it is set, a missing
// node or package is a failure, not a silent skip.
func npmDir(t *testing.T) string {
	dir := os.Getenv("CODER_TEST_NPM_DIR")
	if dir == "" {
		t.Skip("CODER_TEST_NPM_DIR not set: third-party MCP server test skipped")
	}
	for _, tool := range []string{"node", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("CODER_TEST_NPM_DIR is set but %s is not on PATH", tool)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "mcp-server-filesystem")); err != nil {
		t.Fatalf("CODER_TEST_NPM_DIR=%s has no server-filesystem: %v", dir, err)
	}
	return dir
}

// TestThirdPartyFilesystemServer drives @modelcontextprotocol/server-filesystem
// from npm, configured the two ways people write it and read back through
// config.Load: `npx -y <package>` in .coder/config.json, and the installed
// binary in a Claude Code style .mcp.json.
func TestThirdPartyFilesystemServer(t *testing.T) {
	dir := npmDir(t)
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-server-filesystem")
	cases := map[string]struct {
		file, content string
		cwd           string // the servers' working directory; "" = the workspace
	}{
		"config.json": {
			file: ".coder/config.json",
			content: `{"mcp":{"servers":{"fs":{"command":"npx",
				"args":["-y","@modelcontextprotocol/server-filesystem","${ROOT}"]}}}}`,
			// npx finds the package installed there: no network needed.
			cwd: dir,
		},
		".mcp.json": {
			file:    ".mcp.json",
			content: `{"mcpServers":{"fs":{"type":"stdio","command":"${BIN}","args":["${ROOT}"]}}}`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeTestFile(t, filepath.Join(root, "hello.txt"), "hello from coder\n")
			content := strings.NewReplacer("${ROOT}", root, "${BIN}", bin).Replace(c.content)
			writeTestFile(t, filepath.Join(root, c.file), content)
			cfg := loadServer(t, root, "fs")
			cwd := c.cwd
			if cwd == "" {
				cwd = root
			}
			m := newManager(t, map[string]config.MCPServer{"fs": cfg}, Options{Cwd: cwd, StartTimeout: time.Minute, CallTimeout: time.Minute})
			checkFilesystemServer(t, m, root)
		})
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadServer reads the workspace's configuration the way coder does, with
// no user file and no environment, trusted, and returns server name.
func loadServer(t *testing.T, workspace, name string) config.MCPServer {
	t.Helper()
	l, err := config.Load(config.Options{
		Cwd:           workspace,
		UserConfigDir: t.TempDir(),
		Env:           func(string) (string, bool) { return "", false },
		// Project MCP servers start only in a trusted workspace.
		Flags: config.Overrides{Trust: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := l.Config.MCP.Servers[name]
	if !ok {
		t.Fatalf("config has no mcp server %q: %+v", name, l.Config.MCP)
	}
	return s
}

func checkFilesystemServer(t *testing.T, m *Manager, root string) {
	ts := toolsByName(t, m)
	for _, want := range []string{"mcp__fs__read_text_file", "mcp__fs__list_directory", "mcp__fs__write_file"} {
		if _, ok := ts[want]; !ok {
			t.Fatalf("missing %s in %v", want, keys(ts))
		}
	}
	if !readOnly(t, ts["mcp__fs__read_text_file"]) || readOnly(t, ts["mcp__fs__write_file"]) {
		t.Errorf("read-only hints not carried over")
	}
	res := run(t, ts["mcp__fs__read_text_file"], `{"path":"`+filepath.Join(root, "hello.txt")+`"}`)
	if !res.OK || !strings.Contains(res.Content, "hello from coder") {
		t.Errorf("read_text_file = %+v", res)
	}
	res = run(t, ts["mcp__fs__list_directory"], `{"path":"`+root+`"}`)
	if !res.OK || !strings.Contains(res.Content, "hello.txt") {
		t.Errorf("list_directory = %+v", res)
	}
	// Outside its allowed directory the server answers with isError.
	if res = run(t, ts["mcp__fs__read_text_file"], `{"path":"/etc/hostname"}`); res.OK {
		t.Errorf("read outside root = %+v", res)
	}
	// npx runs node as a child: Close must take the whole group down.
	pgid := m.servers[0].conn.proc.cmd.Process.Pid
	m.Close()
	waitGroupGone(t, pgid)
}
