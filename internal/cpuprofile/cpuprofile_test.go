package cpuprofile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/floehq/floe/internal/cpuprofile"
)

// Start writes a profile that exists once stopped; "" profiles nothing;
// a path that cannot be created is an error naming the profile.
func TestStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	stop, err := cpuprofile.Start(path)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("profile %s: %v (size %v)", path, err, st)
	}
	stop, err = cpuprofile.Start("")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := cpuprofile.Start(filepath.Join(t.TempDir(), "missing", "cpu.prof")); err == nil {
		t.Fatal("want an error for a profile in a missing directory")
	}
}
