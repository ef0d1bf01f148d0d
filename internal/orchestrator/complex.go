package orchestrator

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// complexKeywords mark inputs that usually need several steps.
var complexKeywords = []string{
	// English
	"refactor", "implement", "migrate", "migration", "architecture", "redesign", "rewrite",
	"end-to-end", "end to end", "integrate", "optimize", "optimise", "multiple", "several",
	"step by step", "and then", "across the",
	// Chinese
	"重构", "实现", "迁移", "架构", "重新设计", "重写", "集成", "优化", "多个", "逐步", "然后", "并且", "全面",
}

// listItem matches a line that is an enumerated goal: "1.", "2)", "- ", "* ", "一、".
var listItem = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:\d+[.)、]|[-*•]\s|[一二三四五六七八九十]+、)`)
})

// inlineEnum matches inline enumerations: "1) a 2) b", "(1) … (2)", "first … second".
var inlineEnum = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:\(?\b1[.)]\s.*\(?\b2[.)]\s)|(?:\bfirst\b.*\b(?:second|then)\b)|(?:首先.*(?:然后|其次|最后))`)
})

// mayEnumerate is false only for input neither pattern above can match:
// ASCII text with no digit, no "-" or "*" and no "first" in any case (every
// other marker they know is non-ASCII). Most short prompts are such, and
// are then spared the two regexps and their compilation.
func mayEnumerate(s string) bool {
	for i := range len(s) {
		if c := s[i]; c >= utf8.RuneSelf || c >= '0' && c <= '9' || c == '-' || c == '*' {
			return true
		}
	}
	return strings.Contains(strings.ToLower(s), "first")
}

// isComplexTask says an input needs a todo plan: an explicit enumeration of several
// goals, at least 80 characters, a complexity keyword, at least two
// separators among ，,;； or at least 14 words.
func isComplexTask(input string) bool {
	s := strings.TrimSpace(input)
	switch {
	case s == "":
		return false
	case mayEnumerate(s) && (len(listItem().FindAllStringIndex(s, 3)) >= 2 || inlineEnum().MatchString(s)):
		return true
	case utf8.RuneCountInString(s) >= 80:
		return true
	case strings.Count(s, "，")+strings.Count(s, ",")+strings.Count(s, ";")+strings.Count(s, "；") >= 2:
		return true
	case len(strings.Fields(s)) >= 14:
		return true
	}
	lower := strings.ToLower(s)
	for _, k := range complexKeywords {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}
