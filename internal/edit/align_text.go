package edit

import (
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// keepUnchanged is the text of a changed line: n rewrites the model's old
// text o, which matched the file's f up to punctuation drift. The start and
// end that n shares with o are taken from f, so a curly quote or a dash the
// model typed differently survives where the model changed nothing; the
// middle is the model's, its typographic slips undone.
func keepUnchanged(o, f, n string, punct bool, slips map[rune]bool) string {
	if !punct || o == f {
		return asciiForChanged(o, n, slips)
	}
	syncs := syncPoints(o, f)
	if syncs == nil {
		return asciiForChanged(o, n, slips)
	}
	p, s := commonEnds(o, n)
	head, tail := syncs[0], syncs[len(syncs)-1]
	for _, sp := range syncs {
		if sp.o <= p {
			head = sp
		}
	}
	for k := len(syncs) - 1; k >= 0; k-- {
		if syncs[k].o >= len(o)-s && syncs[k].o >= head.o {
			tail = syncs[k]
		}
	}
	mid := n[head.o : len(n)-(len(o)-tail.o)]
	return f[:head.f] + asciiForChanged(o[head.o:tail.o], mid, slips) + f[tail.f:]
}

// commonEnds is the length of the common prefix and of the common suffix
// of a and b, on rune boundaries, not overlapping in either.
func commonEnds(a, b string) (p, s int) {
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	for p > 0 && p < len(a) && !utf8.RuneStart(a[p]) {
		p--
	}
	limit := min(len(a), len(b)) - p
	for s < limit && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	for s > 0 && s < len(a) && !utf8.RuneStart(a[len(a)-s]) {
		s--
	}
	return p, s
}

// syncPoint is a pair of offsets of o and f before which both read the
// same once punctuation is normalised.
type syncPoint struct{ o, f int }

// syncPoints walks o and f rune by rune and lists where they are in step;
// nil when they do not normalise to the same text.
func syncPoints(o, f string) []syncPoint {
	ou, fu := lineUnits(nil, o, 0, len(o), true), lineUnits(nil, f, 0, len(f), true)
	var norm strings.Builder
	syncs := []syncPoint{{0, 0}}
	i, j, ol, fl := 0, 0, 0, 0
	for i < len(ou) || j < len(fu) {
		if (ol <= fl && i < len(ou)) || j == len(fu) {
			ol += len(ou[i].out)
			norm.WriteString(ou[i].out)
			i++
		} else {
			fl += len(fu[j].out)
			j++
		}
		if ol == fl {
			syncs = append(syncs, syncPoint{offset(ou, i, len(o)), offset(fu, j, len(f))})
		}
	}
	if ol != fl || !sameNormalised(norm.String(), fu) {
		return nil
	}
	return syncs
}

func offset(us []unit, i, end int) int {
	if i < len(us) {
		return us[i].s
	}
	return end
}

func sameNormalised(s string, us []unit) bool {
	for _, u := range us {
		if !strings.HasPrefix(s, u.out) {
			return false
		}
		s = s[len(u.out):]
	}
	return s == ""
}

// typographicDrift lists the typographic characters the model typed in old
// where the file has none at all: the model's slips (“ for ", — for -),
// which its new lines repeat.
func typographicDrift(old, region string) map[rune]bool {
	var slips map[rune]bool
	for _, r := range old {
		if _, ok := punctuation(r); ok && !strings.ContainsRune(region, r) {
			if slips == nil {
				slips = map[rune]bool{}
			}
			slips[r] = true
		}
	}
	return slips
}

// asciiForChanged undoes the model's typographic slips in n, which
// rewrites o, but not where n changes o's punctuation alone: a character
// put in place of one that reads the same once normalised (’ for ') is
// the change the model asked for.
func asciiForChanged(o, n string, slips map[rune]bool) string {
	if len(slips) == 0 || !utf8.ValidString(o) || !utf8.ValidString(n) {
		return asciiFor(n, slips)
	}
	or, nr := []rune(o), []rune(n)
	var b strings.Builder
	j := 0
	for _, d := range lcs.DiffRunes(or, nr) {
		b.WriteString(asciiFor(string(nr[j:d.ReplStart]), slips))
		repl := string(nr[d.ReplStart:d.ReplEnd])
		if d.End > d.Start && punctKey(string(or[d.Start:d.End])) == punctKey(repl) {
			b.WriteString(repl)
		} else {
			b.WriteString(asciiFor(repl, slips))
		}
		j = d.ReplEnd
	}
	b.WriteString(asciiFor(string(nr[j:]), slips))
	return b.String()
}

// punctKey is s with typographic punctuation normalised.
func punctKey(s string) string { return buildView(s, normOpts{unicode: true}, false).text }

// asciiFor undoes the model's typographic slips in s.
func asciiFor(s string, slips map[rune]bool) string {
	if len(slips) == 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if p, ok := punctuation(r); ok && slips[r] {
			b.WriteString(p)
		} else {
			b.WriteString(s[i : i+size]) // invalid bytes pass unchanged
		}
		i += size
	}
	return b.String()
}
