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
