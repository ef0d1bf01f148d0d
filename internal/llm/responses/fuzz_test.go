package responses

import (
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

func FuzzDecoder(f *testing.F) {
	f.Add([]byte(`{"type":"response.output_item.done","output_index":-3,"item":{"type":"function_call","arguments":"{}"}}`))
	f.Add([]byte(`{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":7,"delta":"x"}`))
	f.Add([]byte(`{"type":"response.completed","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":1,"input_tokens_details":{"cached_tokens":9}}}}`))
	f.Add([]byte(`{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var a llm.Accumulator
		d := newDecoder(func(x chat.MessageDelta) { a.Add(x) }, "openai-responses", "")
		for _, ev := range [][]byte{
			[]byte(`{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning"}}`),
			[]byte(`{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","call_id":"c","name":"n"}}`),
			data, data,
		} {
			if done, err := d.event("", ev); done || err != nil {
				return
			}
		}
		_ = a.Message()
	})
}
