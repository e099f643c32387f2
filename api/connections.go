package api

import (
	"net/http"
	"sort"

	"github.com/floehq/floe/checkpoint"
)

// connectionView is a connection with its secrets left out: only the names
// of the secret keys are shown, so an operator can see what is configured.
type connectionView struct {
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	Props      map[string]string `json:"props,omitempty"`
	SecretKeys []string          `json:"secretKeys,omitempty"`
}

func redact(c checkpoint.Connection) connectionView {
	v := connectionView{Name: c.Name, Type: c.Type, Props: c.Props}
	for k := range c.Secrets {
		v.SecretKeys = append(v.SecretKeys, k)
	}
	sort.Strings(v.SecretKeys)
	return v
}

func (s *Server) handleListConnections(w http.ResponseWriter, r *http.Request) {
	conns, err := s.store.ListConnections(r.Context())
	if err != nil {
		writeErr(w, err)
		return
	}
	out := make([]connectionView, 0, len(conns))
	for _, c := range conns {
		out = append(out, redact(c))
	}
	writeJSON(w, http.StatusOK, map[string]any{"connections": out})
}

func (s *Server) handleGetConnection(w http.ResponseWriter, r *http.Request) {
	c, err := s.store.GetConnection(r.Context(), r.PathValue("name"))
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, redact(c))
}
