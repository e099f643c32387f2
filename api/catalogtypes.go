package api

import (
	"net/http"

	"github.com/floehq/floe/catalog"
)

// handleCatalogTypes answers the connection types and the props and
// secrets the connection form asks for, from package catalog's own
// definitions (catalog.Types), so the form and the catalog never differ.
func (s *Server) handleCatalogTypes(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, catalogTypeList{Types: catalog.Types()})
}

// catalogTypeList is the answer of GET /api/v1/catalog-types.
type catalogTypeList struct {
	Types []catalog.TypeInfo `json:"types"`
}
