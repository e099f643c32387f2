package lint

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// modulePath is floe's module path; imports under it are floe's own.
const modulePath = "github.com/floehq/floe"

// layerRow is one row of docs/ARCHITECTURE.md's package table.
type layerRow struct {
	folder     string
	everything bool
	allowed    []string // floe folders named in backticks in "may import"
}

// TestLayering: every package imports only what its row of the "may
// import" table in docs/ARCHITECTURE.md allows (the table is the source),
// so the layering cannot drift silently. Test files are exempt.
func TestLayering(t *testing.T) {
	rows := readLayerTable(t, filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	for pkg, imports := range floeImports(t) {
		row, ok := rowOf(rows, pkg)
		if !ok {
			t.Errorf("package %s has no row in docs/ARCHITECTURE.md's package table", pkg)
			continue
		}
		if row.everything {
			continue
		}
		for _, imp := range imports {
			if !row.allows(imp) {
				t.Errorf("package %s imports %s, which its row (%s) in docs/ARCHITECTURE.md does not allow", pkg, imp, row.folder)
			}
		}
	}
}

// TestLayering_tableParses guards the parser: the table has the rows the
// layering check relies on, with what they allow.
func TestLayering_tableParses(t *testing.T) {
	rows := readLayerTable(t, filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	byFolder := map[string]layerRow{}
	for _, r := range rows {
		byFolder[r.folder] = r
	}
	if r := byFolder["cmd/floe"]; !r.everything {
		t.Error("cmd/floe may import everything")
	}
	if r := byFolder["client"]; len(r.allowed) != 0 || r.everything {
		t.Errorf("client imports no floe package, the table says %+v", r)
	}
	if r := byFolder["watcher"]; !slices.Contains(r.allowed, "segments") || r.allows("api") {
		t.Errorf("watcher row %+v", r)
	}
	if r, ok := rowOf(rows, "segments/parquet"); !ok || r.folder != "segments" || !r.allows("segments/internal/convert") {
		t.Errorf("segments/parquet belongs to the segments row and may use its folders: %+v", r)
	}
}

// allows reports whether the row lets a package import imp: a folder of
// its own row or one it names, or a folder below either.
func (r layerRow) allows(imp string) bool {
	for _, f := range append([]string{r.folder}, r.allowed...) {
		if imp == f || strings.HasPrefix(imp, f+"/") {
			return true
		}
	}
	return false
}

// rowOf is the row of the longest folder holding pkg.
func rowOf(rows []layerRow, pkg string) (layerRow, bool) {
	var best layerRow
	found := false
	for _, r := range rows {
		if (pkg == r.folder || strings.HasPrefix(pkg, r.folder+"/")) && len(r.folder) > len(best.folder) {
			best, found = r, true
		}
	}
	return best, found
}

var backticked = regexp.MustCompile("`([^`]+)`")

// readLayerTable parses the table under "## Packages".
func readLayerTable(t *testing.T, path string) []layerRow {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []layerRow
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = strings.HasPrefix(line, "## Packages")
			continue
		case !in || !strings.HasPrefix(line, "| `"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 3 {
			t.Fatalf("package table row without three cells: %s", line)
		}
		folder := backticked.FindStringSubmatch(cells[0])
		may := strings.TrimSpace(cells[len(cells)-1])
		r := layerRow{folder: folder[1], everything: may == "everything"}
		for _, m := range backticked.FindAllStringSubmatch(may, -1) {
			r.allowed = append(r.allowed, m[1])
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no package table under \"## Packages\"", path)
	}
	return rows
}

// floeImports maps each floe package (path below the module) to the floe
// packages it imports, tests excluded.
func floeImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	res := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], modulePath), "/")
		var imps []string
		for _, imp := range fields[1:] {
			if rest, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				imps = append(imps, rest)
			}
		}
		res[pkg] = imps
	}
	if len(res) < 10 {
		t.Fatalf("go list found %d packages", len(res))
	}
	return res
}
