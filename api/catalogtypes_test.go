package api_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/floehq/floe/catalog"
)

// GET /api/v1/catalog-types answers package catalog's own definitions.
func TestServer_CatalogTypes(t *testing.T) {
	srv, _ := newServer(t)
	code, body := call(t, "GET", srv.URL+"/api/v1/catalog-types")
	if code != http.StatusOK {
		t.Fatalf("catalog-types: %d %s", code, body)
	}
	var got struct {
		Types []catalog.TypeInfo `json:"types"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("catalog-types is not JSON: %v", err)
	}
	if !reflect.DeepEqual(got.Types, catalog.Types()) {
		t.Errorf("catalog-types = %+v, want catalog.Types() %+v", got.Types, catalog.Types())
	}
}

// The type enums of openapi.json are catalog's types.
func TestServer_OpenAPICatalogTypeEnums(t *testing.T) {
	srv, _ := newServer(t)
	_, body := call(t, "GET", srv.URL+"/api/v1/openapi.json")
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(slices.Values(catalog.TypeNames()))
	for _, schema := range []string{"CatalogType", "ConnectionRequest", "AWSAccessRequest"} {
		got := slices.Sorted(slices.Values(doc.Components.Schemas[schema].Properties["type"].Enum))
		if !slices.Equal(got, want) {
			t.Errorf("openapi %s.type enum = %v, want catalog's types %v", schema, got, want)
		}
	}
}
