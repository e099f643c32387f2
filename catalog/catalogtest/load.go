package catalogtest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
)

func testLoadTable(t *testing.T, lake Lake, cat catalog.Catalog) {
	tbl, err := cat.LoadTable(t.Context(), lake.Table)
	if err != nil {
		t.Fatalf("LoadTable(%s): %v", lake.Table, err)
	}
	if tbl.Ident.String() != lake.Table.String() {
		t.Errorf("LoadTable ident = %s, want %s", tbl.Ident, lake.Table)
	}
	if lake.MetadataLocation != "" && tbl.MetadataLocation != lake.MetadataLocation {
		t.Errorf("metadata location = %q, want %q", tbl.MetadataLocation, lake.MetadataLocation)
	}
	if tbl.MetadataLocation == "" || tbl.UUID == "" || tbl.UUID != tbl.Iceberg.Metadata().TableUUID().String() {
		t.Errorf("metadata location %q, uuid %q: want both, the uuid the metadata's", tbl.MetadataLocation, tbl.UUID)
	}
	if n := len(tbl.Snapshots()); n != fixtureSnapshots || tbl.CurrentSnapshot() == nil {
		t.Errorf("snapshots = %d (current %v), want %d and a current one", n, tbl.CurrentSnapshot(), fixtureSnapshots)
	}
	if rows := countRows(t, tbl); rows != fixtureRows {
		t.Errorf("rows read through the loaded table = %d, want %d", rows, fixtureRows)
	}
}

// countRows scans the table's current snapshot with its own FileIO.
func countRows(t *testing.T, tbl *catalog.Table) int64 {
	t.Helper()
	_, it, err := tbl.Iceberg.Scan().ToArrowRecords(t.Context())
	if err != nil {
		t.Fatalf("scan %s: %v", tbl.Ident, err)
	}
	var n int64
	for rec, err := range it {
		if err != nil {
			t.Fatalf("scan %s: %v", tbl.Ident, err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	return n
}

func testLoadMissing(t *testing.T, lake Lake, cat catalog.Catalog) {
	missing := catalog.TableIdent{Namespace: lake.Table.Namespace, Name: "floe_no_such_table"}
	_, err := cat.LoadTable(t.Context(), missing)
	wantKind(t, "LoadTable(missing)", err, catalog.ErrNotFound)
	var ce *catalog.Error
	if !errors.As(err, &ce) || ce.Op == "" {
		t.Errorf("LoadTable(missing) = %T %v, want a *catalog.Error naming the operation", err, err)
	}
	if !strings.Contains(err.Error(), missing.Name) {
		t.Errorf("LoadTable(missing) = %v, want the table named", err)
	}
	_, err = cat.Describe(t.Context(), missing)
	wantKind(t, "Describe(missing)", err, catalog.ErrNotFound)
}

func testLoadInvalidIdent(t *testing.T, _ Lake, cat catalog.Catalog) {
	for _, id := range []catalog.TableIdent{{Name: "orders"}, {Namespace: []string{"sales"}}} {
		_, err := cat.LoadTable(t.Context(), id)
		wantKind(t, "LoadTable("+id.String()+")", err, catalog.ErrInvalidConfig)
	}
}

func testDescribe(t *testing.T, lake Lake, cat catalog.Catalog) {
	tbl, err := cat.LoadTable(t.Context(), lake.Table)
	if err != nil {
		t.Fatalf("LoadTable(%s): %v", lake.Table, err)
	}
	info, err := cat.Describe(t.Context(), lake.Table)
	if err != nil {
		t.Fatalf("Describe(%s): %v", lake.Table, err)
	}
	if info.Ident.String() != lake.Table.String() || info.MetadataLocation != tbl.MetadataLocation || info.UUID != tbl.UUID {
		t.Errorf("Describe = %s at %s (%s), want LoadTable's %s at %s (%s)",
			info.Ident, info.MetadataLocation, info.UUID, tbl.Ident, tbl.MetadataLocation, tbl.UUID)
	}
	if info.SnapshotCount != fixtureSnapshots || info.CurrentSnapshot == nil || info.CurrentSnapshot.ID != tbl.CurrentSnapshot().SnapshotID {
		t.Errorf("Describe snapshots = %d, current %+v; want %d and snapshot %d",
			info.SnapshotCount, info.CurrentSnapshot, fixtureSnapshots, tbl.CurrentSnapshot().SnapshotID)
	}
	if info.FormatVersion != fixtureFormat || info.Location == "" {
		t.Errorf("Describe format %d, location %q; want format %d and a location", info.FormatVersion, info.Location, fixtureFormat)
	}
	var cols []string
	for _, f := range info.Schema.Fields() {
		cols = append(cols, f.Name)
	}
	if !slices.Equal(cols, []string{"id", "name"}) {
		t.Errorf("Describe columns = %v, want [id name]", cols)
	}
}
