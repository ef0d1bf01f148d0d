package orchestrator

import (
	"strings"
	"testing"
)

func TestIsComplexTask(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"hi", false},
		{"fix the typo in README", false},
		{"what does main.go do?", false},
		{"修复拼写错误", false},
		{"解释这个函数", false},
		// enumerations
		{"1. add a flag\n2. document it", true},
		{"- parse the file\n- print the result", true},
		{"一、读取配置\n二、校验参数", true},
		{"do this: 1) add a flag 2) test it", true},
		{"first add the flag, then test", true},
		{"首先读取配置然后校验", true},
		{"First build it then ship", true},
		{"* parse\n* print", true},
		{"• parse\n• print", true},
		// length
		{strings.Repeat("a", 79), false},
		{strings.Repeat("a", 80), true},
		{strings.Repeat("中", 80), true},
		// keywords
		{"refactor the parser", true},
		{"Implement caching", true},
		{"重构解析器", true},
		{"迁移到新接口", true},
		// separators
		{"add a flag, test it, ship", true},
		{"加一个参数，写测试；提交", true},
		{"a; b", false},
		// words
		{"please look at the code in the file and tell me what it does now ok", true},
		{"please look at the code in the file and tell me what", false},
	}
	for _, c := range cases {
		if got := isComplexTask(c.in); got != c.want {
			t.Errorf("isComplexTask(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// mayEnumerate only spares the regexps when they cannot match: whatever it
// says false to, neither pattern matches.
func FuzzMayEnumerate(f *testing.F) {
	for _, s := range []string{"hi", "1. a\n2. b", "- a\n- b", "FIRST a THEN b", "firſt a then b",
		"(1) a (2) b", "一、a\n二、b", "首先a然后b", "• a\n• b", "plain words only", "a\tb\n c",
		"FiRsT x then y", "a - b", "a\n- b", "x *y* z", "then second"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if mayEnumerate(s) {
			return
		}
		if listItem().MatchString(s) || inlineEnum().MatchString(s) {
			t.Fatalf("mayEnumerate(%q) = false, but a pattern matches", s)
		}
	})
}

// TestMayEnumerateKeepsWhatThePatternsMatch: inputs the regexps match at
// the shortcut's edges (case folding, a non-ASCII "ſ", CJK enumerations)
// are never spared, and plain prose is.
func TestMayEnumerateKeepsWhatThePatternsMatch(t *testing.T) {
	for _, s := range []string{"1. a\n2. b", "- a\n- b", "FiRsT x then y", "firſt a then b", "一、a\n二、b", "首先a然后b"} {
		if !listItem().MatchString(s) && !inlineEnum().MatchString(s) {
			t.Fatalf("%q matches neither pattern: not an edge case", s)
		}
		if !mayEnumerate(s) {
			t.Errorf("mayEnumerate(%q) = false, but a pattern matches it", s)
		}
	}
	for _, s := range []string{"hi", "then second", "plain words only"} {
		if mayEnumerate(s) {
			t.Errorf("mayEnumerate(%q) = true: plain prose should spare the regexps", s)
		}
	}
}
