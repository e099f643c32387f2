//go:build integration

package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"
	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/catalogtest"
	"github.com/floehq/floe/internal/testpeer"
)

// glueFixture registers sales.orders (written by PyIceberg into moto S3)
// and sales.plain (not Iceberg) in moto's Glue, plus broken.nometa and
// broken.badmeta. It returns the metadata location of sales.orders.
func glueFixture(t *testing.T, moto string, withBroken bool) string {
	t.Helper()
	createBucket(t, moto, "glue-wh")
	loc := pyIceberg(t, "s3", "--endpoint", moto, "--location", "s3://glue-wh/sales/orders", "sales.orders")[0].MetadataLocation
	client := glue.NewFromConfig(motoAWS(moto))
	dbs := []string{"sales"}
	if withBroken {
		dbs = append(dbs, "broken")
	}
	for _, db := range dbs {
		if _, err := client.CreateDatabase(t.Context(), &glue.CreateDatabaseInput{DatabaseInput: &gluetypes.DatabaseInput{Name: aws.String(db)}}); err != nil {
			t.Fatalf("create database %s: %v", db, err)
		}
	}
	tables := []struct {
		db, name string
		params   map[string]string
	}{
		{"sales", "orders", map[string]string{"table_type": "ICEBERG", "metadata_location": loc}},
		{"sales", "plain", map[string]string{"classification": "parquet"}},
		{"broken", "nometa", map[string]string{"table_type": "ICEBERG"}},
		{"broken", "badmeta", map[string]string{"table_type": "ICEBERG", "metadata_location": "glue-wh/sales/orders"}},
	}
	for _, tb := range tables {
		if tb.db == "broken" && !withBroken {
			continue
		}
		if _, err := client.CreateTable(t.Context(), &glue.CreateTableInput{DatabaseName: aws.String(tb.db),
			TableInput: &gluetypes.TableInput{Name: aws.String(tb.name), TableType: aws.String("EXTERNAL_TABLE"), Parameters: tb.params}}); err != nil {
			t.Fatalf("create glue table %s.%s: %v", tb.db, tb.name, err)
		}
	}
	return loc
}

func glueConfig(moto string) catalog.Config {
	return catalog.Config{Name: "glue", Type: catalog.TypeGlue,
		Props:   map[string]string{catalog.PropRegion: "us-east-1", catalog.PropEndpoint: moto},
		Secrets: testingSecrets()}
}

func TestGlue_NativeOnMoto(t *testing.T) {
	moto := testpeer.StartMoto(t)
	loc := glueFixture(t, moto, true)
	cat := openOK(t, glueConfig(moto))

	nss, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
	if err != nil || len(nss.Items) != 2 {
		t.Fatalf("ListNamespaces = %v, %v; want broken and sales", nss.Items, err)
	}
	tables, err := cat.ListTables(t.Context(), []string{"sales"}, catalog.PageRequest{})
	if err != nil || len(tables.Items) != 1 || tables.Items[0].Name != "orders" {
		t.Fatalf("ListTables(sales) = %v, %v; want only the Iceberg table orders", tables.Items, err)
	}
	checkLoaded(t, cat, catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}, loc)

	for _, tc := range []struct{ name, want string }{
		{"nometa", "metadata_location is missing"},
		{"badmeta", "is malformed"},
	} {
		_, err := cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"broken"}, Name: tc.name})
		if !errors.Is(err, catalog.ErrBadMetadata) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "broken."+tc.name) {
			t.Errorf("LoadTable(broken.%s) = %v, want ErrBadMetadata saying %q", tc.name, err, tc.want)
		}
	}
	_, err = cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"sales"}, Name: "plain"})
	if !errors.Is(err, catalog.ErrBadMetadata) || !strings.Contains(err.Error(), "not an Iceberg table") {
		t.Errorf("LoadTable(sales.plain) = %v, want 'not an Iceberg table'", err)
	}
	_, err = cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"sales"}, Name: "missing"})
	if !errors.Is(err, catalog.ErrNotFound) || !strings.Contains(err.Error(), "sales.missing") {
		t.Errorf("LoadTable(sales.missing) = %v, want ErrNotFound naming it", err)
	}
}

func TestGlue_ValidateOnMoto(t *testing.T) {
	moto := testpeer.StartMoto(t)
	loc := glueFixture(t, moto, false)
	checkValid(t, openOK(t, glueConfig(moto)))
	t.Run("conformance", func(t *testing.T) {
		cfg := glueConfig(moto)
		cfg.Secrets = conformanceSecrets("")
		catalogtest.Run(t, catalogtest.Lake{
			Open:       func(t *testing.T) catalog.Catalog { return openOK(t, cfg) },
			Namespaces: []string{"sales"}, Tables: []string{"orders"},
			Table:            catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"},
			MetadataLocation: loc, Secrets: []string{confKeyID, confSecret},
			Broken: brokenAWS(cfg), BrokenKind: catalog.ErrUnreachable, BrokenSecrets: []string{confKeyID, confSecret},
		})
	})

	// A database whose only table has no metadata pointer: the load step
	// fails and says why.
	client := glue.NewFromConfig(motoAWS(moto))
	if _, err := client.DeleteTable(t.Context(), &glue.DeleteTableInput{DatabaseName: aws.String("sales"), Name: aws.String("orders")}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateTable(t.Context(), &glue.CreateTableInput{DatabaseName: aws.String("sales"),
		TableInput: &gluetypes.TableInput{Name: aws.String("orders"), Parameters: map[string]string{"table_type": "iceberg"}}}); err != nil {
		t.Fatal(err)
	}
	rep := openOK(t, glueConfig(moto)).Validate(t.Context())
	load, footer := stepIndex(rep, "load table"), stepIndex(rep, "read data file footer")
	if rep.OK || load < 0 || footer < 0 || rep.Steps[load].Status != catalog.StepFailed ||
		!strings.Contains(rep.Steps[load].Error, "metadata_location is missing") || rep.Steps[footer].Status != catalog.StepSkipped {
		t.Fatalf("Validate = %+v, want the load step to fail on the missing metadata_location", rep)
	}

}
