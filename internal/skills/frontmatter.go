package skills

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FrontMatter splits a Markdown file into its YAML front matter fields and
// the body after it. A file that does not start with a "---" line has no
// front matter: fields is nil and body is the whole text.
//
// No YAML library is in go.mod and SKILL.md needs very little, so this reads
// the subset such files use: top-level `key: value` lines with plain,
// 'single' or "double" quoted values, and `|` / `>` block scalars (with the
// -/+ chomping indicators). Nested maps, lists and comments are skipped.
func FrontMatter(text string) (fields map[string]string, body string, err error) {
	text = strings.TrimPrefix(text, "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		return nil, text, nil
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if l := strings.TrimRight(lines[i], " \t"); l == "---" || l == "..." {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, "", errors.New("front matter is not terminated by a --- line")
	}
	fields, err = parseFields(lines[1:end])
	if err != nil {
		return nil, "", err
	}
	return fields, strings.TrimLeft(strings.Join(lines[end+1:], "\n"), "\n"), nil
}

func parseFields(lines []string) (map[string]string, error) {
	fields := map[string]string{}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || l[0] == ' ' || l[0] == '\t' || strings.HasPrefix(t, "- ") {
			continue // blank, comment, or part of a nested value we skip
		}
		key, raw, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not a key: value pair", i+2, t)
		}
		key, raw = strings.TrimSpace(key), strings.TrimSpace(raw)
		if style := raw; style != "" && (style[0] == '|' || style[0] == '>') {
			var n int
			fields[key], n = blockScalar(style, lines[i+1:])
			i += n
			continue
		}
		v, err := scalar(raw)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %v", i+2, key, err)
		}
		if raw != "" && raw[0] != '"' && raw[0] != '\'' {
			// A plain value may go on over indented lines, folded by spaces.
			for i+1 < len(lines) && isContinuation(lines[i+1]) {
				i++
				v += " " + strings.TrimSpace(lines[i])
			}
		}
		fields[key] = v
	}
	return fields, nil
}

func isContinuation(l string) bool {
	t := strings.TrimSpace(l)
	return t != "" && (l[0] == ' ' || l[0] == '\t') && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "- ") && !strings.Contains(t, ": ")
}

// blockScalar reads the indented lines after a `|` or `>` header and returns
// the value and how many lines it used.
func blockScalar(header string, rest []string) (string, int) {
	n, indent := 0, -1
	var parts []string
	for ; n < len(rest); n++ {
		l := rest[n]
		if strings.TrimSpace(l) == "" {
			parts = append(parts, "")
			continue
		}
		lead := len(l) - len(strings.TrimLeft(l, " \t"))
		if lead == 0 {
			break
		}
		if indent < 0 {
			indent = lead
		}
		parts = append(parts, l[min(indent, lead):])
	}
	// Trailing blank lines belong to the next key, not this value.
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
		n--
	}
	v := strings.Join(parts, "\n")
	if header[0] == '>' {
		v = fold(parts)
	}
	switch {
	case strings.Contains(header, "-"):
	case strings.Contains(header, "+"), v != "":
		v += "\n"
	}
	return v, n
}

// fold joins lines with spaces, keeping blank lines as paragraph breaks.
func fold(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		switch {
		case p == "":
			b.WriteString("\n")
		case i > 0 && parts[i-1] != "":
			b.WriteString(" ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// scalar decodes a plain or quoted one-line value.
func scalar(raw string) (string, error) {
	switch {
	case strings.HasPrefix(raw, `"`):
		v, err := strconv.Unquote(withoutComment(raw, '"'))
		if err != nil {
			return "", errors.New("bad double-quoted value")
		}
		return v, nil
	case strings.HasPrefix(raw, "'"):
		q := withoutComment(raw, '\'')
		if len(q) < 2 || !strings.HasSuffix(q, "'") {
			return "", errors.New("unterminated single-quoted value")
		}
		return strings.ReplaceAll(q[1:len(q)-1], "''", "'"), nil
	}
	if i := strings.Index(raw, " #"); i >= 0 {
		raw = strings.TrimSpace(raw[:i])
	}
	return raw, nil
}

// withoutComment drops a "# comment" after the closing quote of raw.
func withoutComment(raw string, quote byte) string {
	j := strings.LastIndexByte(raw, quote)
	if j <= 0 {
		return raw
	}
	if rest := strings.TrimSpace(raw[j+1:]); rest == "" || rest[0] == '#' {
		return raw[:j+1]
	}
	return raw
}
