package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"time"
)

// ModelLister is implemented by providers whose endpoint can say which
// models it serves (GET /v1/models in both protocols).
type ModelLister interface {
	ListModels(ctx context.Context) ([]string, error)
}

// ErrNoModelList: the provider cannot list its models.
var ErrNoModelList = errors.New("this provider cannot list its models")

// ListModels passes the question on to the wrapped provider; listing is
// not retried (a person is waiting, and can ask again).
func (r *retrying) ListModels(ctx context.Context) ([]string, error) {
	if l, ok := r.p.(ModelLister); ok {
		return l.ListModels(ctx)
	}
	return nil, ErrNoModelList
}

// ModelsRequest is one GET of a models list.
type ModelsRequest struct {
	Provider string
	URL      string
	Header   http.Header
	Client   *http.Client
	// Secret is scrubbed from errors; KeyHint names where the key comes
	// from, for 401/403 messages.
	Secret, KeyHint string
}

// modelsTimeout bounds a listing: a person is waiting for it.
const modelsTimeout = 15 * time.Second

// FetchModels GETs r.URL and returns the ids of its {"data":[{"id":…}]}
// list (the shape of OpenAI, Anthropic and the compatible servers), sorted.
func FetchModels(ctx context.Context, r ModelsRequest) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return nil, &Error{Provider: r.Provider, Message: "cannot build the request: " + err.Error(), Err: err}
	}
	req.Header = r.Header.Clone()
	req.Header.Del("Content-Type")
	req.Header.Set("Accept", "application/json")
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, TransportError(ctx, r.Provider, err, r.Secret)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, HTTPError(r.Provider, resp, r.Secret, r.KeyHint)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&list); err != nil {
		return nil, &Error{Provider: r.Provider, Message: "the models list is not JSON: " + err.Error(), Err: err}
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
