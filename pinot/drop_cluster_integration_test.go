//go:build integration

package pinot_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/floehq/floe/pinot"
)

// testDropTable: a dropped table and its schema are gone from the
// controller, and dropping again succeeds.
func testDropTable(t *testing.T, ctl *pinot.Controller, b *pinot.Broker, controllerURL string) {
	ctx := context.Background()
	const table = "dropme"
	if err := ctl.EnsureTable(ctx, clusterSchema(table), clusterTable(table)); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Upload(ctx, table, buildSegment(t, table, "dropme_a_0", 0, 100, 1)); err != nil {
		t.Fatal(err)
	}
	waitCount(t, b, table, 100)
	if err := ctl.DropTable(ctx, table, false); err != nil {
		t.Fatalf("DropTable: %v", err)
	}
	if _, err := ctl.ListSegments(ctx, table); !errors.Is(err, pinot.ErrTableMissing) {
		t.Fatalf("ListSegments after DropTable: %v, want ErrTableMissing", err)
	}
	if code := getStatus(t, controllerURL+"/schemas/"+table); code != http.StatusOK {
		t.Fatalf("schema after DropTable without dropSchema: %d, want it kept (200)", code)
	}
	if err := ctl.DropTable(ctx, table, true); err != nil {
		t.Fatalf("DropTable of a dropped table, schema too: %v", err)
	}
	if code := getStatus(t, controllerURL+"/schemas/"+table); code != http.StatusNotFound {
		t.Fatalf("schema after DropTable with dropSchema: %d, want 404", code)
	}
	if err := ctl.DropTable(ctx, table, true); err != nil {
		t.Fatalf("DropTable once more: %v", err)
	}
}

func getStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
