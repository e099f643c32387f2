//go:build integration

package catalog_test

import (
	"errors"
	"testing"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/catalogtest"
	"github.com/floehq/floe/internal/testpeer"
)

// TestREST_IcebergRESTServer: Apache Iceberg's REST catalog server (Maven
// Central jars) backed by moto's S3; PyIceberg writes through it, floe
// browses, loads and validates through it.
func TestREST_IcebergRESTServer(t *testing.T) {
	moto := testpeer.StartMoto(t)
	createBucket(t, moto, "rest-wh")
	uri := testpeer.StartIcebergREST(t, testpeer.IcebergRESTOptions{Warehouse: "s3://rest-wh/wh", S3Endpoint: moto})
	written := pyIceberg(t, "rest", "--uri", uri, "--endpoint", moto, "sales.orders", "sales.returns", "hr.people")

	cfg := catalog.Config{Name: "rest", Type: catalog.TypeREST,
		Props:   map[string]string{catalog.PropURI: uri, "endpoint.s3": moto, "data.region": "us-east-1"},
		Secrets: map[string]string{"data." + catalog.SecretAccessKeyID: "testing", "data." + catalog.SecretSecretAccessKey: "testing"}}
	cat := openOK(t, cfg)

	nss, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
	if err != nil || len(nss.Items) != 2 || nss.Items[0].String() != "hr" || nss.Items[1].String() != "sales" {
		t.Fatalf("ListNamespaces = %v, %v; want [hr sales]", nss.Items, err)
	}
	first, err := cat.ListTables(t.Context(), []string{"sales"}, catalog.PageRequest{Size: 1})
	if err != nil || len(first.Items) != 1 || first.NextToken == "" {
		t.Fatalf("ListTables page 1 = %+v, %v; want one item and a next token", first, err)
	}
	second, err := cat.ListTables(t.Context(), []string{"sales"}, catalog.PageRequest{Size: 1, Token: first.NextToken})
	if err != nil || len(second.Items) != 1 || second.NextToken != "" || second.Items[0].String() == first.Items[0].String() {
		t.Fatalf("ListTables page 2 = %+v, %v; want the other table and no token", second, err)
	}
	want := map[string]string{}
	for _, w := range written {
		want[w.Table] = w.MetadataLocation
	}
	checkLoaded(t, cat, catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}, want["sales.orders"])
	checkValid(t, cat)

	_, err = cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"sales"}, Name: "nope"})
	if !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("LoadTable(sales.nope) = %v, want ErrNotFound", err)
	}

	t.Run("conformance", func(t *testing.T) {
		const token = "floe-conformance-bearer-token-0001"
		conf := cfg
		conf.Secrets = conformanceSecrets("data.")
		conf.Secrets[catalog.SecretToken] = token
		broken := conf
		broken.Props = map[string]string{catalog.PropURI: deadEndpoint(t)}
		catalogtest.Run(t, catalogtest.Lake{
			Open:       func(t *testing.T) catalog.Catalog { return openOK(t, conf) },
			Namespaces: []string{"hr", "sales"}, Tables: []string{"orders", "returns"},
			Table:            catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"},
			MetadataLocation: want["sales.orders"], Secrets: []string{confKeyID, confSecret, token},
			Broken: func(t *testing.T) (catalog.Catalog, error) {
				return catalog.Open(t.Context(), broken, discard())
			},
			BrokenKind: catalog.ErrUnreachable, BrokenSecrets: []string{confKeyID, confSecret, token},
		})
	})
}
