//go:build integration

package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/catalogtest"
	"github.com/floehq/floe/internal/testpeer"
)

func s3tablesConfig(endpoint, arn, mode string) catalog.Config {
	return catalog.Config{Name: "lake", Type: catalog.TypeS3Tables,
		Props:   map[string]string{catalog.PropARN: arn, catalog.PropEndpoint: endpoint, catalog.PropMode: mode},
		Secrets: testingSecrets()}
}

func TestS3Tables_NativeOnMoto(t *testing.T) {
	moto := testpeer.StartMoto(t)
	arn, loc := s3TablesFixture(t, moto, "floe-lake", "sales", "orders")
	ident := catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}

	// auto: moto serves no /iceberg endpoint, so floe falls back to native.
	for _, mode := range []string{catalog.ModeAuto, catalog.ModeNative} {
		t.Run(mode, func(t *testing.T) {
			cat := openOK(t, s3tablesConfig(moto, arn, mode))
			nss, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
			if err != nil || len(nss.Items) != 1 || nss.Items[0].String() != "sales" {
				t.Fatalf("ListNamespaces = %v, %v; want [sales]", nss.Items, err)
			}
			tables, err := cat.ListTables(t.Context(), []string{"sales"}, catalog.PageRequest{})
			if err != nil || len(tables.Items) != 1 || tables.Items[0].String() != ident.String() {
				t.Fatalf("ListTables = %v, %v; want [sales.orders]", tables.Items, err)
			}
			checkLoaded(t, cat, ident, loc)
			checkValid(t, cat)
		})
	}
	t.Run("rest forced", func(t *testing.T) {
		_, err := catalog.Open(t.Context(), s3tablesConfig(moto, arn, catalog.ModeREST), discard())
		if err == nil || !strings.Contains(err.Error(), moto+"/iceberg") {
			t.Fatalf("Open(mode=rest) on moto = %v, want an error naming %s/iceberg", err, moto)
		}
	})
	t.Run("conformance", func(t *testing.T) {
		s3TablesAddTable(t, moto, arn, "sales", "returns")
		s3TablesAddTable(t, moto, arn, "hr", "people")
		cfg := s3tablesConfig(moto, arn, catalog.ModeNative)
		cfg.Secrets = conformanceSecrets("")
		catalogtest.Run(t, catalogtest.Lake{
			Open:       func(t *testing.T) catalog.Catalog { return openOK(t, cfg) },
			Namespaces: []string{"hr", "sales"}, Tables: []string{"orders", "returns"},
			Table: ident, MetadataLocation: loc, Secrets: []string{confKeyID, confSecret},
			Broken: brokenAWS(cfg), BrokenKind: catalog.ErrUnreachable, BrokenSecrets: []string{confKeyID, confSecret},
		})
	})
}

func TestS3Tables_PagingOnMoto(t *testing.T) {
	moto := testpeer.StartMoto(t)
	arn, _ := s3TablesFixture(t, moto, "paged", "ns1", "t1")
	s3TablesAddTable(t, moto, arn, "ns1", "t2")
	s3TablesAddTable(t, moto, arn, "ns1", "t3")
	cat := openOK(t, s3tablesConfig(moto, arn, catalog.ModeNative))
	var names []string
	req := catalog.PageRequest{Size: 2}
	for range 5 {
		p, err := cat.ListTables(t.Context(), []string{"ns1"}, req)
		if err != nil {
			t.Fatalf("ListTables: %v", err)
		}
		if len(p.Items) > 2 {
			t.Fatalf("page of %d items, want at most 2", len(p.Items))
		}
		for _, it := range p.Items {
			names = append(names, it.Name)
		}
		if p.NextToken == "" {
			break
		}
		req.Token = p.NextToken
	}
	if len(names) != 3 {
		t.Errorf("tables over all pages = %v, want t1 t2 t3", names)
	}
}

func TestS3Tables_FailuresOnMoto(t *testing.T) {
	moto := testpeer.StartMoto(t)
	arn, loc := s3TablesFixture(t, moto, "floe-lake", "sales", "orders")
	ident := catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}

	t.Run("unknown bucket", func(t *testing.T) {
		other := strings.Replace(arn, "bucket/floe-lake", "bucket/no-such-bucket", 1)
		cat := openOK(t, s3tablesConfig(moto, other, catalog.ModeNative))
		_, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
		if !errors.Is(err, catalog.ErrNotFound) || !strings.Contains(err.Error(), "no-such-bucket") {
			t.Fatalf("ListNamespaces(unknown bucket) = %v, want ErrNotFound naming the bucket", err)
		}
	})
	t.Run("wrong region", func(t *testing.T) {
		other := strings.Replace(arn, ":us-east-1:", ":us-west-2:", 1)
		cat := openOK(t, s3tablesConfig(moto, other, catalog.ModeNative))
		_, err := cat.LoadTable(t.Context(), ident)
		if !errors.Is(err, catalog.ErrNotFound) || !strings.Contains(err.Error(), "region us-west-2") {
			t.Fatalf("LoadTable(wrong region) = %v, want ErrNotFound hinting at region us-west-2", err)
		}
	})
	t.Run("missing metadata file", func(t *testing.T) {
		bad := loc[:strings.LastIndex(loc, "/")+1] + "99999-gone.metadata.json"
		registerS3Table(t, moto, arn, "sales", "orders", bad)
		t.Cleanup(func() { registerS3Table(t, moto, arn, "sales", "orders", loc) })
		cat := openOK(t, s3tablesConfig(moto, arn, catalog.ModeNative))
		_, err := cat.LoadTable(t.Context(), ident)
		if !errors.Is(err, catalog.ErrBadMetadata) || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("LoadTable(missing metadata) = %v, want ErrBadMetadata naming %s", err, bad)
		}
	})
	t.Run("unreachable endpoint", func(t *testing.T) {
		dead := "http://127.0.0.1:" + itoa(testpeer.FreePort(t))
		cat := openOK(t, s3tablesConfig(dead, arn, catalog.ModeNative))
		_, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
		if !errors.Is(err, catalog.ErrUnreachable) {
			t.Fatalf("ListNamespaces(dead endpoint) = %v, want ErrUnreachable", err)
		}
	})
}
