package config

import (
	"fmt"
	"strings"
)

// FileError is a problem with one configuration value: where it came from, which
// key, and what is wrong. Load returns these (joined with errors.Join when there
// are several), so callers can use errors.As to find the file and key.
type FileError struct {
	// File is the config file that set the value; empty when the value came from
	// the environment, a flag or the defaults.
	File string
	// Key is the dotted key path, e.g. "provider.timeout_ms" or
	// "permission.bash[2].action"; empty for whole-file problems.
	Key string
	// Problem says what is wrong, e.g. `must be a number, got "abc"`.
	Problem string
	// Source names the environment variable or flag that set the value when File
	// is empty, e.g. "CODER_MAX_STEPS" or "--permissions".
	Source string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString("config")
	if e.File != "" {
		b.WriteString(" " + e.File)
	}
	b.WriteString(": ")
	// An unknown-key problem already quotes the key; don't say it twice.
	if e.Key != "" && !strings.Contains(e.Problem, `"`+e.Key+`"`) {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Problem)
	if e.File == "" && e.Source != "" {
		b.WriteString(" (set by " + e.Source + ")")
	}
	return b.String()
}

// EnvError is a bad value in an environment variable coder reads.
type EnvError struct {
	Var     string
	Problem string
}

func (e *EnvError) Error() string {
	return fmt.Sprintf("environment variable %s: %s", e.Var, e.Problem)
}

// describeJSON renders a decoded JSON value for an error message: scalars as
// JSON literals (so strings keep their quotes), containers by kind.
func describeJSON(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("%q", x)
	default:
		return fmt.Sprint(x)
	}
}

// suggest returns the candidate nearest to name when it is close enough to be a
// likely typo: edit distance ≤ 2, or equal once case and separators are ignored
// ("baseURL" → "base_url").
func suggest(name string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if squash(c) == squash(name) {
			return c
		}
		if d := editDistance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

func squash(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
