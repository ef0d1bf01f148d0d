package anthropic

import (
	"bytes"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/sse"
)

// FuzzDecoder feeds arbitrary event streams to the decoder and the
// accumulator: neither may panic, and a completed message ends in DeltaDone.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte(thinkingThenTools))
	f.Add([]byte(ev("content_block_start", `{"type":"content_block_start","index":4095,"content_block":{"type":"tool_use","id":"x","name":"y"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":-1,"delta":{"type":"input_json_delta","partial_json":"{"}}`) +
		ev("message_stop", `{"type":"message_stop"}`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		var a llm.Accumulator
		var last chat.MessageDelta
		d := newDecoder(func(x chat.MessageDelta) { a.Add(x); last = x }, "anthropic", "")
		r := sse.NewReader(bytes.NewReader(in))
		for {
			e, err := r.Next()
			if err != nil {
				return
			}
			done, err := d.event(e)
			if err != nil {
				return
			}
			if done {
				if last.Kind != chat.DeltaDone || !a.Done() {
					t.Fatal("done without DeltaDone")
				}
				_ = a.Message()
				return
			}
		}
	})
}
