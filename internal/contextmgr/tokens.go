package contextmgr

import (
	"unicode/utf8"

	"github.com/coder-agent/coder/internal/chat"
)

// Token weights in hundredths of a token, fitted by least squares against
// cl100k_base on testdata/tokens (see TestEstimateAccuracy for the error per
// category). BPE vocabularies make a common word, with its leading space, one
// token whatever its length; so counting words beats counting bytes, and
// punctuation, digits and whitespace runs are what make code, JSON and shell
// output denser than prose.
const (
	wWord     = 112 // a run of letters; camelCase humps count separately
	wDigitRun = 100 // a number also splits off the space before it
	wDigits3  = 100 // tokenizers cut numbers into groups of up to 3 digits
	wPunct    = 45  // common pairs like "()", ");", ":=" are single tokens
	wNewline  = 80
	wSpaceRun = 100 // two or more spaces or tabs (indentation, aligned columns)
	wWide     = 100 // a CJK character: about one token (cl100k 1.07, o200k 0.75)
	wAlphabet = 40  // per letter of accented Latin, Greek, Cyrillic, … on top of wWord
	wSymbol   = 125 // other non-ASCII: arrows, box drawing, typographic punctuation
	wEmoji    = 200 // emoji and dingbats are two or three byte-level tokens
)

// Byte classes for the ASCII scan.
const (
	cPunct uint8 = iota
	cLower
	cUpper
	cDigit
	cSpace
	cNewline
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c >= 'a' && c <= 'z' || c == '_':
			t[c] = cLower
		case c >= 'A' && c <= 'Z':
			t[c] = cUpper
		case c >= '0' && c <= '9':
			t[c] = cDigit
		case c == ' ' || c == '\t' || c == '\r':
			t[c] = cSpace
		case c == '\n':
			t[c] = cNewline
		default:
			t[c] = cPunct
		}
	}
	return t
}()

// EstimateText is a fast token estimate: one pass, no allocations. On the
// test corpus (prose, Go, Python, JSON, shell output, a diff, Chinese) it is
// within ±7% of cl100k_base per category and ±12% on 600-byte pieces (see
// TestEstimateAccuracy). Provider-reported usage is preferred whenever there
// is one (ContextSize).
func EstimateText(s string) int {
	units := 0
	prev := cSpace // class of the previous ASCII byte
	spaces, digits := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			i += n
			if spaces >= 2 {
				units += wSpaceRun
			}
			spaces, digits = 0, 0
			if isAlphabet(r) { // a letter of a word, like ASCII lower case
				if prev != cLower && prev != cUpper {
					units += wWord
				}
				units += wAlphabet
				prev = cLower
				continue
			}
			units += runeWeight(r)
			prev = cPunct
			continue
		}
		i++
		cl := asciiClass[c]
		if cl != cSpace {
			if spaces >= 2 {
				units += wSpaceRun
			}
			spaces = 0
		}
		if cl != cDigit {
			digits = 0
		}
		switch cl {
		case cLower:
			if prev != cLower && prev != cUpper {
				units += wWord
			}
		case cUpper:
			if prev != cUpper {
				units += wWord // the start of a word or of a camelCase hump
			}
		case cDigit:
			if digits == 0 {
				units += wDigitRun
			}
			if digits%3 == 0 {
				units += wDigits3
			}
			digits++
		case cSpace:
			spaces++
		case cNewline:
			units += wNewline
		default:
			units += wPunct
		}
		prev = cl
	}
	if spaces >= 2 {
		units += wSpaceRun
	}
	if units == 0 && len(s) > 0 {
		return 1 // a lone space is still a token
	}
	return (units + 99) / 100
}

// isAlphabet reports whether r is a letter of an alphabet that BPE merges
// into words: Latin with diacritics, Greek, Cyrillic, Armenian, Hebrew, Arabic.
func isAlphabet(r rune) bool { return r >= 0x00C0 && r <= 0x06FF && r != 0x00D7 && r != 0x00F7 }

// runeWeight is the weight of one non-ASCII rune that is not an alphabet letter.
func runeWeight(r rune) int {
	switch {
	case r >= 0x2E80 && r <= 0x9FFF, // CJK radicals, punctuation, kana, ideographs
		r >= 0xAC00 && r <= 0xD7AF, // Hangul
		r >= 0xF900 && r <= 0xFAFF, // CJK compatibility ideographs
		r >= 0xFF00 && r <= 0xFFEF: // full-width forms
		return wWide
	case r >= 0x2700 && r <= 0x27BF, r >= 0x10000: // dingbats, emoji
		return wEmoji
	}
	return wSymbol
}

// perMessageOverhead covers role markers and separators; perToolOverhead the
// JSON wrapping of a tool schema on the wire (measured: about 15 tokens).
const (
	perMessageOverhead = 4
	perToolOverhead    = 12
)

// Estimate is the estimated size of a request: system prompt, messages and tool schemas.
func Estimate(system string, msgs []chat.Message, specs []chat.ToolSpec) int {
	n := EstimateText(system)
	for i := range msgs {
		n += estimateMessage(&msgs[i])
	}
	for _, s := range specs {
		n += perToolOverhead + EstimateText(s.Name) + EstimateText(s.Description) + EstimateText(string(s.Parameters))
	}
	return n
}

func estimateMessage(m *chat.Message) int {
	n := perMessageOverhead + EstimateText(m.Content) + EstimateText(m.Reasoning)
	for _, c := range m.ToolCalls {
		n += EstimateText(c.Name) + EstimateText(c.Arguments) + perMessageOverhead
	}
	for _, img := range m.Images {
		n += imageTokens(img)
	}
	return n
}

// imageTokens is an image's size in tokens: Anthropic counts width×height
// / 750 (about 1,600 for an image at its recommended size); OpenAI's tiles
// come to about as much. Unknown sizes count as a full image.
func imageTokens(img chat.Image) int {
	if img.Width <= 0 || img.Height <= 0 {
		return 1600
	}
	return max(85, min(img.Width*img.Height/750, 3300))
}

// ContextSize is the size of what the next model call will send. When the
// provider reported usage for the last call, that call's prompt plus its
// output is exact up to the assistant message it produced, and only the
// messages appended since (tool results, a new user message) are estimated;
// otherwise everything is estimated and since must be the whole history.
// The caller must pass zero usage after anything that rewrites what was
// counted: a compaction, or a change of system prompt or tool list (a mode
// switch).
func ContextSize(last chat.Usage, since []chat.Message, system string, specs []chat.ToolSpec) int {
	if last.IsZero() {
		return Estimate(system, since, specs)
	}
	return last.PromptTokens() + last.OutputTokens + Estimate("", since, nil)
}
