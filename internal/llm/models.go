package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"

	"github.com/coder-agent/coder/internal/llm/catalog"
)

// ModelInfo is one model a user can pick.
type ModelInfo struct {
	ID string
	// Name is the provider's display name, when its list gives one.
	Name string
	// Context and MaxOutput are the catalog's figures, 0 when unknown.
	Context, MaxOutput int
	// Listed: the provider's own list has it (it is served to this key).
	// InCatalog: the catalog knows it (limits, prices).
	Listed, InCatalog bool
}

// ModelLister is a provider that can list its models (GET /v1/models).
type ModelLister interface {
	ListModels(ctx context.Context) ([]ModelInfo, error)
}

// ListModels is what a /model picker shows: the models p lists, merged
// with the catalog's for the endpoint (catalog.ProviderFor), sorted by id.
// When p cannot list (no lister, or the request failed) the catalog's
// models are returned with the error, so a picker still has something.
func ListModels(ctx context.Context, p Provider, catalogProvider string) ([]ModelInfo, error) {
	byID := map[string]*ModelInfo{}
	var err error
	if l, ok := p.(ModelLister); ok {
		var listed []ModelInfo
		if listed, err = l.ListModels(ctx); err == nil {
			for _, m := range listed {
				m.Listed = true
				byID[m.ID] = &m
			}
		}
	} else {
		err = errors.New(p.Name() + " cannot list its models")
	}
	for _, m := range catalog.Models(catalogProvider) {
		mi := byID[m.ID]
		if mi == nil {
			mi = &ModelInfo{ID: m.ID}
			byID[m.ID] = mi
		}
		mi.Context, mi.MaxOutput, mi.InCatalog = m.Context, m.Output, true
	}
	for id, mi := range byID { // listed ids the catalog knows by another spelling
		if !mi.InCatalog {
			if m, ok := catalog.Lookup(catalogProvider, id); ok {
				mi.Context, mi.MaxOutput, mi.InCatalog = m.Context, m.Output, true
			}
		}
	}
	out := make([]ModelInfo, 0, len(byID))
	for _, mi := range byID {
		out = append(out, *mi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, err
}

// GetJSON is a GET to a provider's API decoded into v: a non-2xx answer
// becomes a classified *Error (secret scrubbed), a transport failure too.
func GetJSON(ctx context.Context, r StreamRequest, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return &Error{Provider: r.Provider, Message: clean("invalid request: "+err.Error(), r.Secret), Err: err}
	}
	req.Header = r.Header
	client := r.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return TransportError(ctx, r.Provider, err, r.Secret)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return HTTPError(r.Provider, resp, r.Secret, r.KeyHint)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 32<<20)).Decode(v); err != nil {
		return &Error{Provider: r.Provider, Message: clean("unreadable model list: "+err.Error(), r.Secret), Err: err}
	}
	return nil
}
