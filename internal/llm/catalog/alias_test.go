package catalog

import (
	"strings"
	"testing"
)

// entries lists the catalog's model entries as provider and id.
func entries() [][2]string {
	var out [][2]string
	for _, l := range modelLines(load()) {
		p, rest, _ := strings.Cut(l, " ")
		id, _, _ := strings.Cut(rest, " ")
		out = append(out, [2]string{p, id})
	}
	return out
}

func has(provider, id string) bool {
	_, ok := load().find(provider, id)
	return ok
}

// TestEveryLatestEntry takes each "-latest" entry of the catalog (the
// list comes from the data): its own name finds it, whatever the case or
// an OpenRouter variant suffix, and so does its undated name when the
// catalog has no entry of that name: an alias never shadows an entry,
// and "X" means what "X-latest" means.
func TestEveryLatestEntry(t *testing.T) {
	t.Parallel()
	n := 0
	for _, e := range entries() {
		p, id := e[0], e[1]
		base, ok := strings.CutSuffix(id, "-latest")
		if !ok {
			continue
		}
		n++
		spellings := []string{id, strings.ToUpper(id), id + ":free"}
		if !has(p, base) && !dated(p, base) {
			spellings = append(spellings, base)
		}
		for _, s := range spellings {
			m, ok := Lookup(p, s)
			if !ok || m.Provider != p || m.ID != id {
				t.Errorf("Lookup(%q, %q) = %s/%s (found %v), want the entry %s/%s", p, s, m.Provider, m.ID, ok, p, id)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d -latest entries: is the catalog complete?", n)
	}
}

// TestEveryDatedFamily takes each family of dated snapshots in the
// catalog that has neither an undated nor a "-latest" entry (Claude 3
// Opus, Claude 3.5 Sonnet, Mistral's devstral-small, …): "X-latest" and
// "X" take the newest snapshot's limits and rules.
func TestEveryDatedFamily(t *testing.T) {
	t.Parallel()
	newest := map[[2]string]string{} // provider, base → the newest snapshot id
	key := func(d string) string {   // the test's own reading of a date
		d = strings.ReplaceAll(d, "-", "")
		if len(d) == 4 {
			d = "20" + d + "00"
		}
		return d
	}
	for _, e := range entries() {
		p, id := e[0], e[1]
		for _, cut := range []int{strings.LastIndexByte(id, '-'), len(id) - 11} {
			if cut <= 0 || id[cut] != '-' {
				continue
			}
			base, date := id[:cut], id[cut+1:]
			if _, ok := snapshotDate(p, base, date); !ok {
				continue
			}
			k := [2]string{p, base}
			if cur := newest[k]; cur == "" || key(date) > key(cur[len(base)+1:]) {
				newest[k] = id
			}
		}
	}
	checked := 0
	for k, want := range newest {
		p, base := k[0], k[1]
		if has(p, base) || has(p, base+"-latest") {
			continue
		}
		checked++
		target, _ := load().find(p, want)
		for _, alias := range []string{base + "-latest", base} {
			m, ok := Lookup(p, alias)
			if !ok || m.Provider != p || m.ID != want || m.Output != target.Output || m.Context != target.Context {
				t.Errorf("Lookup(%q, %q) = %s/%s (found %v), want %s/%s", p, alias, m.Provider, m.ID, ok, p, want)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d dated families checked", checked)
	}
}

// TestAliasesByName pins the cases the families above reach, by name:
// the example among them.
func TestAliasesByName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		provider, model, want string
		output                int
	}{
		// claude-3-opus-latest got claude's default 8192 max_tokens; its
		// snapshot allows 4096.
		{"anthropic", "claude-3-opus-latest", "anthropic/claude-3-opus-20240229", 4096},
		{"", "claude-3-opus-latest", "anthropic/claude-3-opus-20240229", 4096},
		{"anthropic", "claude-3-5-sonnet-latest", "anthropic/claude-3-5-sonnet-20241022", 8192},
		{"anthropic", "claude-3-7-sonnet-latest", "anthropic/claude-3-7-sonnet-20250219", 64000},
		{"mistral", "devstral-small-latest", "mistral/devstral-small-2507", 128000},
		{"openrouter", "mistralai/devstral-small-latest", "mistral/devstral-small-2507", 128000},
		{"openai", "gpt-4o-latest", "openai/gpt-4o", 16384},
		// A dated name never stands for another date.
		{"mistral", "mistral-large-2407", "", 0},
		{"anthropic", "claude-3-5-sonnet-20240101", "", 0},
		// Four digits are a date only in Mistral's names.
		{"openai", "gpt-4o-0613", "", 0},
		// No family, no alias.
		{"openai", "chatgpt-4o-latest", "", 0},
	} {
		m, ok := Lookup(tt.provider, tt.model)
		got := ""
		if ok {
			got = m.Provider + "/" + m.ID
		}
		if got != tt.want || m.Output != tt.output {
			t.Errorf("Lookup(%q, %q) = %q output %d, want %q output %d", tt.provider, tt.model, got, m.Output, tt.want, tt.output)
		}
	}
}
