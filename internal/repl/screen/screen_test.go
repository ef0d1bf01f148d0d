package screen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/repl/style"
)

// terminalLines is how a terminal shows a committed line at cols columns.
func terminalLines(s string, cols int) []string {
	var out []string
	var row strings.Builder
	x := 0
	for _, r := range style.ExpandTabs(s) {
		w := style.RuneWidth(r)
		if x+w > cols {
			out = append(out, strings.TrimRight(row.String(), " "))
			row.Reset()
			x = 0
		}
		row.WriteRune(r)
		x += w
	}
	return append(out, strings.TrimRight(row.String(), " "))
}

func randomText(rnd *rand.Rand, maxWords int) string {
	words := []string{"alpha", "beta", "中文字", "x", "\ttab", "longerword", "請修復", "."}
	var b strings.Builder
	for i := range rnd.IntN(maxWords + 1) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rnd.IntN(len(words))])
	}
	return b.String()
}

// Whatever is committed and however the live parts change, the terminal
// holds the committed lines in order and, under them, exactly the live
// region: no stale rows, no copies.
func TestScreenKeepsOneRegion(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 9))
	for iter := range 300 {
		cols, rows := 12+rnd.IntN(70), 6+rnd.IntN(20)
		v := newVT(cols, rows)
		scr := New(v, func() (int, int) { return cols, rows })
		var want []string
		for step := range 40 {
			switch rnd.IntN(6) {
			case 5: // wider: rows stay as they are
				cols += 1 + rnd.IntN(10)
				v.widen(cols)
				scr.Resized()
			case 0, 1:
				line := randomText(rnd, 30)
				want = append(want, terminalLines(line, cols)...)
				scr.Commit(line + "\n")
			case 2:
				part := []int{PartStream, PartTail, PartStatus, PartQueue, PartHint}[rnd.IntN(5)]
				var rs []string
				for range rnd.IntN(6) {
					rs = append(rs, randomText(rnd, 8))
				}
				scr.Set(part, rs)
			case 3:
				n := 1 + rnd.IntN(4)
				rs := []string{"PROMPT " + strconv.Itoa(step)}
				for range n - 1 {
					rs = append(rs, randomText(rnd, 5))
				}
				scr.SetPrompt(rs, rnd.IntN(n), rnd.IntN(cols), nil)
			case 4:
				line := randomText(rnd, 12)
				want = append(want, terminalLines(line, cols)...)
				scr.Update(line+"\n", map[int][]string{PartStream: {randomText(rnd, 6)}})
			}
			live, _, _ := scr.compose(cols)
			all := append(append([]string(nil), want...), trimAll(live)...)
			for len(all) > 0 && all[len(all)-1] == "" {
				all = all[:len(all)-1]
			}
			if got := v.lines(); strings.Join(got, "\n") != strings.Join(all, "\n") {
				t.Fatalf("iteration %d step %d (%dx%d):\n--- terminal\n%s\n--- want\n%s", iter, step, cols, rows,
					strings.Join(got, "\n"), strings.Join(all, "\n"))
			}
			if strings.Count(v.text(), "PROMPT") > 1 {
				t.Fatalf("two prompts:\n%s", v.text())
			}
		}
	}
}

func trimAll(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.TrimRight(style.ExpandTabs(r), " ")
	}
	return out
}

// The cursor stands where the prompt says, within the region.
func TestScreenCursor(t *testing.T) {
	v := newVT(40, 10)
	scr := New(v, func() (int, int) { return 40, 10 })
	scr.Set(PartStatus, []string{"status"})
	scr.SetPrompt([]string{"context: 1 tokens", "[build] /w> hello", "second row"}, 1, 17, nil)
	scr.Commit("output\n")
	if v.y != 3 || v.x != 17 || v.grid[v.y][0] != '[' {
		t.Fatalf("cursor at %d,%d:\n%s", v.x, v.y, v.text())
	}
	scr.Close()
	if strings.Contains(v.text(), "context:") || v.text() != "output" {
		t.Fatalf("after Close:\n%s", v.text())
	}
}

// Clear leaves the region alone on the screen, at its top.
func TestScreenClear(t *testing.T) {
	v := newVT(30, 8)
	scr := New(v, func() (int, int) { return 30, 8 })
	scr.SetPrompt([]string{"context: 1", "> x"}, 1, 3, nil)
	scr.Commit("one\ntwo\n")
	scr.Clear()
	lines := v.lines()
	if strings.Count(strings.Join(lines, "\n"), "context:") != 1 || v.row(0) != "context: 1" || v.row(1) != "> x" || v.y != 1 {
		t.Fatalf("after Clear (cursor row %d):\n%s", v.y, strings.Join(lines, "\n"))
	}
}

// The region starts under what the shell showed, scrolling nothing away;
// once the terminal says where the cursor is, a region too near the top
// for a narrower terminal's re-wrap moves down, and no further than that.
func TestScreenStartsWhereTheCursorIs(t *testing.T) {
	v := newVT(60, 12)
	_, _ = v.Write([]byte("$ coder\r\n"))
	scr := New(v, func() (int, int) { return 60, 12 })
	info, input := strings.Repeat("i", 60), "> "+strings.Repeat("w", 50)
	scr.SetPrompt([]string{info, input}, 1, 52, nil)
	scr.Start()
	if v.row(0) != "$ coder" || v.row(1) != info || v.y != 2 || len(v.scrollback) != 0 {
		t.Fatalf("at start (cursor row %d):\n%s", v.y, v.text())
	}
	scr.CursorAt(v.y)
	// Re-wrapped at 20 columns the info row takes 3 rows, and the cursor
	// falls on the third row of the input: 5 rows above it.
	if v.row(0) != "$ coder" || v.y != 5 || v.row(4) != info || v.row(5) != input || len(v.scrollback) != 0 {
		t.Fatalf("after the answer (cursor row %d):\n%s", v.y, v.text())
	}
	// The tracked row follows what is written.
	scr.Commit("out 1\nout 2\n")
	scr.SetPrompt([]string{"context: 1", "> x"}, 1, 3, nil)
	if scr.row != v.y {
		t.Fatalf("tracked row %d, cursor on %d:\n%s", scr.row, v.y, v.text())
	}
	for i := range 20 {
		scr.Commit("more " + strconv.Itoa(i) + "\n")
	}
	if scr.row != v.y || v.y != 11 {
		t.Fatalf("tracked row %d, cursor on %d after scrolling", scr.row, v.y)
	}
}

// Start asks whether the terminal has synchronized output; once it said
// so, every redraw is one synchronized update, and nothing after Close is.
func TestScreenSynchronizedOutput(t *testing.T) {
	var out strings.Builder
	scr := New(&out, func() (int, int) { return 40, 10 })
	scr.SetPrompt([]string{"context: 1", "> x"}, 1, 3, nil)
	scr.Start()
	if !strings.Contains(out.String(), "\x1b[?2026$p") || strings.Contains(out.String(), syncStart) {
		t.Fatalf("start: %q", out.String())
	}
	scr.SetSync(true)
	out.Reset()
	scr.Commit("line one\n")
	scr.Set(PartStatus, []string{"status"})
	scr.Clear()
	scr.SetPrompt([]string{"context: 1", "> xy"}, 1, 4, nil)
	got := out.String()
	if n := strings.Count(got, syncStart); n != 4 || strings.Count(got, syncEnd) != 4 || !strings.HasPrefix(got, syncStart) || !strings.HasSuffix(got, syncEnd) {
		t.Fatalf("%d updates: %q", n, got)
	}
	for _, part := range strings.Split(got, syncEnd)[:4] {
		if !strings.HasPrefix(part, syncStart) {
			t.Fatalf("drawn outside an update: %q", part)
		}
	}
	scr.Close()
	out.Reset()
	scr.Commit("after\n")
	if out.String() != "after\n" {
		t.Fatalf("after Close: %q", out.String())
	}
}
