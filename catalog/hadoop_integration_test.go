//go:build integration

package catalog_test

import (
	"testing"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/catalogtest"
	"github.com/floehq/floe/internal/testpeer"
)

// TestHadoopCatalog_S3Warehouse: a Hadoop-layout warehouse in moto's S3,
// found by listing, read with the connection's keys and endpoint.
func TestHadoopCatalog_S3Warehouse(t *testing.T) {
	moto := testpeer.StartMoto(t)
	createBucket(t, moto, "hadoop-wh")
	props := motoFileIO(moto)
	props["allow-unsafe-commits"] = "true"
	hadoopFixture(t, "s3://hadoop-wh/wh", props)

	cat := openOK(t, catalog.Config{Name: "s3files", Type: catalog.TypeHadoop,
		Props:   map[string]string{catalog.PropWarehouse: "s3://hadoop-wh/wh", catalog.PropRegion: "us-east-1", "endpoint.s3": moto},
		Secrets: testingSecrets()})
	nss, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
	if err != nil || len(nss.Items) != 1 || nss.Items[0].String() != "sales" {
		t.Fatalf("ListNamespaces = %v, %v; want [sales]", nss.Items, err)
	}
	checkLoaded(t, cat, catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}, "")
	checkValid(t, cat)

	t.Run("conformance", func(t *testing.T) {
		hadoopMoreTables(t, "s3://hadoop-wh/wh", props)
		cfg := catalog.Config{Name: "s3files", Type: catalog.TypeHadoop,
			Props:   map[string]string{catalog.PropWarehouse: "s3://hadoop-wh/wh", catalog.PropRegion: "us-east-1", "endpoint.s3": moto},
			Secrets: conformanceSecrets("")}
		broken := cfg
		broken.Props = map[string]string{catalog.PropWarehouse: "s3://hadoop-wh/wh", catalog.PropRegion: "us-east-1", "endpoint.s3": deadEndpoint(t)}
		catalogtest.Run(t, catalogtest.Lake{
			Open:       func(t *testing.T) catalog.Catalog { return openOK(t, cfg) },
			Namespaces: []string{"hr", "sales"}, Tables: []string{"orders", "returns"},
			Table:   catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"},
			Secrets: []string{confKeyID, confSecret},
			Broken: func(t *testing.T) (catalog.Catalog, error) {
				return catalog.Open(t.Context(), broken, discard())
			},
			BrokenKind: catalog.ErrUnreachable, BrokenSecrets: []string{confKeyID, confSecret},
		})
	})
}
