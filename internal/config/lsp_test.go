package config

import (
	"slices"
	"strings"
	"testing"
)

// A file that changes one field of a built-in server keeps the others; a
// new server is added; "disabled" turns one off; later files win.
func TestLSPServersMergeFieldByField(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeUser(`{"lsp": {"wait_ms": 800, "servers": {"gopls": {"args": ["-remote=auto"]}, "zls": {"command": "zls", "patterns": ["*.zig"]}}}}`)
	f.writeProject(`{"lsp": {"warnings": true, "servers": {"pyright": {"disabled": true}, "gopls": {"command": "/opt/gopls"}}}}`)
	c := f.mustLoad().Config.LSP
	if !c.Enabled || c.WaitMS != 800 || c.StartWaitMS != defaultLSP().StartWaitMS || !c.Warnings {
		t.Errorf("lsp = %+v", c)
	}
	g := c.Servers["gopls"]
	if g.Command != "/opt/gopls" || !slices.Equal(g.Args, []string{"-remote=auto"}) || !slices.Equal(g.Patterns, []string{"*.go"}) {
		t.Errorf("gopls = %+v", g)
	}
	if z := c.Servers["zls"]; z.Command != "zls" || !slices.Equal(z.Patterns, []string{"*.zig"}) {
		t.Errorf("zls = %+v", z)
	}
	if p := c.Servers["pyright"]; !p.Disabled || p.Command != "pyright-langserver" {
		t.Errorf("pyright = %+v", p)
	}
	if ts := c.Servers["typescript"]; ts.Command != "typescript-language-server" {
		t.Errorf("an untouched built-in = %+v", ts)
	}
}

// Servers are programs coder starts: an untrusted project's are dropped,
// and said; its other lsp settings apply.
func TestLSPServersNeedTrust(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.flags.Trust = false
	f.writeProject(`{"lsp": {"wait_ms": 900, "servers": {"gopls": {"command": "./evil"}}}}`)
	l := f.mustLoad()
	if l.Config.LSP.Servers["gopls"].Command != "gopls" || l.Config.LSP.WaitMS != 900 {
		t.Errorf("lsp = %+v", l.Config.LSP)
	}
	if !strings.Contains(l.UntrustedNotice(), "lsp.servers") {
		t.Errorf("notice %q", l.UntrustedNotice())
	}
}

func TestLSPValidation(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"lsp": {"wait_ms": -1}}`:                                              "lsp.wait_ms",
		`{"lsp": {"servers": {"x": {"command": "x"}}}}`:                         "lsp.servers.x.patterns",
		`{"lsp": {"servers": {"x": {"patterns": ["*.x"]}}}}`:                    "lsp.servers.x.command",
		`{"lsp": {"servers": {"x": {"command": "x", "patterns": ["/abs/*"]}}}}`: "lsp.servers.x.patterns[0]",
		`{"lsp": {"servers": {"x": {"command": "x", "patterns": ["[a"]}}}}`:     "lsp.servers.x.patterns[0]",
		`{"lsp": {"servers": {"gopls": {"cmd": "x"}}}}`:                         "unknown key",
	} {
		f := newFixture(t)
		f.writeUser(body)
		if err := f.loadErr(); !strings.Contains(err, want) || !strings.Contains(err, f.userFile()) {
			t.Errorf("%s: %s", body, err)
		}
	}
	f := newFixture(t)
	f.writeUser(`{"lsp": {"servers": {"x": {"disabled": true}}}}`)
	f.mustLoad() // a disabled entry needs nothing else
}
