package openai

import (
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

func BenchmarkDecodeTextChunk(b *testing.B) {
	data := []byte(ck(`{"content":"hello world"}`, "")[len("data: "):])
	data = data[:len(data)-2]
	d := newDecoder(func(chat.MessageDelta) {}, "openai", "")
	b.ReportAllocs()
	for b.Loop() {
		if err := d.chunk(data); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzDecoder(f *testing.F) {
	f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[{"index":-5,"id":"a","function":{"name":"x","arguments":"{"}}]},"finish_reason":"tool_calls"}]}`))
	f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"1"}}]}}],"usage":{"prompt_tokens":1}}`))
	f.Add([]byte(`{"error":{"message":"m"}}`))
	f.Add([]byte(`{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"a"}]},{"type":"text","text":"b"},7],"reasoning_details":[{"type":"reasoning.text","text":"x","index":0},{"type":"reasoning.text","index":{"a":1},"text":5}],"extra_content":[1],"tool_calls":[{"index":0,"id":"c","function":{"name":"n"},"extra_content":{"google":{}}}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var a chat.MessageDelta
		d := newDecoder(func(x chat.MessageDelta) { a = x }, "openai", "")
		_ = d.chunk(data)
		_ = d.chunk(data)
		_ = d.done()
		if a.Kind != chat.DeltaDone {
			t.Fatal("done did not end with DeltaDone")
		}
	})
}
