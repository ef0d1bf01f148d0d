package contextmgr

import (
	"unicode/utf8"

	"github.com/coder-agent/coder/internal/chat"
)

// EstimateText is a fast token estimate: about four bytes per token for ASCII
// text and about one token per CJK or other wide rune.
func EstimateText(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		other++
		i += n
	}
	return (ascii+3)/4 + other
}

// perMessageOverhead covers role markers and separators.
const perMessageOverhead = 4

// Estimate is the estimated size of a request: system prompt, messages and tool schemas.
func Estimate(system string, msgs []chat.Message, specs []chat.ToolSpec) int {
	n := EstimateText(system)
	for i := range msgs {
		m := &msgs[i]
		n += perMessageOverhead + EstimateText(m.Content) + EstimateText(m.Reasoning)
		for _, c := range m.ToolCalls {
			n += EstimateText(c.Name) + EstimateText(c.Arguments) + perMessageOverhead
		}
	}
	for _, s := range specs {
		n += EstimateText(s.Name) + EstimateText(s.Description) + EstimateText(string(s.Parameters))
	}
	return n
}
