package catalog_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/internal/fixture"
)

// hadoopFixture writes sales.orders (2 snapshots, 30 rows) into a Hadoop
// warehouse with iceberg-go's Hadoop catalog.
func hadoopFixture(t *testing.T, wh string, props iceberg.Properties) {
	t.Helper()
	cat, err := hadoop.NewCatalog("w", wh, props)
	if err != nil {
		t.Fatalf("hadoop catalog: %v", err)
	}
	if err := cat.CreateNamespace(t.Context(), table.Identifier{"sales"}, nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	tbl, err := cat.CreateTable(t.Context(), table.Identifier{"sales", "orders"}, fixture.Schema())
	if err != nil {
		t.Fatalf("create table: %v", err)
	}
	for i, n := range []int{10, 20} {
		at := fixture.Rows(int64(i*10), n)
		tbl, err = tbl.AppendTable(t.Context(), at, int64(n), nil)
		at.Release()
		if err != nil {
			t.Fatalf("append: %v", err)
		}
	}
}

func TestHadoopCatalog_LocalWarehouse(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	hadoopFixture(t, wh, nil)
	cat, err := catalog.Open(t.Context(), catalog.Config{Name: "files", Type: catalog.TypeHadoop,
		Props: map[string]string{catalog.PropWarehouse: "file://" + wh}}, discard())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer cat.Close()
	ident := catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}
	tbl, err := cat.LoadTable(t.Context(), ident)
	if err != nil {
		t.Fatalf("LoadTable: %v", err)
	}
	if len(tbl.Snapshots()) != 2 || countRows(t, tbl) != 30 || !strings.Contains(tbl.MetadataLocation, wh) {
		t.Errorf("table %s: %d snapshots, want 2 and 30 rows under %s", tbl.MetadataLocation, len(tbl.Snapshots()), wh)
	}
	rep := cat.Validate(t.Context())
	if !rep.OK {
		t.Errorf("Validate = %+v", rep)
	}
	_, err = cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"sales"}, Name: "gone"})
	if !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("LoadTable(gone) = %v, want ErrNotFound", err)
	}
}

func TestSQLCatalog_OpenErrors(t *testing.T) {
	_, err := catalog.Open(t.Context(), catalog.Config{Name: "pg", Type: catalog.TypeSQL,
		Props: map[string]string{"uri": "postgres://floe@127.0.0.1:1/cat", "driver": "no-such-driver"}, Secrets: map[string]string{"password": "pw-secret"}}, discard())
	if !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), `connections.pg.props.driver: unsupported driver "no-such-driver"`) ||
		strings.Contains(err.Error(), "pw-secret") {
		t.Fatalf("Open(driver not built in) = %v, want a props.driver error without the password", err)
	}
	dead := "127.0.0.1:" + itoa(freePort(t))
	_, err = catalog.Open(t.Context(), catalog.Config{Name: "pg", Type: catalog.TypeSQL,
		Props: map[string]string{"uri": "postgres://floe@" + dead + "/cat?sslmode=disable"}, Secrets: map[string]string{"password": "pw-secret"}}, discard())
	if !errors.Is(err, catalog.ErrUnreachable) || !strings.Contains(err.Error(), dead) || strings.Contains(err.Error(), "pw-secret") {
		t.Fatalf("Open(postgres down) = %v, want ErrUnreachable naming %s without the password", err, dead)
	}
}
