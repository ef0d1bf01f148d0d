package contextmgr

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/tiktoken-go/tokenizer"
)

// maxEstimateError is the largest relative error EstimateText may have, per
// corpus category, against cl100k_base. The weights reach ±7% (diff.txt was
// not used to fit them); the bound leaves room for retuning but catches a
// category (CJK, JSON) drifting off, which would make compaction late.
const maxEstimateError = 0.15

// TestEstimateAccuracy measures EstimateText against real tokenizers on the
// corpus in testdata/tokens and logs the error per category (run with -v).
// The assertion is against cl100k_base; o200k_base (GPT-4o and later) is
// logged for information, its counts are a little lower, mostly for CJK.
func TestEstimateAccuracy(t *testing.T) {
	t.Parallel()
	cl := codec(t, tokenizer.Cl100kBase)
	o2 := codec(t, tokenizer.O200kBase)
	files, err := filepath.Glob(filepath.Join("testdata", "tokens", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		est := EstimateText(text)
		nc, no := count(t, cl, text), count(t, o2, text)
		ec, eo := relErr(est, nc), relErr(est, no)
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Logf("%-8s %5d bytes  estimate %5d  cl100k %5d (%+5.1f%%)  o200k %5d (%+5.1f%%)  worst 600-byte chunk vs cl100k %+5.1f%%",
			name, len(b), est, nc, 100*ec, no, 100*eo, 100*worstChunk(t, cl, text))
		if math.Abs(ec) > maxEstimateError {
			t.Errorf("%s: estimate %d vs cl100k %d: error %+.1f%% exceeds ±%.0f%%",
				name, est, nc, 100*ec, 100*maxEstimateError)
		}
	}
}

// worstChunk is the largest relative error on pieces of about 600 bytes cut
// at line ends: how wrong one tool output or one message can be.
func worstChunk(t *testing.T, c tokenizer.Codec, text string) float64 {
	worst := 0.0
	var chunk strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		chunk.WriteString(line)
		if chunk.Len() < 600 && line != "" {
			continue
		}
		if s := chunk.String(); strings.TrimSpace(s) != "" {
			if e := relErr(EstimateText(s), count(t, c, s)); math.Abs(e) > math.Abs(worst) {
				worst = e
			}
		}
		chunk.Reset()
	}
	return worst
}

func codec(t *testing.T, e tokenizer.Encoding) tokenizer.Codec {
	t.Helper()
	c, err := tokenizer.Get(e)
	if err != nil {
		t.Fatalf("tokenizer %s: %v", e, err)
	}
	return c
}

func count(t *testing.T, c tokenizer.Codec, s string) int {
	t.Helper()
	n, err := c.Count(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func relErr(est, real int) float64 { return float64(est-real) / float64(real) }

func TestEstimateTextASCIIAllocs(t *testing.T) {
	s := strings.Repeat("func (a *Accumulator) Add(d chat.MessageDelta) bool {\n", 50)
	if n := testing.AllocsPerRun(100, func() { _ = EstimateText(s) }); n != 0 {
		t.Errorf("EstimateText allocates %v times per call", n)
	}
}

func TestEstimateTextSmall(t *testing.T) {
	t.Parallel()
	if got := EstimateText(""); got != 0 {
		t.Errorf("empty = %d", got)
	}
	for _, s := range []string{"a", "x", "{", "中", " "} {
		if got := EstimateText(s); got < 1 {
			t.Errorf("EstimateText(%q) = %d, want ≥ 1", s, got)
		}
	}
}

func TestContextSize(t *testing.T) {
	t.Parallel()
	after := []chat.Message{{Role: chat.RoleTool, ToolCallID: "c1", Content: strings.Repeat("word ", 400)}}
	u := chat.Usage{InputTokens: 1000, CacheReadTokens: 9000, OutputTokens: 200}
	got := ContextSize(u, after, "system prompt", nil)
	if want := 10200 + Estimate("", after, nil); got != want {
		t.Errorf("with usage: %d, want %d", got, want)
	}
	if got, want := ContextSize(chat.Usage{}, after, "sys", nil), Estimate("sys", after, nil); got != want {
		t.Errorf("without usage: %d, want %d", got, want)
	}
}

func BenchmarkEstimateText(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "tokens", "go.txt"))
	if err != nil {
		b.Fatal(err)
	}
	s := string(data)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = EstimateText(s)
	}
}
