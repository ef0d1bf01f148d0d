package llmtest

import (
	"encoding/json"
	"net/http"
)

// DefaultModels is the list GET /v1/models answers when Scenario.Models is
// empty.
var DefaultModels = []string{"llmtest-model", "llmtest-model-mini"}

// isModelsList reports a GET of the models list, in either protocol's path.
func isModelsList(r *http.Request) bool {
	return r.Method == http.MethodGet && (r.URL.Path == "/v1/models" || r.URL.Path == "/models")
}

// serveModels answers GET /v1/models in the shape both real APIs share
// ({"data":[{"id":…}]}). It is not a model call: it does not advance the
// scenario and is not in Requests(); ModelListings counts it.
func (s *Server) serveModels(w http.ResponseWriter) {
	s.listings.Add(1)
	s.mu.Lock()
	ids := s.sc.Models
	s.mu.Unlock()
	if len(ids) == 0 {
		ids = DefaultModels
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Type    string `json:"type"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, id := range ids {
		list.Data = append(list.Data, model{ID: id, Object: "model", Type: "model", OwnedBy: "llmtest"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// ModelListings is how many times the models list was asked for.
func (s *Server) ModelListings() int { return int(s.listings.Load()) }
