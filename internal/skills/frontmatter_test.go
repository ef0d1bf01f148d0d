package skills

import (
	"strings"
	"testing"
)

func TestFrontMatter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		want     map[string]string
		body     string
	}{
		{"plain", "---\nname: pdf\ndescription: Fill PDF forms # a comment\n---\n# Body\n", map[string]string{"name": "pdf", "description": "Fill PDF forms"}, "# Body\n"},
		{"quoted", "---\r\nname: \"a\\\"b\"\r\ndescription: 'it''s # here' # c\r\n---\r\nx", map[string]string{"name": `a"b`, "description": "it's # here"}, "x"},
		{"literal block", "---\nname: x\ndescription: |\n  line one\n    indented\n\n  line three\nlicense: MIT\n---\n", map[string]string{"name": "x", "description": "line one\n  indented\n\nline three\n", "license": "MIT"}, ""},
		{"folded strip", "---\ndescription: >-\n  folded\n  text\n\n  para\nname: y\n---\nbody", map[string]string{"name": "y", "description": "folded text\npara"}, "body"},
		{"plain continued", "---\nname: z\ndescription: a long\n  description here\nmetadata:\n  owner: me\nallowed-tools:\n  - read\n---\n", map[string]string{"name": "z", "description": "a long description here", "metadata": "", "allowed-tools": ""}, ""},
		{"none", "# Just markdown\n", nil, "# Just markdown\n"},
		{"bom and dots", "\uFEFF---\nname: b\n...\nrest", map[string]string{"name": "b"}, "rest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, body, err := FrontMatter(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Errorf("fields = %q, want %q", got, c.want)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if body != c.body {
				t.Errorf("body = %q, want %q", body, c.body)
			}
		})
	}
}

func TestFrontMatterErrors(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"---\nname: x\n":              "not terminated",
		"---\nname: \"open\n---\n":    "line 2: name: bad double-quoted value",
		"---\nname: 'open\n---\n":     "unterminated single-quoted",
		"---\njust words here\n---\n": `line 2: "just words here" is not a key: value pair`,
	} {
		_, _, err := FrontMatter(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FrontMatter(%q) error = %v, want %q", in, err, want)
		}
	}
}
