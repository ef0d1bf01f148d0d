package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/anthropic"
	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/llm/openai"
)

// snapshotSuffix is a model id's date: -20250514, -2025-04-14, -2411.
var snapshotSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2}|\d{4})$`)

// TestReplayThroughAliases takes every recording made with a dated
// snapshot whose "-latest" alias the catalog resolves, and replays it
// twice: configured with the alias, and with the name the alias resolves
// to. The stream reads exactly as recorded, the alias is the model sent,
// and the two requests are otherwise the same: the alias takes its
// target's limits and rules.
func TestReplayThroughAliases(t *testing.T) {
	t.Parallel()
	type pair struct {
		rec           recording
		alias, target string
	}
	var pairs []pair
	var recs []recording
	for _, r := range load(t) {
		if r.Kind != "stream" || r.Origin != "recorded" || r.Protocol == "responses" {
			continue
		}
		cat := catalogOf[r.Provider]
		base := snapshotSuffix.ReplaceAllString(r.RequestModel, "")
		if base == r.RequestModel {
			continue
		}
		alias := base + "-latest"
		m, ok := catalog.Lookup(cat, alias)
		if !ok {
			continue
		}
		pairs = append(pairs, pair{r, alias, m.ID})
		recs = append(recs, r, r)
	}
	if len(pairs) < 10 {
		t.Fatalf("only %d recordings with a resolvable alias", len(pairs))
	}
	srv := newServer(t, recs)
	capped := 0
	for i, p := range pairs {
		bodies := make([]map[string]any, 2)
		for j, model := range []string{p.alias, p.target} {
			n := 2*i + j
			prov := aliasProvider(srv, n, model)
			var acc llm.Accumulator
			err := prov.Stream(context.Background(), llm.Request{RunID: "replay", Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}},
				func(d chat.MessageDelta) { acc.Add(d) })
			want := readOpenAI(p.rec.body)
			if p.rec.Protocol == "anthropic" {
				want = readAnthropic(p.rec.body)
			}
			if problem := compare(want, &acc, err); problem != "" {
				t.Errorf("%s as %s: %s", p.rec.File, model, problem)
			}
			srv.mu.Lock()
			_ = json.Unmarshal([]byte(srv.bodies[n][0]), &bodies[j])
			srv.mu.Unlock()
		}
		if bodies[0]["model"] != p.alias {
			t.Errorf("%s: model sent %v, want the alias %s", p.rec.File, bodies[0]["model"], p.alias)
		}
		delete(bodies[0], "model")
		delete(bodies[1], "model")
		if !reflect.DeepEqual(bodies[0], bodies[1]) {
			t.Errorf("%s: %s is sent\n  %s\nbut %s\n  %s", p.rec.File, p.alias, mustJSON(bodies[0]), p.target, mustJSON(bodies[1]))
		}
		limit, _ := bodies[0]["max_tokens"].(float64)
		if n, ok := bodies[0]["max_completion_tokens"].(float64); ok {
			limit = n
		}
		unknown := float64(unknownLimit)
		if p.rec.Protocol == "anthropic" {
			unknown = anthropic.DefaultMaxTokens
		}
		if limit > 0 && limit < unknown {
			capped++ // the target's output limit, below what an unknown model gets
		}
	}
	if capped == 0 {
		t.Error("no alias brought its target's output limit")
	}
	t.Logf("%d recordings replayed through their -latest alias, %d capped at the target's output limit", len(pairs), capped)
}

// unknownLimit is the output limit configured for Chat Completions: an
// unknown model is sent it whole, a known one its own limit when lower.
const unknownLimit = 10_000_000

func aliasProvider(srv *server, n int, model string) llm.Provider {
	rec := srv.recs[n]
	base := fmt.Sprintf("%s/r/%d", srv.URL, n)
	cat := catalogOf[rec.Provider]
	if rec.Protocol == "anthropic" {
		return anthropic.New(anthropic.Config{Endpoint: llm.Endpoint{BaseURL: base, APIKey: "sk-ant-replay", Catalog: cat, Label: rec.Provider}, Model: model})
	}
	return openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: base + "/v1", APIKey: "sk-replay", Catalog: cat, Label: rec.Provider}, Model: model, MaxTokens: unknownLimit})
}

// TestAliasesResolveAsTheAPIsDid takes the recorded exchanges where a
// request named an alias and the API answered with the snapshot that
// served it (claude-3-opus-latest was claude-3-opus-20240229, gpt-5 was
// gpt-5-2025-08-07; testdata/followups/served-models.json): coder gives
// the alias the limits and request rules of the snapshot that served it.
func TestAliasesResolveAsTheAPIsDid(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/followups/served-models.json")
	if err != nil {
		t.Fatal(err)
	}
	var served []struct {
		Provider     string
		RequestModel string `json:"request_model"`
		Served       string `json:"response_model"`
		Source       string
	}
	if err := json.Unmarshal(b, &served); err != nil || len(served) == 0 {
		t.Fatalf("served-models.json: %v", err)
	}
	for _, s := range served {
		alias, aok := catalog.Lookup(s.Provider, s.RequestModel)
		snap, sok := catalog.Lookup(s.Provider, s.Served)
		if !aok || !sok {
			t.Errorf("%s: %s (found %v) served by %s (found %v)", s.Source, s.RequestModel, aok, s.Served, sok)
			continue
		}
		if alias.Context != snap.Context || alias.Output != snap.Output || alias.Reasoning != snap.Reasoning {
			t.Errorf("%s: %s has context %d, output %d, reasoning %s; %s, which served it, %d, %d, %s", s.Source,
				s.RequestModel, alias.Context, alias.Output, alias.Reasoning, s.Served, snap.Context, snap.Output, snap.Reasoning)
		}
		if a, n := catalog.RulesFor(s.Provider, s.RequestModel), catalog.RulesFor(s.Provider, s.Served); !reflect.DeepEqual(a, n) {
			t.Errorf("%s: %s has rules %+v, %s %+v", s.Source, s.RequestModel, a, s.Served, n)
		}
	}
}
