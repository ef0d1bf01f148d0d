package tools

import "regexp/syntax"

// requiredLiteral is the longest literal every match of expr must contain,
// or "" when there is none (alternations, optional parts, case folding). A
// file without it cannot match, and bytes.Contains rejects it far faster
// than the regexp engine can.
func requiredLiteral(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	return mustContain(re.Simplify())
}

func mustContain(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture:
		return mustContain(re.Sub[0])
	case syntax.OpPlus:
		return mustContain(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return mustContain(re.Sub[0])
		}
	case syntax.OpConcat:
		// Adjacent literals join into a longer required run.
		best, run := "", ""
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 {
				run += string(sub.Rune)
				best = longer(best, run)
				continue
			}
			run = ""
			best = longer(best, mustContain(sub))
		}
		return best
	}
	return ""
}

func longer(a, b string) string {
	if len(b) > len(a) {
		return b
	}
	return a
}
