package chat

// DeltaKind says what a MessageDelta carries.
type DeltaKind uint8

const (
	DeltaText          DeltaKind = iota + 1 // Text holds a chunk of answer text
	DeltaReasoning                          // Text holds a chunk of reasoning of block Block (kind BlockKind)
	DeltaReasoningSig                       // Text holds (part of) the signature of block Block
	DeltaToolCallStart                      // ToolIndex, ToolCallID and ToolName are set
	DeltaToolCallArgs                       // ToolIndex and Text (an arguments fragment)
	DeltaToolCallEnd                        // ToolIndex
	DeltaUsage                              // Usage is set
	DeltaDone                               // the model finished; StopReason may be set
	DeltaReset                              // a retry diverged from what was streamed: discard the partial message
	DeltaReasoningRaw                       // Raw is the verbatim provider object of block Block (kind BlockKind)
	DeltaToolCallExtra                      // Raw is what the provider attached to call ToolIndex
)

func (k DeltaKind) String() string {
	switch k {
	case DeltaText:
		return "text"
	case DeltaReasoning:
		return "reasoning"
	case DeltaReasoningSig:
		return "reasoning_signature"
	case DeltaToolCallStart:
		return "tool_call_start"
	case DeltaToolCallArgs:
		return "tool_call_args"
	case DeltaToolCallEnd:
		return "tool_call_end"
	case DeltaUsage:
		return "usage"
	case DeltaDone:
		return "done"
	case DeltaReset:
		return "reset"
	case DeltaReasoningRaw:
		return "reasoning_raw"
	case DeltaToolCallExtra:
		return "tool_call_extra"
	}
	return "unknown"
}

// MessageDelta is one normalised piece of a streamed model response. Every
// provider turns its wire format into these; nothing above the llm package
// sees a provider's raw stream. Errors are not deltas: Provider.Stream returns
// them.
type MessageDelta struct {
	RunID          string
	ModelCallIndex int
	// RunID, ModelCallIndex and Seq are the delta's identity, stamped once
	// by the retry layer (llm.WithRetry) that every provider is wrapped in:
	// Seq increases by one per delta consumers see of one model call,
	// across its attempts (an attempt's replay of what was already
	// streamed is dropped there, not passed on). A provider's own deltas
	// carry none.
	Seq  int
	Kind DeltaKind

	Text string

	// Block is the position of the reasoning block (see
	// ReasoningBlock) the delta belongs to, BlockKind its kind.
	Block     int
	BlockKind string
	// Raw is provider JSON kept verbatim (DeltaReasoningRaw,
	// DeltaToolCallExtra). A string, so a retained delta shares nothing.
	Raw string

	// ToolIndex is the position of the tool call within the message.
	ToolIndex  int
	ToolCallID string
	ToolName   string

	Usage      Usage
	StopReason string
}
