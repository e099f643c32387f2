package testpeer

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// BuildFloe builds the floe binary of this repository (go build, cached by
// the Go build cache) and returns its path.
func BuildFloe(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "floe")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/floe")
	cmd.Dir = RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testpeer: build floe: %v\n%s", err, out)
	}
	return bin
}
