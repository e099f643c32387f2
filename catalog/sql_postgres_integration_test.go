//go:build integration

package catalog_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/catalogtest"
	"github.com/floehq/floe/internal/testpeer"
)

// TestSQL_PyIcebergOnPostgres: a SQL catalog written by PyIceberg into a
// real PostgreSQL is read by floe (pgx driver, password from the secrets).
func TestSQL_PyIcebergOnPostgres(t *testing.T) {
	pg := testpeer.StartPostgres(t)
	wh := "file://" + filepath.Join(t.TempDir(), "wh")
	pyURI := strings.Replace(pg.URL(true), "postgres://", "postgresql+psycopg2://", 1)
	written := pyIceberg(t, "sql", "--uri", pyURI, "--warehouse", wh, "--catalog", "pgcat", "sales.orders", "hr.people")

	cfg := catalog.Config{Name: "pg", Type: catalog.TypeSQL,
		Props:   map[string]string{catalog.PropURI: pg.URL(false), catalog.PropSQLCatalogName: "pgcat"},
		Secrets: map[string]string{catalog.SecretPassword: pg.Password}}
	cat := openOK(t, cfg)
	nss, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
	if err != nil || len(nss.Items) != 2 {
		t.Fatalf("ListNamespaces = %v, %v; want hr and sales", nss.Items, err)
	}
	checkLoaded(t, cat, catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}, written[0].MetadataLocation)
	checkValid(t, cat)

	good := cfg
	cfg.Secrets = map[string]string{catalog.SecretPassword: "not-the-password"}
	_, err = catalog.Open(t.Context(), cfg, discard())
	if !errors.Is(err, catalog.ErrBadCredentials) || strings.Contains(err.Error(), "not-the-password") {
		t.Fatalf("Open(wrong password) = %v, want ErrBadCredentials without the password", err)
	}

	t.Run("conformance", func(t *testing.T) {
		const wrong = "floe-conformance-wrong-password-0001"
		broken := good
		broken.Secrets = map[string]string{catalog.SecretPassword: wrong}
		catalogtest.Run(t, catalogtest.Lake{
			Open:       func(t *testing.T) catalog.Catalog { return openOK(t, good) },
			Namespaces: []string{"hr", "sales"}, Tables: []string{"orders"},
			Table:            catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"},
			MetadataLocation: written[0].MetadataLocation, Secrets: []string{pg.Password},
			Broken: func(t *testing.T) (catalog.Catalog, error) {
				return catalog.Open(t.Context(), broken, discard())
			},
			BrokenKind: catalog.ErrBadCredentials, BrokenSecrets: []string{wrong},
		})
	})
}
