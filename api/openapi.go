package api

import (
	_ "embed"
	"net/http"
)

// openAPIDoc is the OpenAPI 3 description of every route (openapi.json).
//
//go:embed openapi.json
var openAPIDoc []byte

func (s *Server) handleOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPIDoc)
}
