package lint

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// modelPackages are the packages that hold data models and byte formats:
// they link no transport (no Pinot or AWS client, no store), so a tool
// that writes segments or infers schemas carries none of it.
var modelPackages = []string{"pinot/spec", "segments", "schema"}

// transportDeps are the import paths (or prefixes ending in "/") a model
// package must not link, directly or through another package.
var transportDeps = []string{
	modulePath + "/pinot",
	modulePath + "/checkpoint",
	modulePath + "/catalog",
	"github.com/aws/",
	"github.com/redis/",
}

// TestModelPackages_linkNoTransport walks each model package's whole
// dependency graph (go list -deps, tests excluded).
func TestModelPackages_linkNoTransport(t *testing.T) {
	for _, pkg := range modelPackages {
		for _, dep := range depsOf(t, pkg) {
			for _, bad := range transportDeps {
				if dep == bad || (strings.HasSuffix(bad, "/") && strings.HasPrefix(dep, bad)) {
					t.Errorf("model package %s links %s", pkg, dep)
				}
			}
		}
	}
}

// TestPinotSpec_standardLibraryOnly: the Pinot model imports nothing but
// the standard library.
func TestPinotSpec_standardLibraryOnly(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./pinot/spec")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != modulePath+"/pinot/spec" {
			t.Errorf("pinot/spec links %s", dep)
		}
	}
}

func depsOf(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "./"+pkg)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 5 {
		t.Fatalf("go list -deps %s listed %d packages", pkg, len(deps))
	}
	return deps
}
