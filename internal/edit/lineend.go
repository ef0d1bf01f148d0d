package edit

import "strings"

// Line endings, the final newline and the BOM: the parts of a file a model
// cannot see in read's output, so the tools keep them unless the model says
// plainly that it wants them changed.

// splitsCRLF reports whether the region [start, end) of s begins or ends
// between the \r and \n of a CRLF pair: an old_string "\nfoo" matches there
// exactly, and replacing from that point would leave a bare \r behind and
// give the inserted lines LF endings.
func splitsCRLF(s string, start, end int) bool {
	if start > 0 && start < len(s) && s[start-1] == '\r' && s[start] == '\n' {
		return true
	}
	return end > 0 && end < len(s) && s[end-1] == '\r' && s[end] == '\n'
}

// dominantEOL is the line break most lines of s end with; def when s has
// none.
func dominantEOL(s, def string) string {
	n := strings.Count(s, "\n")
	if n == 0 {
		return def
	}
	if crlf := strings.Count(s, "\r\n"); crlf*2 >= n {
		return "\r\n"
	}
	return "\n"
}

// fileEOL is the line break new lines of a file take where nothing closer
// decides: the file's majority, LF for a file without line breaks.
func fileEOL(content string) string { return dominantEOL(content, "\n") }

// endsWithEOL reports whether s ends with a line break.
func endsWithEOL(s string) bool { return strings.HasSuffix(s, "\n") }

// trimEOL drops one final line break (LF or CRLF) from s.
func trimEOL(s string) string {
	return strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
}

// finalNewlineWish says what the model's texts ask of the file's final
// newline when they replace the end of the file: add it when new_string is
// old_string plus a line break, remove it for the reverse, and otherwise
// keep the file as it is (models add or drop a trailing \n by habit).
// want is meaningful only when change is true.
func finalNewlineWish(old, repl string) (want, change bool) {
	o, n := normaliseEOL(old), normaliseEOL(repl)
	switch {
	case n == o+"\n":
		return true, true
	case o == n+"\n":
		return false, true
	}
	return false, false
}

// setFinalNewline makes text end with one line break (eol) or without one,
// as want says. Only one break is added or removed: a blank last line the
// replacement wrote stays.
func setFinalNewline(text string, want bool, eol string) string {
	switch has := endsWithEOL(text); {
	case text == "" || has == want:
		return text
	case want:
		return text + eol
	}
	return trimEOL(text)
}

// bomWish says what the model's texts ask of a UTF-8 BOM: like the final
// newline, it changes only when old_string and new_string differ by it
// alone, at the start of the file. old and repl come back without it.
func bomWish(old, repl string) (o, r string, want, change bool) {
	ob, o := splitBOM(old)
	rb, r := splitBOM(repl)
	if ob != rb && o == r {
		return o, r, rb != "", true
	}
	return o, r, false, false
}

// utf8BOM starts some files (often from Windows editors); models never
// write it, so the tools keep it aside and put it back.
const utf8BOM = "\uFEFF"

// splitBOM separates a leading UTF-8 BOM from the text.
func splitBOM(s string) (bom, body string) {
	if strings.HasPrefix(s, utf8BOM) {
		return utf8BOM, s[len(utf8BOM):]
	}
	return "", s
}

// KeepStyle keeps what a model never writes but an existing file has: a
// UTF-8 BOM and CRLF line endings (when content has no CR at all). kept
// says so for the message.
func KeepStyle(before, content string) (string, string) {
	var notes []string
	if fileEOL(before) == "\r\n" && !strings.Contains(content, "\r") {
		content = toCRLF(content)
		notes = append(notes, "CRLF line endings")
	}
	if strings.HasPrefix(before, utf8BOM) && !strings.HasPrefix(content, utf8BOM) {
		content = utf8BOM + content
		notes = append(notes, "the UTF-8 BOM")
	}
	if len(notes) == 0 {
		return content, ""
	}
	return content, "; kept the file's " + strings.Join(notes, " and ")
}
