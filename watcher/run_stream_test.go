package watcher_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
)

// streamProbe watches a replacing run through the sink: the order of
// lineage steps and uploads, what Pinot serves at each upload, and the
// segment tarballs in the work directories at that moment.
type streamProbe struct {
	*pinot.LocalDir
	t        *testing.T
	workDirs []string

	mu          sync.Mutex
	events      []string // "start", "upload <name>", "end", "revert"
	served      []string // served when the open replacement started
	openTo      map[string]bool
	failAfter   int // Upload fails once this many uploads were made since uploads was zeroed (0: never)
	uploads     int
	peakTars    int
	peakBytes   int64
	maxTarBytes int64
}

func newStreamProbe(t *testing.T, root string, workDirs ...string) *streamProbe {
	return &streamProbe{LocalDir: pinot.NewLocalDir(root), t: t, workDirs: workDirs}
}

func (p *streamProbe) StartReplace(ctx context.Context, table string, from, to []string) (string, error) {
	served, err := p.LocalDir.ListSegments(ctx, table)
	if err != nil {
		return "", err
	}
	id, err := p.LocalDir.StartReplace(ctx, table, from, to)
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, "start")
	p.served, p.openTo = served, map[string]bool{}
	for _, s := range to {
		p.openTo[s] = true
	}
	return id, nil
}

func (p *streamProbe) Upload(ctx context.Context, table string, seg pinot.Segment) error {
	p.mu.Lock()
	p.uploads++
	fail := p.failAfter > 0 && p.uploads > p.failAfter
	p.mu.Unlock()
	if fail {
		return errors.New("sink gone mid-replacement")
	}
	p.sampleWorkDirs(seg.TarPath)
	if err := p.LocalDir.Upload(ctx, table, seg); err != nil {
		return err
	}
	served, err := p.LocalDir.ListSegments(ctx, table)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, "upload "+seg.Name)
	if p.openTo[seg.Name] && strings.Join(served, ",") != strings.Join(p.served, ",") {
		p.t.Errorf("I9: Pinot serves %v while replacement segment %s is uploaded, want the old %v", served, seg.Name, p.served)
	}
	return nil
}

func (p *streamProbe) EndReplace(ctx context.Context, table, id string) error {
	if err := p.LocalDir.EndReplace(ctx, table, id); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, "end")
	p.openTo = nil
	return nil
}

func (p *streamProbe) RevertReplace(ctx context.Context, table, id string) error {
	if err := p.LocalDir.RevertReplace(ctx, table, id); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, "revert")
	p.openTo = nil
	return nil
}

// sampleWorkDirs counts the segment tarballs in the work directories as
// one is about to be uploaded: its own and every other one built and not
// yet uploaded.
func (p *streamProbe) sampleWorkDirs(uploading string) {
	var n int
	var bytes int64
	for _, dir := range p.workDirs {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".tar.gz") {
				return nil
			}
			if info, err := d.Info(); err == nil {
				n++
				bytes += info.Size()
			}
			return nil
		})
	}
	size := int64(0)
	if info, err := os.Stat(uploading); err == nil {
		size = info.Size()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.peakTars, p.peakBytes = max(p.peakTars, n), max(p.peakBytes, bytes)
	p.maxTarBytes = max(p.maxTarBytes, size)
}

// count returns how many events start with prefix.
func (p *streamProbe) count(prefix string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, e := range p.events {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}

// assertStreamed checks the order of a streamed replacement: the
// replacement opens (or was resumed: started false) before the first
// upload, and ends after the last.
func (p *streamProbe) assertStreamed(t *testing.T, started bool, uploads int) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	want := 0
	if started {
		if len(p.events) == 0 || p.events[0] != "start" {
			t.Fatalf("I9: the replacement must open before the first upload: %v", p.events)
		}
		want = 1
	}
	if len(p.events) != want+uploads+1 || p.events[len(p.events)-1] != "end" {
		t.Fatalf("I9: want %d start, %d uploads, then one end: %v", want, uploads, p.events)
	}
}

// sinkTarballs lists the segment tarballs in the sink's table directory.
func sinkTarballs(t *testing.T, root string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(root, "events", "*.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range matches {
		out = append(out, strings.TrimSuffix(filepath.Base(m), ".tar.gz"))
	}
	slices.Sort(out)
	return out
}

// assertNoOrphanTarballs: the sink holds a tarball for exactly the served
// segments (no upload of a reverted or abandoned replacement is left).
func assertNoOrphanTarballs(t *testing.T, up pinot.Uploader, root string) {
	t.Helper()
	served, err := up.ListSegments(context.Background(), "events")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(served)
	if got := sinkTarballs(t, root); !slices.Equal(got, served) {
		t.Fatalf("sink holds tarballs %v, serves %v", got, served)
	}
}

// streamHarness is the harness with the sink behind a streamProbe.
func streamHarness(t *testing.T) (*harness, *streamProbe, string) {
	t.Helper()
	h := newHarness(t, nil)
	root, work := t.TempDir(), t.TempDir()
	probe := newStreamProbe(t, root, work)
	h.up = &flakyUploader{LocalDir: probe.LocalDir}
	h.w = watcher.New(watcher.Deps{Store: h.store, Loader: loader{h.lake}, Builder: h.builder, Uploader: probe},
		watcher.Options{Owner: "test", LeaseTTL: time.Minute, BuildParallelism: 2, WorkDir: work})
	return h, probe, root
}

// overwriteWithAppends replaces the table's files with one file of n rows
// plus more appended files: a replacement of several units.
func overwriteWithAppends(l *lake, n, more int) {
	l.overwrite(n)
	for range more {
		l.appendRows(n)
	}
}

// I9: an overwrite opens its replacement before the first upload, uploads
// each unit as it is built (hidden: Pinot keeps serving the old rows),
// ends it after the last, and keeps at most BuildParallelism units'
// tarballs on local disk.
func TestRun_StreamedReplaceUploadsIntoOpenLineage(t *testing.T) {
	h, probe, root := streamHarness(t)
	for range 6 {
		h.lake.appendRows(4)
	}
	h.sync(t)
	probe.events = nil
	overwriteWithAppends(h.lake, 3, 5)
	var seen [][2]int
	run, err := h.w.RunOnce(context.Background(), "events", "test", func(done, total int) {
		seen = append(seen, [2]int{done, total})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 7 || seen[0] != [2]int{0, 6} || seen[6] != [2]int{6, 6} {
		t.Fatalf("progress %v, want files done 0 to 6 of 6, one step per unit", seen)
	}
	if run.SegmentsDeleted != 6 || run.SegmentsGenerated != 6 {
		t.Fatalf("overwrite must replace 6 segments by 6: %+v", run)
	}
	probe.assertStreamed(t, true, 6)
	if probe.peakTars > 2 {
		t.Fatalf("work directory held %d tarballs at once, want at most BuildParallelism (2)", probe.peakTars)
	}
	h.assertConsistent(t)
	assertNoOrphanTarballs(t, h.up, root)
}

// I9, I2: a run that dies with its replacement open (the sink fails after
// three uploads) leaves Pinot serving exactly the old segments; the next
// run resumes that same replacement (no new start, no revert), ends it
// and leaves no segment of it behind.
func TestRun_StreamedReplaceResumedAfterDeath(t *testing.T) {
	h, probe, root := streamHarness(t)
	for range 6 {
		h.lake.appendRows(4)
	}
	h.sync(t)
	before, _ := h.up.ListSegments(context.Background(), "events")
	overwriteWithAppends(h.lake, 3, 5)
	probe.events, probe.failAfter, probe.uploads = nil, 3, 0
	if _, err := h.w.RunOnce(context.Background(), "events", "test", nil); err == nil {
		t.Fatal("want the run to fail when the sink goes away")
	}
	served, _ := h.up.ListSegments(context.Background(), "events")
	if strings.Join(served, ",") != strings.Join(before, ",") {
		t.Fatalf("I9: a dead streamed run left Pinot serving %v, want the old %v", served, before)
	}
	lin, err := h.up.SegmentLineage(context.Background(), "events")
	if err != nil || len(lin.Replacements) != 1 {
		t.Fatalf("want the dead run's replacement left open: %+v %v", lin, err)
	}
	probe.events, probe.failAfter = nil, 0
	h.sync(t)
	if probe.count("start") != 0 || probe.count("revert") != 0 {
		t.Fatalf("I9: the next run must resume the open replacement, not start or revert one: %v", probe.events)
	}
	probe.assertStreamed(t, false, 6)
	h.assertConsistent(t)
	assertNoOrphanTarballs(t, h.up, root)
	if lin, _ := h.up.SegmentLineage(context.Background(), "events"); len(lin.Replacements) != 0 || len(lin.Open) != 0 {
		t.Fatalf("replacement still open after the resumed run: %+v", lin)
	}
}

// twoSegments gives two segments for the unit of one file, more than its
// record count allows (a file whose manifest undercounts its rows).
type twoSegments struct {
	inner *fakeBuilder
	file  string // base name
}

func (b twoSegments) Build(ctx context.Context, req watcher.BuildRequest) (watcher.BuildResult, error) {
	res, err := b.inner.Build(ctx, req)
	if err != nil || len(req.Unit.Files) != 1 || filepath.Base(req.Unit.Files[0].Path) != b.file {
		return res, err
	}
	name := req.SegmentName(1)
	p := filepath.Join(req.OutDir, name+".tar.gz")
	if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
		return watcher.BuildResult{}, err
	}
	res.Segments = append(res.Segments, pinot.Segment{Name: name, TarPath: p})
	return res, nil
}

// I9: a unit that gives names its open replacement does not hold uploads
// none of them (they would be served at once, beside the old rows); the
// run reverts the replacement and builds whole under the next name
// generation, and ends exact.
func TestRun_StreamedReplaceFallsBackOnUnplannedSegments(t *testing.T) {
	h, probe, root := streamHarness(t)
	for range 3 {
		h.lake.appendRows(4)
	}
	h.sync(t)
	overwriteWithAppends(h.lake, 3, 2)
	files := liveFiles(t, h.lake)
	odd := filepath.Base(files[0])
	h.w = watcher.New(watcher.Deps{Store: h.store, Loader: loader{h.lake}, Builder: twoSegments{inner: h.builder, file: odd},
		Uploader: probe}, watcher.Options{Owner: "test", LeaseTTL: time.Minute, BuildParallelism: 2, WorkDir: t.TempDir()})
	probe.events = nil
	run := h.sync(t)
	if probe.count("revert") != 1 {
		t.Fatalf("want the streamed replacement reverted once: %v", probe.events)
	}
	cp := h.assertConsistent(t)
	if fs := cp.Files[files[0]]; len(fs.Segments) != 2 || !strings.Contains(fs.Segments[0], "_g1_") {
		t.Fatalf("the odd unit's segments %v, want two of the next name generation", fs.Segments)
	}
	if run.SegmentsGenerated != 4 {
		t.Fatalf("segments generated %d, want 4 (the whole build only)", run.SegmentsGenerated)
	}
	assertNoOrphanTarballs(t, h.up, root)
}

// W1, I9: with a work queue, the units of an overwrite are built by every
// replica's builders and uploaded into the one open replacement.
func TestRun_StreamedReplaceUsesEveryReplica(t *testing.T) {
	h := newHarness(t, map[string]string{watcher.KeySchedulePaused: "* * * * * ?"})
	mem := h.store.(*checkpoint.Memory)
	root := t.TempDir()
	var work []string
	for range 3 {
		work = append(work, t.TempDir())
	}
	probe := newStreamProbe(t, root, work...)
	h.up = &flakyUploader{LocalDir: probe.LocalDir}
	var replicas []*watcher.Watcher
	for i, name := range []string{"replica-a", "replica-b", "replica-c"} {
		w := watcher.New(watcher.Deps{Store: mem, Loader: loader{h.lake},
			Builder: slowBuilder{inner: h.builder, delay: 40 * time.Millisecond}, Uploader: probe, Work: mem},
			watcher.Options{Owner: name, WorkDir: work[i], LeaseTTL: time.Minute, BuildParallelism: 1,
				ClaimTimeout: 5 * time.Second, RefreshInterval: time.Hour})
		if err := w.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close(context.Background()) })
		replicas = append(replicas, w)
	}
	for range 4 {
		h.lake.appendRows(2)
	}
	if _, err := replicas[0].RunOnce(context.Background(), "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	probe.events = nil
	overwriteWithAppends(h.lake, 2, 11)
	run, err := replicas[0].RunOnce(context.Background(), "events", "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, name := range []string{"replica-a", "replica-b", "replica-c"} {
		if run.Builders[name] == 0 {
			t.Fatalf("units built per replica = %v, want every replica to build", run.Builders)
		}
		total += run.Builders[name]
	}
	if total != 12 {
		t.Fatalf("units built per replica = %v, want 12 in all", run.Builders)
	}
	probe.assertStreamed(t, true, 12)
	if probe.peakTars > 3 {
		t.Fatalf("work directories held %d tarballs at once, want at most one per replica's builder (3)", probe.peakTars)
	}
	h.assertConsistent(t)
	assertNoOrphanTarballs(t, h.up, root)
}

// I9, I2: when the table moved on after a run died with its replacement
// open, the next run's swap is another one: it reverts the dead run's
// replacement (never starts over it, which would let Pinot hide names the
// two share), streams its own under the next name generation, and leaves
// no segment of the dead run behind.
func TestRun_StreamedReplaceRevertsADeadRunsOtherSwap(t *testing.T) {
	h, probe, root := streamHarness(t)
	for range 4 {
		h.lake.appendRows(4)
	}
	h.sync(t)
	overwriteWithAppends(h.lake, 3, 3)
	probe.events, probe.failAfter, probe.uploads = nil, 2, 0
	if _, err := h.w.RunOnce(context.Background(), "events", "test", nil); err == nil {
		t.Fatal("want the run to fail when the sink goes away")
	}
	h.lake.appendRows(5) // the table moves on: the next run's swap differs
	probe.events, probe.failAfter = nil, 0
	h.sync(t)
	if probe.count("revert") != 1 || probe.count("start") != 1 {
		t.Fatalf("I9: want the dead run's replacement reverted and one replacement started: %v", probe.events)
	}
	probe.mu.Lock()
	first := slices.Index(probe.events, "revert")
	probe.mu.Unlock()
	if first != 0 {
		t.Fatalf("the dead run's replacement must be reverted before anything else: %v", probe.events)
	}
	cp := h.assertConsistent(t)
	g1 := 0
	for _, fs := range cp.Files {
		for _, s := range fs.Segments {
			if strings.Contains(s, "_g1_") {
				g1++
			}
		}
	}
	if g1 == 0 {
		t.Fatalf("no unit took the next name generation after the revert: %+v", cp.Files)
	}
	assertNoOrphanTarballs(t, h.up, root)
	if lin, _ := h.up.SegmentLineage(context.Background(), "events"); len(lin.Replacements) != 0 {
		t.Fatalf("replacements still open: %+v", lin.Replacements)
	}
}

// metaBuilder builds what a real builder's tarballs hold for the resume
// checks: per part of at most MaxRowsPerSegment rows, a tarball with
// v3/metadata.properties (total docs, the custom map naming the unit's
// files) and v3/creation.meta (a CRC).
type metaBuilder struct{}

func (metaBuilder) Build(_ context.Context, req watcher.BuildRequest) (watcher.BuildResult, error) {
	res := watcher.BuildResult{FileRows: map[string]int64{}}
	for _, f := range req.Unit.Files {
		res.FileRows[f.Path] = f.Rows
		res.Rows += f.Rows
	}
	custom := "custom.floe.sourceFile = " + req.Unit.Files[0].Path + "\n"
	if len(req.Unit.Files) > 1 {
		custom = fmt.Sprintf("custom.floe.sourceFiles = %d\ncustom.floe.unit = %s\n", len(req.Unit.Files), req.Unit.Key)
	}
	max := req.MaxRowsPerSegment
	if max <= 0 {
		max = res.Rows
	}
	for left, idx := res.Rows, 0; left > 0; idx++ {
		n := min(left, max)
		left -= n
		name := req.SegmentName(idx)
		props := fmt.Sprintf("segment.name = %s\nsegment.total.docs = %d\n%s", name, n, custom)
		p := filepath.Join(req.OutDir, name+".tar.gz")
		if err := writeSegmentTar(p, name, props); err != nil {
			return watcher.BuildResult{}, err
		}
		res.Segments = append(res.Segments, pinot.Segment{Name: name, TarPath: p})
	}
	return res, nil
}

// writeSegmentTar writes a tarball of one segment directory holding
// metadata.properties and creation.meta.
func writeSegmentTar(path, name, props string) error {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	meta := make([]byte, 24)
	binary.BigEndian.PutUint64(meta, uint64(adler32.Checksum([]byte(props))))
	for _, f := range []struct{ name, body string }{{"creation.meta", string(meta)}, {"metadata.properties", props}} {
		if err := tw.WriteHeader(&tar.Header{Name: name + "/v3/" + f.name, Typeflag: tar.TypeReg, Mode: 0o644,
			Size: int64(len(f.body))}); err != nil {
			return err
		}
		if _, err := tw.Write([]byte(f.body)); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// resumeHarness is streamHarness with segment tarballs the resume checks
// can read, and units of several segments.
func resumeHarness(t *testing.T) (*harness, *streamProbe, string) {
	t.Helper()
	h, probe, root := streamHarness(t)
	h.w = watcher.New(watcher.Deps{Store: h.store, Loader: loader{h.lake}, Builder: metaBuilder{}, Uploader: probe},
		watcher.Options{Owner: "test", LeaseTTL: time.Minute, BuildParallelism: 1, WorkDir: t.TempDir(), MaxRowsPerSegment: 2})
	return h, probe, root
}

// runLine returns the first line of msg in the stored run's log.
func runLine(t *testing.T, s checkpoint.Store, run checkpoint.Run, msg string) (checkpoint.RunLogLine, bool) {
	t.Helper()
	stored, err := s.GetRun(context.Background(), "events", run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range stored.Log {
		if l.Msg == msg {
			return l, true
		}
	}
	return checkpoint.RunLogLine{}, false
}

// I9, I2, C10: a run that resumes the replacement a dead run left open
// uploads only the units the dead run did not upload whole: a unit one of
// whose segments is missing, or whose uploaded segment does not hold the
// unit's rows, is built again; the table ends exact, no orphan left.
func TestRun_StreamedReplaceResumeSkipsUploadedUnits(t *testing.T) {
	h, probe, root := resumeHarness(t)
	for range 4 {
		h.lake.appendRows(4)
	}
	h.sync(t)
	overwriteWithAppends(h.lake, 3, 5) // 6 units of 2 segments each (3 rows: 2 + 1)
	probe.events, probe.failAfter, probe.uploads = nil, 7, 0
	if _, err := h.w.RunOnce(context.Background(), "events", "test", nil); err == nil {
		t.Fatal("want the run to fail when the sink goes away")
	}
	var uploaded []string
	for _, e := range probe.events {
		if name, ok := strings.CutPrefix(e, "upload "); ok {
			uploaded = append(uploaded, name)
		}
	}
	if len(uploaded) != 7 {
		t.Fatalf("the dead run uploaded %v, want 7 segments (3 units whole, one half)", uploaded)
	}
	// One whole unit's first segment is rewritten with another row count:
	// present under its name, but not the unit's rows.
	bad := uploaded[0]
	if err := writeSegmentTar(filepath.Join(root, "events", bad+".tar.gz"), bad,
		"segment.name = "+bad+"\nsegment.total.docs = 5\n"); err != nil {
		t.Fatal(err)
	}
	probe.events, probe.failAfter = nil, 0
	run := h.sync(t)
	line, ok := runLine(t, h.store, run, "resume open replacement")
	if !ok || line.Attrs["units"] != "6" || line.Attrs["reused"] != "2" {
		t.Fatalf("resume log %v, want 2 of 6 units reused (the half-uploaded and the altered one built again)", line.Attrs)
	}
	if probe.count("start") != 0 || probe.count("revert") != 0 {
		t.Fatalf("I9: the next run must resume the open replacement: %v", probe.events)
	}
	probe.assertStreamed(t, false, 8)
	if run.SegmentsGenerated != 8 {
		t.Fatalf("segments generated %d, want 8 (4 units of 2 built again)", run.SegmentsGenerated)
	}
	h.assertConsistent(t)
	assertNoOrphanTarballs(t, h.up, root)
}

// I9, I4: an appending run finds an open replacement a dead run left (not
// its swap: an append retires nothing) and reverts it, logged, before it
// uploads anything; Pinot removes its uploads and the append ends exact.
func TestRun_AppendRevertsAbandonedReplacement(t *testing.T) {
	h, probe, root := streamHarness(t)
	for range 3 {
		h.lake.appendRows(4)
	}
	h.sync(t)
	ctx := context.Background()
	served, _ := h.up.ListSegments(ctx, "events")
	id, err := probe.LocalDir.StartReplace(ctx, "events", served[:1], []string{"events_dead_0"})
	if err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(t.TempDir(), "events_dead_0.tar.gz")
	if err := writeSegmentTar(dead, "events_dead_0", "segment.total.docs = 3\n"); err != nil {
		t.Fatal(err)
	}
	if err := probe.LocalDir.Upload(ctx, "events", pinot.Segment{Name: "events_dead_0", TarPath: dead}); err != nil {
		t.Fatal(err)
	}
	h.lake.appendRows(5)
	probe.events = nil
	run := h.sync(t)
	if len(probe.events) != 2 || probe.events[0] != "revert" || !strings.HasPrefix(probe.events[1], "upload ") {
		t.Fatalf("want the abandoned replacement reverted, then the append's one upload: %v", probe.events)
	}
	if l, ok := runLine(t, h.store, run, "revert open replacement of a dead run"); !ok || l.Attrs["replacement"] != id {
		t.Fatalf("the revert of %s is not in the run's log: %+v", id, l)
	}
	if lin, _ := h.up.SegmentLineage(ctx, "events"); len(lin.Replacements) != 0 || !lin.Hidden["events_dead_0"] {
		t.Fatalf("the abandoned replacement must be reverted (its name hidden): %+v", lin)
	}
	h.assertConsistent(t)
	assertNoOrphanTarballs(t, h.up, root)
}

// takenOver is a store whose lease renewals are refused as fenced once
// taken is set: another replica took the table's lease.
type takenOver struct {
	checkpoint.Store
	taken *atomic.Bool
}

func (s takenOver) RenewLease(ctx context.Context, l checkpoint.Lease, ttl time.Duration) (checkpoint.Lease, error) {
	if s.taken.Load() {
		return checkpoint.Lease{}, fmt.Errorf("renew lease of %s: %w", l.Table, checkpoint.ErrFenced)
	}
	return s.Store.RenewLease(ctx, l, ttl)
}

// takeOverOnLineage sets taken as the run reads Pinot's lineage: after the
// run planned, before it touches Pinot.
type takeOverOnLineage struct {
	*streamProbe
	taken *atomic.Bool
}

func (u takeOverOnLineage) SegmentLineage(ctx context.Context, table string) (pinot.Lineage, error) {
	u.taken.Store(true)
	return u.streamProbe.SegmentLineage(ctx, table)
}

// I4: an appending run that lost its lease before it reverts an abandoned
// replacement reverts nothing and uploads nothing (the revert passes the
// lease guard); the lease holder's next run reverts it.
func TestRun_AppendWithoutLeaseLeavesAbandonedReplacement(t *testing.T) {
	h, probe, root := streamHarness(t)
	for range 2 {
		h.lake.appendRows(4)
	}
	h.sync(t)
	ctx := context.Background()
	served, _ := h.up.ListSegments(ctx, "events")
	if _, err := probe.LocalDir.StartReplace(ctx, "events", served[:1], []string{"events_dead_0"}); err != nil {
		t.Fatal(err)
	}
	h.lake.appendRows(5)
	taken := &atomic.Bool{}
	fenced := watcher.New(watcher.Deps{Store: takenOver{Store: h.store, taken: taken}, Loader: loader{h.lake},
		Builder: h.builder, Uploader: takeOverOnLineage{streamProbe: probe, taken: taken}},
		watcher.Options{Owner: "test", LeaseTTL: time.Minute, BuildParallelism: 2, WorkDir: t.TempDir()})
	probe.events = nil
	if _, err := fenced.RunOnce(ctx, "events", "test", nil); err == nil || !strings.Contains(err.Error(), checkpoint.ErrFenced.Error()) {
		t.Fatalf("want the run that lost its lease stopped as fenced, got %v", err)
	}
	if len(probe.events) != 0 {
		t.Fatalf("I4: a run without its lease changed Pinot: %v", probe.events)
	}
	if lin, _ := h.up.SegmentLineage(ctx, "events"); len(lin.Replacements) != 1 {
		t.Fatalf("the abandoned replacement must stay open for the lease holder: %+v", lin.Replacements)
	}
	h.sync(t)
	if probe.count("revert") != 1 {
		t.Fatalf("the lease holder's run must revert the abandoned replacement: %v", probe.events)
	}
	h.assertConsistent(t)
	assertNoOrphanTarballs(t, h.up, root)
}

// blindSink cannot say which segments it holds.
type blindSink struct{ *streamProbe }

func (blindSink) UploadedSegments(context.Context, string, []string) (map[string]pinot.SegmentInfo, error) {
	return nil, errors.New("GET /segments/events/x/metadata: HTTP 404")
}

// I9: when Pinot cannot tell what the open replacement holds, the resumed
// run trusts nothing and builds every unit, and still ends exact.
func TestRun_StreamedReplaceResumeBuildsAllWhenSinkCannotTell(t *testing.T) {
	h, probe, root := resumeHarness(t)
	for range 2 {
		h.lake.appendRows(4)
	}
	h.sync(t)
	overwriteWithAppends(h.lake, 3, 2)
	probe.events, probe.failAfter, probe.uploads = nil, 4, 0
	if _, err := h.w.RunOnce(context.Background(), "events", "test", nil); err == nil {
		t.Fatal("want the run to fail when the sink goes away")
	}
	h.w = watcher.New(watcher.Deps{Store: h.store, Loader: loader{h.lake}, Builder: metaBuilder{}, Uploader: blindSink{probe}},
		watcher.Options{Owner: "test", LeaseTTL: time.Minute, BuildParallelism: 1, WorkDir: t.TempDir(), MaxRowsPerSegment: 2})
	probe.events, probe.failAfter = nil, 0
	run := h.sync(t)
	if line, ok := runLine(t, h.store, run, "resume open replacement"); !ok || line.Attrs["reused"] != "0" {
		t.Fatalf("resume log %v, want no unit reused", line.Attrs)
	}
	probe.assertStreamed(t, false, 6)
	h.assertConsistent(t)
	assertNoOrphanTarballs(t, h.up, root)
}
