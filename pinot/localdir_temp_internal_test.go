package pinot

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestLocalDir_SweepTemps: temporary files of writers that are gone are
// removed, those of live writers stay, and nothing else is touched (I2:
// a killed run leaves no file behind once floe starts again).
func TestLocalDir_SweepTemps(t *testing.T) {
	root := t.TempDir()
	d := NewLocalDir(root)
	if d.owner.start == "0" {
		t.Fatal("no /proc on this machine: the owner check cannot be tested here")
	}
	tableDir := filepath.Join(root, "t")
	stateDir := filepath.Join(tableDir, stateDirName)
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	dead := exitedPID(t)
	old := time.Now().Add(-2 * staleTempAge)
	files := []struct {
		name string
		mod  time.Time
		gone bool
	}{
		{"t/seg_0.tar.gz", old, false},                                    // a served tarball
		{"t/state/00000000000000000001.json", old, false},                 // a state version
		{filepath.Base(d.tempName("t/seg_1.tar.gz")), time.Time{}, false}, // this process, in progress
		{"t/seg_2.tar.gz.tmp-" + d.owner.host + "." + strconv.Itoa(dead) + ".123.00ff", time.Time{}, true},
		{"t/state/00000000000000000002.json.tmp-" + d.owner.host + "." + strconv.Itoa(dead) + ".9.00ff", time.Time{}, true},
		// this pid, but another start time: the pid was reused.
		{"t/seg_3.tar.gz.tmp-" + d.owner.host + "." + strconv.Itoa(os.Getpid()) + ".1.00ff", time.Time{}, true},
		{"t/seg_4.tar.gz.tmp-0badc0de." + strconv.Itoa(dead) + ".7.00ff", time.Time{}, false}, // another host, recent
		{"t/seg_5.tar.gz.tmp-0badc0de." + strconv.Itoa(dead) + ".7.00ff", old, true},          // another host, stale
		{"t/seg_6.tar.gz.tmp-00ff00ff00ff00ff", time.Time{}, false},                           // older floe, recent
		{"t/seg_7.tar.gz.tmp-00ff00ff00ff00ff", old, true},                                    // older floe, stale
	}
	for i := range files {
		f := &files[i]
		if filepath.Dir(f.name) == "." {
			f.name = filepath.Join("t", f.name)
		}
		p := filepath.Join(root, f.name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if !f.mod.IsZero() {
			if err := os.Chtimes(p, f.mod, f.mod); err != nil {
				t.Fatal(err)
			}
		}
	}
	n, err := d.SweepTemps(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, f := range files {
		_, statErr := os.Stat(filepath.Join(root, f.name))
		if gone := os.IsNotExist(statErr); gone != f.gone {
			t.Errorf("%s: removed=%v, want %v", f.name, gone, f.gone)
		}
		if f.gone {
			want++
		}
	}
	if n != want {
		t.Errorf("SweepTemps removed %d files, want %d", n, want)
	}
}

// TestLocalDir_TempNameCarriesOwner: the writer is read back from every
// temporary name LocalDir makes.
func TestLocalDir_TempNameCarriesOwner(t *testing.T) {
	d := NewLocalDir(t.TempDir())
	names := []string{d.tempName("/x/seg_0.tar.gz"), d.tempName("/x/state/00000000000000000001.json")}
	for _, name := range names {
		o, ok := parseTempOwner(name)
		if !ok || o != d.owner {
			t.Errorf("parseTempOwner(%q) = %v, %v; want %v", name, o, ok, d.owner)
		}
	}
	if names[0] == d.tempName("/x/seg_0.tar.gz") {
		t.Error("two temporary names of one path are equal")
	}
}

// exitedPID returns the pid of a process that has exited.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
