package contextmgr

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/coder-agent/coder/internal/images"
	"github.com/coder-agent/coder/internal/paths"
)

// ImageRef is an image file a request names, to be sent as an image.
type ImageRef struct {
	// Ref is the reference as written; Abs the file; Name how it is shown
	// (workspace-relative when inside it).
	Ref, Abs, Name string
}

// FindImages returns the image files input names, in order, once each: an
// @path with an image extension (inside the workspace, as for any @path),
// or a pasted path — a token that is an absolute or ~/ path to an image
// file, possibly quoted or with its spaces escaped, as terminals insert a
// file dropped on them (it may be anywhere: the person put it there).
// problems lists "ref: reason" for names that cannot be attached.
func FindImages(input, workspace, home string) (refs []ImageRef, problems []string) {
	seen := map[string]bool{}
	add := func(ref, abs string) {
		if seen[abs] {
			return
		}
		seen[abs] = true
		refs = append(refs, ImageRef{Ref: ref, Abs: abs, Name: displayName(abs, workspace)})
	}
	for _, ref := range findAtRefs(input) {
		if !IsImageRef(ref) {
			continue
		}
		_, abs, err := resolveRef(ref, workspace)
		if err == nil {
			err = regular(abs)
		}
		if err != nil {
			problems = append(problems, ref+": "+err.Error())
			continue
		}
		add(ref, abs)
	}
	for _, tok := range pastedTokens(input) {
		p := tok
		if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
			p = filepath.Join(home, rest)
		}
		// "see /tmp/shot.png." ends a sentence, not the name.
		for _, c := range []string{p, strings.TrimRight(p, ".,;:!?)]}")} {
			if filepath.IsAbs(c) && images.IsImagePath(c) && regular(c) == nil {
				add(tok, filepath.Clean(c))
				break
			}
		}
	}
	return refs, problems
}

// IsImageRef reports whether an @reference names an image (attached as an
// image, not as text).
func IsImageRef(ref string) bool {
	return images.IsImagePath(strings.TrimRight(ref, ".,;:!?)]}'\"`"))
}

func regular(abs string) error {
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return errors.New("not found")
	case !st.Mode().IsRegular():
		return errors.New("not a regular file")
	}
	return nil
}

func displayName(abs, workspace string) string {
	if rel, err := filepath.Rel(workspace, abs); err == nil && paths.Within(workspace, abs) {
		return filepath.ToSlash(rel)
	}
	return abs
}

// pastedTokens splits input as a shell would for the three forms
// terminals paste a path in: 'quoted', "quoted", or with \-escaped
// spaces. Anything else is a plain word.
func pastedTokens(input string) []string {
	var toks []string
	var cur strings.Builder
	in, quote := false, rune(0)
	flush := func() {
		if in {
			toks = append(toks, cur.String())
		}
		cur.Reset()
		in = false
	}
	rs := []rune(input)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
				flush()
				continue
			}
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			if !in {
				quote, in = r, true
				continue
			}
			cur.WriteRune(r)
		case r == '\\' && i+1 < len(rs) && !unicode.IsLetter(rs[i+1]) && !unicode.IsDigit(rs[i+1]):
			in = true
			i++
			cur.WriteRune(rs[i])
		case unicode.IsSpace(r):
			flush()
		default:
			in = true
			cur.WriteRune(r)
		}
	}
	if quote == 0 {
		flush()
	}
	return toks
}
