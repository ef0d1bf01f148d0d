package llm

// Truncated reports whether a stop reason says the answer was cut by the
// output limit: Chat Completions' "length", Anthropic's "max_tokens", an
// incomplete Responses API answer's "max_output_tokens". Such an answer is
// never a success: it may be partial, or empty because reasoning used the
// whole budget.
func Truncated(stop string) bool {
	switch stop {
	case "length", "max_tokens", "max_output_tokens":
		return true
	}
	return false
}
