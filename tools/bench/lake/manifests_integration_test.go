//go:build integration

package lake_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/tools/bench/lake"
)

// TestBuildManifestPerFile_PyIceberg: PyIceberg, reading the catalog the
// benchmark built, plans every data file, reads every row and sees one
// manifest per file, after the bulk build and after a one-file commit.
func TestBuildManifestPerFile_PyIceberg(t *testing.T) {
	const files, rows = 40, 5
	l, err := lake.BuildManifestPerFile(t.Context(), t.TempDir(), files, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	checkPyIceberg(t, l, files, rows)
	if err := l.AddFiles(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	checkPyIceberg(t, l, files+1, rows)
}

func checkPyIceberg(t *testing.T, l *lake.Lake, files, rows int) {
	t.Helper()
	py := testpeer.VenvBin(t, "python")
	cmd := exec.CommandContext(t.Context(), py, filepath.Join("testdata", "pyiceberg_scan.py"), l.DB, lake.CatalogName, "bench.events")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyiceberg_scan.py: %v\n%s", err, stderr.String())
	}
	var got struct{ Files, Rows, Manifests int }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("parse %q: %v", out, err)
	}
	if got.Files != files || got.Rows != files*rows || got.Manifests != files {
		t.Errorf("PyIceberg sees %d files, %d rows, %d manifests; want %d, %d, %d",
			got.Files, got.Rows, got.Manifests, files, files*rows, files)
	}
}
