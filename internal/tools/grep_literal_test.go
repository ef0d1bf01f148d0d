package tools

import "testing"

func TestRequiredLiteral(t *testing.T) {
	cases := map[string]string{
		"func Add":           "func Add",
		`if err != nil \{`:   "if err != nil {",
		`\w+Error\b`:         "Error",
		"(?i)todo":           "",
		"foo|bar":            "",
		"a?b":                "b",
		"(abc)+x":            "abc",
		"x*":                 "",
		`^\s*package (\w+)$`: "package ",
		"colou?r":            "colo",
		"[ab]c":              "c",
		`TODO\(\w+\):`:       "TODO(",
		"(?:fmt|log).Printf": "Printf",
	}
	for expr, want := range cases {
		if got := requiredLiteral(expr); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", expr, got, want)
		}
	}
}
