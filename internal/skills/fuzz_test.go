package skills

import (
	"strings"
	"testing"
)

// FuzzFrontMatter reads any SKILL.md or custom command file (both come from
// repositories and home directories, so they are outside input). It never
// panics; without a leading --- line the whole text is the body; with
// front matter the body is what follows the closing line; and every key
// found is a non-empty, trimmed name from a line of the front matter.
func FuzzFrontMatter(f *testing.F) {
	f.Add("---\nname: go-test\ndescription: Run the tests\n---\n# Body\n")
	f.Add("\uFEFF---\r\nname: 'quoted # not a comment'\r\ndescription: \"esc \\\" \\n\"\r\n---\r\nbody")
	f.Add("---\ndescription: |\n  line one\n  line two\nname: x\n---\n")
	f.Add("---\ndescription: >-\n  folded\n\n  para\n...\nbody")
	f.Add("---\nmeta:\n  nested: 1\n- item\n# comment\nname: x # trailing\n---")
	f.Add("---\nname x\n---\n")
	f.Add("---\nname: \"unterminated\n---\n")
	f.Add("---\nname: x\n")
	f.Add("no front matter\n---\nname: x\n---\n")
	f.Add("---\n: empty key\n---\n")
	f.Add("---\nd: |+2\n    kept\n\n---\n")
	f.Fuzz(func(t *testing.T, text string) {
		fields, body, err := FrontMatter(text)
		norm := strings.ReplaceAll(strings.TrimPrefix(text, "\uFEFF"), "\r\n", "\n")
		first, _, _ := strings.Cut(norm, "\n")
		if strings.TrimRight(first, " \t") != "---" {
			if err != nil || fields != nil || body != norm {
				t.Fatalf("text without front matter: fields %v, body %q, err %v", fields, body, err)
			}
			return
		}
		if err != nil {
			if fields != nil || body != "" || err.Error() == "" {
				t.Fatalf("error %v with fields %v body %q", err, fields, body)
			}
			return
		}
		if !strings.HasSuffix(norm, body) {
			t.Fatalf("body %q is not the end of the file", body)
		}
		for k := range fields {
			if strings.TrimSpace(k) != k || strings.ContainsAny(k, "\n") {
				t.Fatalf("bad key %q", k)
			}
			if !strings.Contains(norm, k) {
				t.Fatalf("key %q is not in the file", k)
			}
		}
	})
}
