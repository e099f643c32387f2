package pinot_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
)

func newLocalDir(t *testing.T) (*pinot.LocalDir, string) {
	t.Helper()
	root := t.TempDir()
	d := pinot.NewLocalDir(root)
	if err := d.EnsureTable(context.Background(), &spec.Schema{Name: "t"}, &spec.TableConfig{TableName: "t", TableType: "OFFLINE"}); err != nil {
		t.Fatal(err)
	}
	return d, root
}

func wantServed(t *testing.T, d *pinot.LocalDir, want ...string) {
	t.Helper()
	got, err := d.ListSegments(context.Background(), "t")
	if err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("served %v (%v), want %v", got, err, want)
	}
}

// tarballs lists the segment tarballs in the table directory.
func tarballs(t *testing.T, root string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(root, "t", "*.tar.gz"))
	var out []string
	for _, p := range m {
		out = append(out, strings.TrimSuffix(filepath.Base(p), ".tar.gz"))
	}
	slices.Sort(out)
	return out
}

func TestLocalDir_Replace(t *testing.T) {
	ctx := context.Background()
	d, root := newLocalDir(t)
	if err := pinot.Replace(ctx, d, "t", nil, []pinot.Segment{tarFile(t, "a"), tarFile(t, "b")}); err != nil {
		t.Fatal(err)
	}
	if err := pinot.Replace(ctx, d, "t", []string{"a"}, []pinot.Segment{tarFile(t, "c")}); err != nil {
		t.Fatal(err)
	}
	wantServed(t, d, "b", "c")
	if err := pinot.Replace(ctx, d, "t", []string{"b"}, nil); err != nil {
		t.Fatal(err)
	}
	wantServed(t, d, "c")
	if got := tarballs(t, root); strings.Join(got, ",") != "c" {
		t.Fatalf("tarballs %v, want only c", got)
	}
	if _, err := d.ListSegments(ctx, "nope"); !errors.Is(err, pinot.ErrTableMissing) {
		t.Fatalf("want ErrTableMissing, got %v", err)
	}
	if err := d.Upload(ctx, "nope", tarFile(t, "x")); !errors.Is(err, pinot.ErrTableMissing) {
		t.Fatalf("upload to a missing table: %v", err)
	}
}

// LocalDir follows the controller's lineage protocol: To segments are
// hidden until the end, a repeated end succeeds, an end after a revert
// fails, and a reverted To name cannot be used again.
func TestLocalDir_Lineage(t *testing.T) {
	ctx := context.Background()
	d, root := newLocalDir(t)
	for _, s := range []string{"a", "b"} {
		if err := d.Upload(ctx, "t", tarFile(t, s)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.StartReplace(ctx, "t", []string{"zz"}, []string{"c"}); err == nil || !strings.Contains(err.Error(), "zz") {
		t.Fatalf("replacing an unserved segment: %v", err)
	}
	if _, err := d.StartReplace(ctx, "t", []string{"a"}, []string{"b"}); err == nil || !strings.Contains(err.Error(), "b") {
		t.Fatalf("a To segment already served: %v", err)
	}
	id, err := d.StartReplace(ctx, "t", []string{"a"}, []string{"c", "d"})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Upload(ctx, "t", tarFile(t, "c")); err != nil {
		t.Fatal(err)
	}
	wantServed(t, d, "a", "b")
	if err := d.EndReplace(ctx, "t", id); err == nil || !strings.Contains(err.Error(), "d") {
		t.Fatalf("end before every To segment is uploaded: %v", err)
	}
	if err := d.Upload(ctx, "t", tarFile(t, "d")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := d.EndReplace(ctx, "t", id); err != nil {
			t.Fatal(err)
		}
	}
	wantServed(t, d, "b", "c", "d")
	if got := tarballs(t, root); strings.Join(got, ",") != "b,c,d" {
		t.Fatalf("tarballs %v", got)
	}
	if err := d.RevertReplace(ctx, "t", id); !errors.Is(err, pinot.ErrReplaceEnded) {
		t.Fatalf("revert after end: %v", err)
	}

	id2, err := d.StartReplace(ctx, "t", []string{"b"}, []string{"e"})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Upload(ctx, "t", tarFile(t, "e")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := d.RevertReplace(ctx, "t", id2); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.EndReplace(ctx, "t", id2); !errors.Is(err, pinot.ErrReplaceAborted) {
		t.Fatalf("end after revert: %v", err)
	}
	wantServed(t, d, "b", "c", "d")
	if got := tarballs(t, root); strings.Join(got, ",") != "b,c,d" {
		t.Fatalf("the reverted To tarball stays: %v", got)
	}
	if _, err := d.StartReplace(ctx, "t", []string{"b"}, []string{"e"}); !errors.Is(err, pinot.ErrSegmentNameReverted) {
		t.Fatalf("reusing a reverted To name: %v", err)
	}
	if err := d.Upload(ctx, "t", tarFile(t, "e")); !errors.Is(err, pinot.ErrSegmentNameReverted) {
		t.Fatalf("uploading a reverted To name: %v", err)
	}
}

// A StartReplace that overlaps an open replacement takes it over: To
// segments it reuses are kept, the others removed (Pinot's forceCleanup).
func TestLocalDir_StartTakesOverOpenReplacement(t *testing.T) {
	ctx := context.Background()
	d, root := newLocalDir(t)
	if err := d.Upload(ctx, "t", tarFile(t, "a")); err != nil {
		t.Fatal(err)
	}
	old, err := d.StartReplace(ctx, "t", []string{"a"}, []string{"x", "y"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"x", "y"} {
		if err := d.Upload(ctx, "t", tarFile(t, s)); err != nil {
			t.Fatal(err)
		}
	}
	id, err := d.StartReplace(ctx, "t", []string{"a"}, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tarballs(t, root); strings.Join(got, ",") != "a,x" {
		t.Fatalf("tarballs %v, want a,x: x is reused, y dropped", got)
	}
	if err := d.EndReplace(ctx, "t", old); !errors.Is(err, pinot.ErrReplaceAborted) {
		t.Fatalf("end of the taken-over replacement: %v", err)
	}
	if err := d.EndReplace(ctx, "t", id); err != nil {
		t.Fatal(err)
	}
	wantServed(t, d, "x")
}

// A table written before state/ existed is migrated by the first call: an
// end its lineage.json logged but did not apply to segments.json (the
// process died in between) is finished, its From tarballs removed.
func TestLocalDir_RollsForwardInterruptedEnd(t *testing.T) {
	d, root := newLocalDir(t)
	dir := filepath.Join(root, "t")
	for name, body := range map[string]string{
		"segments.json": `["a","b"]`,
		"lineage.json":  `{"next":1,"entries":{"e1":{"segmentsFrom":["a"],"segmentsTo":["c"],"state":"ENDING","seq":1}}}`,
		"a.tar.gz":      "a", "b.tar.gz": "b", "c.tar.gz": "c",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantServed(t, d, "b", "c")
	if got := tarballs(t, root); strings.Join(got, ",") != "b,c" {
		t.Fatalf("tarballs %v", got)
	}
	if err := d.EndReplace(context.Background(), "t", "e1"); err != nil {
		t.Fatalf("the rolled-forward end is ended: %v", err)
	}
}

// U1: a refusing guard leaves the directory exactly as it was.
func TestLocalDir_GuardRefusalChangesNothing(t *testing.T) {
	ctx := context.Background()
	d, root := newLocalDir(t)
	if err := pinot.Replace(ctx, d, "t", nil, []pinot.Segment{tarFile(t, "a"), tarFile(t, "b")}); err != nil {
		t.Fatal(err)
	}
	open, err := d.StartReplace(ctx, "t", []string{"a"}, []string{"c"})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Upload(ctx, "t", tarFile(t, "c")); err != nil {
		t.Fatal(err)
	}
	before := snapshotDir(t, root)
	refuse := pinot.WithGuard(ctx, func(context.Context, pinot.Write) error { return errLeaseLost })
	for name, call := range map[string]func() error{
		"EnsureTable": func() error {
			return d.EnsureTable(refuse, &spec.Schema{Name: "t"}, &spec.TableConfig{TableName: "t"})
		},
		"Upload": func() error { return d.Upload(refuse, "t", tarFile(t, "e")) },
		"StartReplace": func() error {
			_, err := d.StartReplace(refuse, "t", []string{"b"}, []string{"d"})
			return err
		},
		"EndReplace":     func() error { return d.EndReplace(refuse, "t", open) },
		"RevertReplace":  func() error { return d.RevertReplace(refuse, "t", open) },
		"DeleteSegments": func() error { return d.DeleteSegments(refuse, "t", []string{"b"}) },
	} {
		if err := call(); !errors.Is(err, errLeaseLost) {
			t.Fatalf("%s: want the guard's error, got %v", name, err)
		}
		if after := snapshotDir(t, root); after != before {
			t.Fatalf("%s changed the directory:\nbefore %s\nafter  %s", name, before, after)
		}
	}
}

// U3: a change is compare-and-set on the table's state. A writer that read
// version N and is then paused (here inside the guard, which is asked after
// the read) while another replica publishes newer versions does not
// overwrite them: its publish fails and it starts over on the new state,
// asking the guard again. It holds nothing while paused, so the other
// replica is not blocked. With 21 newer versions, the version number the
// paused writer links was used and pruned meanwhile: it must lose all the
// same.
func TestLocalDir_PausedWriterRetriesOnNewerState(t *testing.T) {
	for _, uploads := range []int{1, 20} {
		t.Run(fmt.Sprintf("%d uploads meanwhile", uploads), func(t *testing.T) {
			ctx := context.Background()
			d, root := newLocalDir(t)
			for _, s := range []string{"a", "b"} {
				if err := d.Upload(ctx, "t", tarFile(t, s)); err != nil {
					t.Fatal(err)
				}
			}
			var segs []pinot.Segment
			for i := range uploads {
				segs = append(segs, tarFile(t, fmt.Sprintf("n%02d", i)))
			}
			other := pinot.NewLocalDir(root) // another replica on the same sink
			asked := 0
			pause := func(context.Context, pinot.Write) error {
				if asked++; asked > 1 {
					return nil
				}
				done := make(chan error, 1)
				go func() {
					for _, s := range segs {
						if err := other.Upload(ctx, "t", s); err != nil {
							done <- err
							return
						}
					}
					_, err := other.StartReplace(ctx, "t", []string{"b"}, []string{"r"})
					done <- err
				}()
				select {
				case err := <-done:
					return err
				case <-time.After(30 * time.Second):
					return errors.New("the other replica is blocked by the paused writer")
				}
			}
			if err := d.DeleteSegments(pinot.WithGuard(ctx, pause), "t", []string{"a"}); err != nil {
				t.Fatal(err)
			}
			if asked != 2 {
				t.Fatalf("guard asked %d times, want 2: the lost attempt and the retry", asked)
			}
			want := []string{"b"}
			for _, s := range segs {
				want = append(want, s.Name)
			}
			wantServed(t, d, want...)
			if got := tarballs(t, root); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("tarballs %v, want %v", got, want)
			}
			if l, err := d.SegmentLineage(ctx, "t"); err != nil || !l.Open["r"] {
				t.Fatalf("the other replica's open replacement is lost: %+v %v", l, err)
			}
			if v, _ := filepath.Glob(filepath.Join(root, "t", "state", "*.json")); len(v) > 16 {
				t.Fatalf("%d state versions kept, want at most 16", len(v))
			}
		})
	}
}

// snapshotDir describes every file under root (name and content).
func snapshotDir(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		body, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "%s=%q;", strings.TrimPrefix(p, root), body)
		return nil
	})
	return b.String()
}

// localDirWorker is set in the environment of the child processes of
// TestLocalDir_SharedByProcesses.
const localDirWorker = "PINOT_TEST_LOCALDIR_WORKER"

// U3: several processes on one directory (replicas of floe serve on one sink)
// upload, replace and delete concurrently without losing an update.
func TestLocalDir_SharedByProcesses(t *testing.T) {
	if spec := os.Getenv(localDirWorker); spec != "" {
		runLocalDirWorker(t, spec)
		return
	}
	d, root := newLocalDir(t)
	const procs, perProc = 3, 20
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLocalDir_SharedByProcesses$")
		cmd.Env = append(os.Environ(), localDirWorker+"="+root+"|"+strconv.Itoa(p)+"|"+strconv.Itoa(perProc))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("worker: %v", err)
		}
	}
	// Each worker uploads p_0..p_n, replaces every even one with its "r"
	// version, and deletes every third upload: what remains is exact.
	var want []string
	for p := range procs {
		for i := range perProc {
			switch {
			case i%3 == 0:
			case i%2 == 0:
				want = append(want, fmt.Sprintf("w%d_%02dr", p, i))
			default:
				want = append(want, fmt.Sprintf("w%d_%02d", p, i))
			}
		}
	}
	slices.Sort(want)
	wantServed(t, d, want...)
	if got := tarballs(t, root); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tarballs %v\nwant %v", got, want)
	}
	if tmp, _ := filepath.Glob(filepath.Join(root, "t", "*.tmp-*")); len(tmp) != 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

func runLocalDirWorker(t *testing.T, spec string) {
	parts := strings.Split(spec, "|")
	root, p := parts[0], parts[1]
	n, _ := strconv.Atoi(parts[2])
	ctx := context.Background()
	d := pinot.NewLocalDir(root)
	for i := range n {
		name := fmt.Sprintf("w%s_%02d", p, i)
		if err := d.Upload(ctx, "t", tarFile(t, name)); err != nil {
			t.Fatal(err)
		}
		switch {
		case i%3 == 0:
			if err := d.DeleteSegments(ctx, "t", []string{name}); err != nil {
				t.Fatal(err)
			}
		case i%2 == 0:
			if err := pinot.Replace(ctx, d, "t", []string{name}, []pinot.Segment{tarFile(t, name+"r")}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// SegmentLineage reports the names Pinot would hide (the From list of an
// ended replacement, the rest of a reverted one's To list) and the To names
// of open replacements.
func TestLocalDir_SegmentLineage(t *testing.T) {
	ctx := context.Background()
	d := pinot.NewLocalDir(t.TempDir())
	if l, err := d.SegmentLineage(ctx, "t"); err != nil || len(l.Hidden)+len(l.Open) != 0 {
		t.Fatalf("no table: %+v %v", l, err)
	}
	if err := d.EnsureTable(ctx, &spec.Schema{Name: "t"}, &spec.TableConfig{TableName: "t"}); err != nil {
		t.Fatal(err)
	}
	seg := func(name string) pinot.Segment {
		p := filepath.Join(t.TempDir(), name+".tar.gz")
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		return pinot.Segment{Name: name, TarPath: p}
	}
	if err := d.Upload(ctx, "t", seg("a")); err != nil {
		t.Fatal(err)
	}
	if err := pinot.Replace(ctx, d, "t", []string{"a"}, []pinot.Segment{seg("b")}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.StartReplace(ctx, "t", []string{"b"}, []string{"x", "y"}); err != nil {
		t.Fatal(err)
	}
	id, err := d.StartReplace(ctx, "t", []string{"b"}, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := d.SegmentLineage(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Hidden) != 2 || !l.Hidden["a"] || !l.Hidden["y"] || len(l.Open) != 1 || !l.Open["x"] {
		t.Fatalf("lineage = %+v; want a and y hidden, x open", l)
	}
	// The open replacement comes with its id, so a caller can end it.
	want := []pinot.OpenReplacement{{ID: id, From: []string{"b"}, To: []string{"x"}}}
	if !reflect.DeepEqual(l.Replacements, want) {
		t.Fatalf("open replacements = %+v, want %+v", l.Replacements, want)
	}
	if err := d.Upload(ctx, "t", seg("x")); err != nil {
		t.Fatal(err)
	}
	if err := d.EndReplace(ctx, "t", l.Replacements[0].ID); err != nil {
		t.Fatal(err)
	}
	if l, _ := d.SegmentLineage(ctx, "t"); len(l.Replacements) != 0 {
		t.Fatalf("an ended replacement is still listed open: %+v", l.Replacements)
	}
}

// A LocalDir keeps the state it last read or published decoded; a
// version another writer published since is read from disk, and what a
// caller does with a returned list never reaches the next read.
func TestLocalDir_CachedStateFollowsOtherWriters(t *testing.T) {
	ctx := context.Background()
	d1, root := newLocalDir(t)
	d2 := pinot.NewLocalDir(root)
	tar := filepath.Join(t.TempDir(), "s.tar.gz")
	if err := os.WriteFile(tar, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	up := func(d *pinot.LocalDir, name string) {
		t.Helper()
		if err := d.Upload(ctx, "t", pinot.Segment{Name: name, TarPath: tar}); err != nil {
			t.Fatal(err)
		}
	}
	up(d1, "a")
	wantServed(t, d1, "a")
	up(d2, "b")
	wantServed(t, d1, "a", "b")
	id, err := d1.StartReplace(ctx, "t", []string{"a"}, []string{"c"})
	if err != nil {
		t.Fatal(err)
	}
	up(d2, "c") // d2 reads the open replacement d1 published: c is not served yet
	wantServed(t, d2, "a", "b")
	if err := d2.EndReplace(ctx, "t", id); err != nil {
		t.Fatal(err)
	}
	wantServed(t, d1, "b", "c")
	got, err := d1.ListSegments(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	got[0] = "changed by the caller"
	wantServed(t, d1, "b", "c")
	if err := d1.DeleteSegments(ctx, "t", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	wantServed(t, d2, "c")
	if got := tarballs(t, root); strings.Join(got, ",") != "c" {
		t.Fatalf("tarballs %v, want only c", got)
	}
}
