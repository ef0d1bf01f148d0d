package repl

import (
	"context"
	"io"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/repl/render"
	"github.com/coder-agent/coder/internal/repl/style"
)

// menuRunner offers a few commands and their summaries.
type menuRunner struct{}

func (menuRunner) RunInput(context.Context, string) (orchestrator.Outcome, error) {
	return orchestrator.Outcome{}, nil
}
func (menuRunner) ToggleMode()             {}
func (menuRunner) Names() []string         { return []string{"help", "hooks", "model", "permissions"} }
func (menuRunner) Summary(n string) string { return "what " + n + " does" }
func (menuRunner) Inputs() []string        { return nil }
func (menuRunner) Arguments(_ context.Context, c string) []string {
	if c == "permissions" {
		return []string{"strict", "balanced", "yolo"}
	}
	return nil
}

func key(code rune, text string) uv.KeyPressEvent { return uv.KeyPressEvent{Code: code, Text: text} }

// Tab with several candidates opens the menu; the arrows move its
// selection; Esc closes it and nothing else; Enter takes the selection;
// typing narrows it.
func TestCompletionMenu(t *testing.T) {
	ctx := context.Background()
	r := New(Options{Renderer: render.New(io.Discard, style.Style{})})
	r.runner = menuRunner{}
	r.ed.insert("/h")
	r.complete(ctx)
	if r.menu == nil || strings.Join(r.menu.items, " ") != "/help /hooks" || r.menu.notes[1] != "what hooks does" {
		t.Fatalf("menu %+v", r.menu)
	}
	rows := r.menuLines(40)
	if len(rows) != 3 || !strings.HasPrefix(rows[0], "› /help") || !strings.HasPrefix(rows[1], "  /hooks") || !strings.Contains(rows[2], "esc close") {
		t.Fatalf("rows %q", rows)
	}
	r.menuKey(ctx, key(uv.KeyDown, ""))
	r.menuKey(ctx, key(uv.KeyEscape, ""))
	if r.menu != nil || r.ed.text() != "/h" {
		t.Fatalf("after Esc: menu %v, input %q", r.menu, r.ed.text())
	}
	r.complete(ctx)
	r.menuKey(ctx, key(uv.KeyDown, ""))
	r.menuKey(ctx, key(uv.KeyDown, "")) // round to the first
	r.menuKey(ctx, key(uv.KeyUp, ""))
	r.menuKey(ctx, key(uv.KeyEnter, ""))
	if r.menu != nil || r.ed.text() != "/hooks " {
		t.Fatalf("after Enter: menu %v, input %q", r.menu, r.ed.text())
	}

	r.ed.reset()
	r.ed.insert("/permissions ")
	r.complete(ctx)
	r.menuKey(ctx, key('y', "y")) // narrows to one
	if r.menu == nil || len(r.menu.items) != 1 || r.ed.text() != "/permissions y" {
		t.Fatalf("narrowed: %+v, input %q", r.menu, r.ed.text())
	}
	r.menuKey(ctx, key(uv.KeyEnter, ""))
	if r.ed.text() != "/permissions yolo " {
		t.Fatalf("input %q", r.ed.text())
	}
	r.ed.reset()
	r.ed.insert("/zz")
	r.complete(ctx)
	if r.menu != nil || !strings.Contains(r.hint, "no completion for /zz") {
		t.Fatalf("no candidates: menu %v, hint %q", r.menu, r.hint)
	}
}
