package lint

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// invariantDef matches the line that states a numbered invariant: a list
// item ("- " after an optional "//", or a tab-indented line of a doc
// comment) starting with its id ("C1", "P10", "K1:").
var invariantDef = regexp.MustCompile(`^\s*(?://)?(?:\s*[-*]\s+|\t)([A-Z][0-9]{1,2})(?::|\s)`)

// TestInvariants_eachCitedByATest: every numbered invariant that a doc.go
// or docs/ARCHITECTURE.md states is named by at least one test (a _test.go
// file, or a conformance suite such as checkpoint/checkpointtest), and no
// id is stated twice, so a test's citation points at one invariant.
func TestInvariants_eachCitedByATest(t *testing.T) {
	root := filepath.Join("..", "..")
	defs := map[string]string{} // id → where it is stated
	var tests []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "tools") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.Name() == "doc.go" || rel == filepath.Join("docs", "ARCHITECTURE.md"):
			for _, id := range statedInvariants(t, path) {
				if prev, ok := defs[id]; ok && prev != rel {
					t.Errorf("invariant %s is stated in %s and in %s: give one of them another letter", id, prev, rel)
				}
				defs[id] = rel
			}
		case strings.HasSuffix(d.Name(), "_test.go") || isConformanceSuite(rel):
			tests = append(tests, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) < 20 {
		t.Fatalf("found only %d numbered invariants: the statement format changed?", len(defs))
	}
	cited := map[string]bool{}
	for _, path := range tests {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for id := range defs {
			if !cited[id] && regexp.MustCompile(`\b`+id+`\b`).Match(b) {
				cited[id] = true
			}
		}
	}
	var missing []string
	for id, where := range defs {
		if !cited[id] {
			missing = append(missing, id+" ("+where+")")
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("invariants no test names: %s", strings.Join(missing, ", "))
	}
}

// isConformanceSuite reports whether rel is a file of a package of shared
// tests (named <pkg>test, run by each implementation's tests).
func isConformanceSuite(rel string) bool {
	dir := filepath.Base(filepath.Dir(rel))
	return strings.HasSuffix(dir, "test") && strings.HasSuffix(rel, ".go") && filepath.Base(rel) != "doc.go"
}

// statedInvariants returns the ids of the invariants a file states.
func statedInvariants(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(string(b), "\n") {
		if m := invariantDef.FindStringSubmatch(line); m != nil {
			ids = append(ids, m[1])
		}
	}
	return ids
}
