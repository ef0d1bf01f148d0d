package secrets

import (
	"strings"
	"testing"
)

// A secret split at every possible place across two or three pieces never
// shows; text that is not a secret is shown as it comes, nothing lost.
func TestStreamCatchesASecretSplitAcrossPieces(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	r := NewRedactor(map[string]string{"OPENAI_API_KEY": key})
	text := "before " + key + " after " + key[:5] + "not the key\n"
	for i := 0; i <= len(text); i++ {
		for j := i; j <= len(text); j++ {
			s := r.Stream()
			shown := s.Write(text[:i]) + s.Write(text[i:j]) + s.Write(text[j:]) + s.Flush()
			if strings.Contains(shown, key) {
				t.Fatalf("split at %d,%d: the key showed: %q", i, j, shown)
			}
			if want := r.Redact(text); shown != want {
				t.Fatalf("split at %d,%d: %q, want %q", i, j, shown, want)
			}
		}
	}
	// Ordinary output is not held back.
	s := r.Stream()
	if got := s.Write("compiling...\n"); got != "compiling...\n" {
		t.Fatalf("held back %q", got)
	}
	var none *Redactor
	if got := none.Stream().Write("x sk"); got != "x sk" {
		t.Fatalf("no redactor: %q", got)
	}
}
