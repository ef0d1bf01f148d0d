package catalog

import (
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// modelLines splits the model block into its lines.
func modelLines(ix *index) []string {
	return strings.Split(strings.TrimSuffix(ix.models, "\n"), "\n")
}

func TestEmbeddedDataIsSortedAndComplete(t *testing.T) {
	t.Parallel()
	ix := load()
	lines := modelLines(ix)
	if ix.source == "" || ix.generated == "" || len(lines) < 100 || len(ix.providers) < 10 {
		t.Fatalf("source %q generated %q: %d models, %d providers", ix.source, ix.generated, len(lines), len(ix.providers))
	}
	for i, l := range lines {
		if l == "" || l[0] == '#' || l[0] == '@' || strings.Count(l, " ") < 2 {
			t.Fatalf("line %d of the model block is not a model line (lookups would skip it): %q", i, l)
		}
		if i > 0 && l <= lines[i-1] {
			t.Fatalf("lines not sorted (lookups would miss): %q after %q", l, lines[i-1])
		}
	}
	for _, l := range lines {
		p, rest, _ := strings.Cut(l, " ")
		id, _, _ := strings.Cut(rest, " ")
		if _, ok := ix.find(p, id); !ok {
			t.Fatalf("line does not decode: %q", l)
		}
	}
	for id := range ix.providers {
		if p, ok := ProviderInfo(id); !ok || p.ID != id || p.Name == "" {
			t.Fatalf("provider %s: %+v, %v", id, p, ok)
		}
	}
}

// seek, a binary search over the text, lands where a search over the
// split lines does, for every line, keys just below and above each, and
// keys before the first and after the last.
func TestSeekMatchesLineSearch(t *testing.T) {
	t.Parallel()
	for _, text := range []string{data, "@p {}\na a {}\nb b {}\n", "a a {}\nb b {}", "a a {}\n", ""} {
		ix := parse(text)
		lines := modelLines(ix)
		if ix.models == "" {
			lines = nil
		}
		keys := []string{"", " ", "\x7f", "zzzz"}
		for _, l := range lines {
			keys = append(keys, l, l[:len(l)-1], l+" ", l[:strings.IndexByte(l, ' ')+1])
		}
		for _, k := range keys {
			i := sort.SearchStrings(lines, k)
			want := len(ix.models)
			if i < len(lines) {
				want = 0
				for _, l := range lines[:i] {
					want += len(l) + 1
				}
			}
			if got := ix.seek(k); got != want {
				t.Fatalf("seek(%q) = %d, want %d (line %d of %d)", k, got, want, i, len(lines))
			}
		}
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider, model string
		found           string // provider/id found, "" for none
		check           func(Model) bool
	}{
		{"anthropic", "claude-3-haiku-20240307", "anthropic/claude-3-haiku-20240307", func(m Model) bool { return m.Output == 4096 && !m.Reasons() }},
		{"anthropic", "claude-opus-4-7", "anthropic/claude-opus-4-7", func(m Model) bool { return m.Reasoning == ReasoningAdaptive && !m.Budget }},
		{"openai", "gpt-5-2025-08-07", "openai/gpt-5", func(m Model) bool { return m.TokenParam() == MaxCompletionTokens && m.Responses }},
		{"openai", "gpt-4.1", "openai/gpt-4.1", func(m Model) bool { return !m.Responses }},
		// A bare name on an unknown endpoint: found under its vendor.
		{"", "deepseek-v4-pro", "deepseek/deepseek-v4-pro", func(m Model) bool { return m.PassBack == "reasoning_content" }},
		// A gateway id the gateway's section lacks: the vendor's entry.
		{"vercel", "anthropic/claude-opus-4-7", "anthropic/claude-opus-4-7", nil},
		{"openrouter", "moonshotai/kimi-k2.5:free", "openrouter/moonshotai/kimi-k2.5", nil},
		{"openai", "GPT-4.1", "openai/gpt-4.1", nil},
		// Unknown: no guess from a relative's name.
		{"anthropic", "claude-opus-9", "", nil},
		{"", "my-local-model", "", nil},
	}
	for _, tt := range tests {
		m, ok := Lookup(tt.provider, tt.model)
		got := ""
		if ok {
			got = m.Provider + "/" + m.ID
		}
		if got != tt.found {
			t.Errorf("Lookup(%q, %q) found %q, want %q", tt.provider, tt.model, got, tt.found)
			continue
		}
		if ok && tt.check != nil && !tt.check(m) {
			t.Errorf("Lookup(%q, %q) = %+v", tt.provider, tt.model, m)
		}
	}
}

func TestProviderFor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ preset, url, want string }{
		{"deepseek", "https://api.deepseek.com/v1", "deepseek"},
		{"", "https://openrouter.ai/api/v1", "openrouter"},
		{"", "https://generativelanguage.googleapis.com/v1beta/openai", "google"},
		{"", "https://API.GROQ.COM/openai/v1", "groq"},
		{"", "http://127.0.0.1:8080/v1", ""},
		{"", "::bad", ""},
	} {
		if got := ProviderFor(tt.preset, tt.url); got != tt.want {
			t.Errorf("ProviderFor(%q, %q) = %q, want %q", tt.preset, tt.url, got, tt.want)
		}
	}
	if p, ok := ProviderInfo("groq"); !ok || p.Name != "Groq" {
		t.Errorf("groq = %+v", p)
	}
}

func TestPriceAndContext(t *testing.T) {
	t.Parallel()
	// Claude 3 Haiku: $0.25 in, $1.25 out, $0.03 cache read, $0.30 cache write per million.
	u := chat.Usage{InputTokens: 1_000_000, OutputTokens: 2_000_000, CacheReadTokens: 1_000_000, CacheWriteTokens: 1_000_000}
	usd, ok := Price("anthropic", "claude-3-haiku-20240307", u)
	if !ok || math.Abs(usd-(0.25+2.5+0.03+0.30)) > 1e-9 {
		t.Fatalf("cost = %v %v", usd, ok)
	}
	if _, ok := Price("", "my-local-model", u); ok {
		t.Fatal("an unknown model has a price")
	}
	if n := ContextWindow("openai", "gpt-5"); n != 400_000 {
		t.Fatalf("context = %d", n)
	}
	if n := ContextWindow("", "my-local-model"); n != 0 {
		t.Fatalf("unknown context = %d", n)
	}
}

func BenchmarkLookup(b *testing.B) {
	load()
	for b.Loop() {
		Lookup("openrouter", "anthropic/claude-sonnet-4.5")
	}
}

// TestProviderTableHolds: every preset speaks a wire the table names,
// every wire's default preset exists, no name or host belongs to two
// rows, and a preset's own base URL resolves to its row.
func TestProviderTableHolds(t *testing.T) {
	t.Parallel()
	for _, w := range Wires() {
		if _, ok := PresetNamed(w.Preset); !ok {
			t.Errorf("wire %s takes its key and URL from preset %q, which is not in the table", w.Name, w.Preset)
		}
	}
	names, hosts := map[string]bool{}, map[string]string{}
	for _, e := range endpoints {
		own := slices.Clone(e.hosts)
		if p := e.preset; p != nil {
			if names[p.Name] {
				t.Errorf("preset %s twice", p.Name)
			}
			names[p.Name] = true
			if _, ok := WireNamed(p.Wire); !ok {
				t.Errorf("preset %s speaks %q, which is not a wire", p.Name, p.Wire)
			}
			if got := ProviderFor("", p.BaseURL); got != e.id {
				t.Errorf("preset %s's base URL resolves to %q, want %q", p.Name, got, e.id)
			}
			own = append(own, presetHost(*p))
		}
		for _, h := range own {
			if other, ok := hosts[h]; ok {
				t.Errorf("host %s is both %q and %q", h, other, e.id)
			}
			hosts[h] = e.id
		}
	}
}
