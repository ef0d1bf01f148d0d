package render

import (
	"strings"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/termsafe"
)

const (
	// keptHead and keptTail bound what is kept of one call's output for
	// /output: its first and its latest lines. The tail shown when the
	// call ends is always its real end, however much it wrote.
	keptHead = 1 << 20
	keptTail = 3 << 20
	// longestLine is where a line without an end is broken, so one
	// endless line cannot grow without bound.
	longestLine = 64 << 10
)

// outputLog is a command's output as lines, stdout and stderr interleaved
// as they arrived, stderr lines marked: the first lines, the latest ones,
// and how many between them were let go.
type outputLog struct {
	head      []outLine
	tail      []outLine // tail[from:] are the latest lines
	from      int
	headBytes int
	tailBytes int
	dropped   int       // lines let go between head and tail
	partial   [2]string // the unfinished last line of stdout and stderr
}

type outLine struct {
	text   string
	stderr bool
}

func (l *outputLog) add(stream, text string) {
	i := 0
	if stream == event.Stderr {
		i = 1
	}
	s := l.partial[i] + text
	for {
		j := strings.IndexByte(s, '\n')
		if j < 0 && len(s) > longestLine {
			j = longestLine
		} else if j < 0 {
			break
		}
		l.push(outLine{text: termsafe.Visible(strings.TrimSuffix(s[:j], "\r")), stderr: i == 1})
		s = s[min(j+1, len(s)):]
	}
	l.partial[i] = s
}

func (l *outputLog) push(line outLine) {
	if l.dropped == 0 && len(l.tail) == 0 && l.headBytes+len(line.text) <= keptHead {
		l.head = append(l.head, line)
		l.headBytes += len(line.text)
		return
	}
	l.tail = append(l.tail, line)
	l.tailBytes += len(line.text)
	for l.tailBytes > keptTail && l.from < len(l.tail)-1 {
		l.tailBytes -= len(l.tail[l.from].text)
		l.from++
		l.dropped++
	}
	if l.from > len(l.tail)/2 { // let go of the dropped lines' memory now and then
		l.tail = append([]outLine(nil), l.tail[l.from:]...)
		l.from = 0
	}
}

// partials are the unfinished last lines.
func (l *outputLog) partials() []outLine {
	var out []outLine
	for i, p := range l.partial {
		if p != "" {
			out = append(out, outLine{text: termsafe.Visible(p), stderr: i == 1})
		}
	}
	return out
}

// count is how many lines were written, the unfinished ones included.
func (l *outputLog) count() int {
	return len(l.head) + l.dropped + len(l.tail) - l.from + len(l.partials())
}

// last is the latest n lines, the unfinished ones included.
func (l *outputLog) last(n int) []outLine {
	lines := l.partials()
	for i := len(l.tail) - 1; i >= l.from && len(lines) < n; i-- {
		lines = append([]outLine{l.tail[i]}, lines...)
	}
	for i := len(l.head) - 1; i >= 0 && len(lines) < n; i-- {
		lines = append([]outLine{l.head[i]}, lines...)
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// kept is what /output shows: the first lines, how many were let go, and
// the latest lines.
func (l *outputLog) kept() (head []outLine, dropped int, tail []outLine) {
	tail = append(append([]outLine(nil), l.tail[l.from:]...), l.partials()...)
	return l.head, l.dropped, tail
}
