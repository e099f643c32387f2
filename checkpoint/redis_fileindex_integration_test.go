//go:build integration

package checkpoint_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
)

// indexFixture is a Redis store on a real redis-server with table "t"
// committed once under lease, and a raw client to play an older release.
type indexFixture struct {
	url   string
	s     *checkpoint.Redis
	raw   *redis.Client
	lease checkpoint.Lease
	files map[string]checkpoint.FileState
}

func newIndexFixture(t *testing.T) *indexFixture {
	t.Helper()
	ctx := t.Context()
	f := &indexFixture{url: testpeer.StartRedis(t)}
	var err error
	f.s, err = checkpoint.NewRedis(ctx, checkpoint.RedisOptions{URL: f.url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.s.Close() })
	opts, err := redis.ParseURL(f.url)
	if err != nil {
		t.Fatal(err)
	}
	f.raw = redis.NewClient(opts)
	t.Cleanup(func() { _ = f.raw.Close() })
	if err := f.s.CreateTable(ctx, checkpoint.Table{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	if f.lease, err = f.s.AcquireLease(ctx, "t", "a", time.Minute); err != nil {
		t.Fatal(err)
	}
	f.files = map[string]checkpoint.FileState{
		"a": {Segments: []string{"t_a_0"}, SizeBytes: 10, DataSeq: 1},
		"b": {Segments: []string{"t_g_0"}, SizeBytes: 20, Group: "t_g", DataSeq: 1},
		"c": {Segments: []string{"t_g_0"}, SizeBytes: 30, Group: "t_g"},
		"e": {Segments: []string{"t_e_0"}, SizeBytes: 7, Partition: "p=1", DeleteFingerprint: "fp", DataSeq: 1},
		"u": {Segments: []string{"t_u_0"}, Partition: "p=1", DataSeq: 1}, // no size: never small
	}
	if err := f.s.CommitCheckpoint(ctx, f.lease, checkpoint.Checkpoint{Table: "t", SnapshotID: 1, Files: maps.Clone(f.files)}); err != nil {
		t.Fatal(err)
	}
	f.agree(t, "after a full commit")
	return f
}

// delta commits d under lease and applies it to the fixture's model.
func (f *indexFixture) delta(t *testing.T, lease checkpoint.Lease, d checkpoint.CheckpointDelta) error {
	t.Helper()
	err := f.s.CommitCheckpointDelta(t.Context(), lease, d)
	if err == nil {
		for _, p := range d.Delete {
			delete(f.files, p)
		}
		maps.Copy(f.files, d.Set)
	}
	return err
}

// agree checks that the stored map is the model and that every read of
// the index answers as the map does (C14).
func (f *indexFixture) agree(t *testing.T, when string) {
	t.Helper()
	ctx := t.Context()
	whole, err := f.s.GetCheckpoint(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	sameAsJSON(t, when+": file map", whole.Files, f.files)
	cp, counts, ok, err := f.s.IndexedCheckpoint(ctx, "t")
	if err != nil || !ok {
		t.Fatalf("%s: IndexedCheckpoint in step %v, err %v; want in step", when, ok, err)
	}
	if counts != checkpoint.CountFiles(f.files) || cp.SnapshotID != whole.SnapshotID || cp.Files != nil {
		t.Fatalf("%s: indexed checkpoint %+v counts %+v; want snapshot %d, counts %+v", when, cp, counts,
			whole.SnapshotID, checkpoint.CountFiles(f.files))
	}
	oracle := checkpoint.MapFiles(f.files)
	paths := append(slices.Collect(maps.Keys(f.files)), "none")
	got, err := f.s.LookupFiles(ctx, "t", paths)
	if err != nil {
		t.Fatal(err)
	}
	sameAsJSON(t, when+": looked-up files", got, oracle.Lookup(paths))
	for _, below := range []int64{0, 8, 31, 51, 1 << 40} {
		units, err := f.s.SmallUnits(ctx, "t", []string{"p=1", "", "p=1", "p=9"}, below)
		if err != nil {
			t.Fatal(err)
		}
		sameAsJSON(t, when+": small units", units, oracle.SmallUnits([]string{"", "p=1"}, below))
	}
	names := []string{"t_a_0", "t_g_0", "t_e_0", "t_u_0", "t_d_0", "t_x_0", "t_a_0"}
	orphans, err := f.s.UnreferencedSegments(ctx, "t", names)
	if err != nil {
		t.Fatal(err)
	}
	sameAsJSON(t, when+": unreferenced segments", orphans, oracle.Unreferenced(names))
}

func (f *indexFixture) wantStale(t *testing.T, when string) {
	t.Helper()
	ctx := t.Context()
	if _, _, ok, err := f.s.IndexedCheckpoint(ctx, "t"); err != nil || ok {
		t.Fatalf("%s: IndexedCheckpoint in step %v, err %v; want out of step", when, ok, err)
	}
	if _, err := f.s.SmallUnits(ctx, "t", []string{""}, 100); !errors.Is(err, checkpoint.ErrIndexStale) {
		t.Fatalf("%s: SmallUnits: %v, want ErrIndexStale", when, err)
	}
	if _, err := f.s.UnreferencedSegments(ctx, "t", []string{"t_a_0"}); !errors.Is(err, checkpoint.ErrIndexStale) {
		t.Fatalf("%s: UnreferencedSegments: %v, want ErrIndexStale (not every name an orphan)", when, err)
	}
	got, err := f.s.LookupFiles(ctx, "t", []string{"b"}) // the map itself is current
	if err != nil || len(got) != 1 {
		t.Fatalf("%s: LookupFiles %v (%v), want b", when, got, err)
	}
}

// olderReleaseDelta commits as a release without indexes does: HDEL and
// HSET on the file map, a new header, the index untouched.
func (f *indexFixture) olderReleaseDelta(t *testing.T, del string, set string, fs checkpoint.FileState) {
	t.Helper()
	ctx := t.Context()
	var hdr map[string]any
	raw, err := f.raw.Get(ctx, "floe:v1:checkpoint:t").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &hdr); err != nil {
		t.Fatal(err)
	}
	hdr["snapshotId"] = hdr["snapshotId"].(float64) + 1
	hdr["committedAt"] = time.Now().UTC().Add(time.Second).Format(time.RFC3339Nano)
	hdr["fileCount"] = 0
	newHdr, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	val, err := json.Marshal(struct {
		V int `json:"v"`
		checkpoint.FileState
	}{2, fs})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.raw.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HDel(ctx, "floe:v1:files:t", del)
		p.HSet(ctx, "floe:v1:files:t", set, val)
		p.Set(ctx, "floe:v1:checkpoint:t", newHdr, 0)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	delete(f.files, del)
	f.files[set] = fs
}

// TestRedis_FileIndexRebuiltAfterOlderRelease: C14 — an index the
// checkpoint's own commit did not write (its stamp gone, or a commit by a
// release without indexes after it) is reported out of step, the index
// reads refuse, and the next delta commit rebuilds it from the stored map.
func TestRedis_FileIndexRebuiltAfterOlderRelease(t *testing.T) {
	cases := map[string]func(t *testing.T, f *indexFixture){
		"stamp deleted": func(t *testing.T, f *indexFixture) {
			if err := f.raw.Del(t.Context(), "floe:v1:fidx-stamp:t").Err(); err != nil {
				t.Fatal(err)
			}
		},
		"older release committed": func(t *testing.T, f *indexFixture) {
			f.olderReleaseDelta(t, "a", "o", checkpoint.FileState{Segments: []string{"t_o_0"}, SizeBytes: 3, DataSeq: 2})
		},
		"index keys gone": func(t *testing.T, f *indexFixture) {
			if err := f.raw.Del(t.Context(), "floe:v1:fidx-stamp:t", "floe:v1:fidx-segs:t", "floe:v1:fidx-units:t",
				"floe:v1:fidx-small:t").Err(); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, unstep := range cases {
		t.Run(name, func(t *testing.T) {
			f := newIndexFixture(t)
			unstep(t, f)
			f.wantStale(t, "out of step")
			d := checkpoint.CheckpointDelta{Header: checkpoint.Checkpoint{Table: "t", SnapshotID: 9}, Delete: []string{"b"},
				Set: map[string]checkpoint.FileState{"d": {Segments: []string{"t_d_0"}, SizeBytes: 5, DataSeq: 2}}}
			if err := f.delta(t, f.lease, d); err != nil {
				t.Fatal(err)
			}
			f.agree(t, "after the rebuilding delta")
			d = checkpoint.CheckpointDelta{Header: checkpoint.Checkpoint{Table: "t", SnapshotID: 10}, Delete: []string{"c", "d"},
				Set: map[string]checkpoint.FileState{"u": {Segments: []string{"t_u_0"}, SizeBytes: 9, Partition: "p=1"}}}
			if err := f.delta(t, f.lease, d); err != nil {
				t.Fatal(err)
			}
			f.agree(t, "after the next delta, which edits the rebuilt index")
		})
	}
}

// TestRedis_FileIndexFencedDelta: C1, C9, C14 — a delta commit under a
// lease that is no longer current changes neither the map nor the index,
// whether it would have edited the index or rebuilt it, and leaves no
// staging behind.
func TestRedis_FileIndexFencedDelta(t *testing.T) {
	for _, stale := range []bool{false, true} {
		name := map[bool]string{false: "edit", true: "rebuild"}[stale]
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			f := newIndexFixture(t)
			if err := f.s.ReleaseLease(ctx, f.lease); err != nil {
				t.Fatal(err)
			}
			if _, err := f.s.AcquireLease(ctx, "t", "b", time.Minute); err != nil {
				t.Fatal(err)
			}
			if stale {
				if err := f.raw.Del(ctx, "floe:v1:fidx-stamp:t").Err(); err != nil {
					t.Fatal(err)
				}
			}
			before := indexDump(t, f.raw)
			d := checkpoint.CheckpointDelta{Header: checkpoint.Checkpoint{Table: "t", SnapshotID: 2}, Delete: []string{"a", "b"},
				Set: map[string]checkpoint.FileState{"d": {Segments: []string{"t_d_0"}, SizeBytes: 5, DataSeq: 2},
					"c": {Segments: []string{"t_c_0"}, SizeBytes: 1}}}
			if err := f.delta(t, f.lease, d); !errors.Is(err, checkpoint.ErrFenced) {
				t.Fatalf("delta under a lease taken over: %v, want ErrFenced", err)
			}
			if after := indexDump(t, f.raw); after != before {
				t.Fatalf("a fenced delta changed the store:\nbefore %s\nafter  %s", before, after)
			}
			if stale {
				f.wantStale(t, "after the fenced delta")
			} else {
				f.agree(t, "after the fenced delta")
			}
			for _, k := range redisKeys(t, f.url) {
				if strings.Contains(k, ":staging:") {
					t.Fatalf("a fenced delta left %s behind", k)
				}
			}
		})
	}
}

// TestRedis_FileIndexDeletedWithTable: C7 — DeleteTable removes the
// table's index keys with its other keys.
func TestRedis_FileIndexDeletedWithTable(t *testing.T) {
	f := newIndexFixture(t)
	if err := f.s.DeleteTable(t.Context(), "t"); err != nil {
		t.Fatal(err)
	}
	for _, k := range redisKeys(t, f.url) {
		if strings.Contains(k, ":fidx-") {
			t.Fatalf("DeleteTable left %s behind", k)
		}
	}
}

// indexDump renders table t's file map, header and index keys.
func indexDump(t *testing.T, c *redis.Client) string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, k := range []string{"checkpoint", "fidx-stamp"} {
		v, err := c.Get(ctx, "floe:v1:"+k+":t").Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		out = append(out, k+"="+v)
	}
	for _, k := range []string{"files", "fidx-segs", "fidx-units"} {
		h, err := c.HGetAll(ctx, "floe:v1:"+k+":t").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range slices.Sorted(maps.Keys(h)) {
			out = append(out, k+"["+f+"]="+h[f])
		}
	}
	small, err := c.ZRange(ctx, "floe:v1:fidx-small:t", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, "small="+strings.Join(small, ","))
	return strings.Join(out, "\n")
}

// sameAsJSON compares got and want as JSON (nil and empty alike).
func sameAsJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	norm := func(b []byte) string {
		if s := string(b); s != "null" {
			return s
		}
		return "[]"
	}
	if gs, ws := norm(g), norm(w); gs != ws && !(gs == "{}" && ws == "[]") && !(gs == "[]" && ws == "{}") {
		t.Fatalf("%s:\n got %s\nwant %s", what, gs, ws)
	}
}

// TestRedis_FileIndexLargeDeltas: C9, C14 — deltas of more entries than
// one staging chunk: one that edits the index (under half of the map
// leaves, its old entries read after the stamp) and one that rebuilds it
// (at least half leaves), each answering as the map does after.
func TestRedis_FileIndexLargeDeltas(t *testing.T) {
	ctx := t.Context()
	f := newIndexFixture(t)
	for i := range 3000 {
		f.files[fmt.Sprintf("big/%04d", i)] = checkpoint.FileState{Segments: []string{fmt.Sprintf("t_big%d_0", i%700)},
			SizeBytes: int64(i%5) * 10, Group: fmt.Sprintf("t_bg%d", i%50), Partition: []string{"", "p=1"}[i%2], DataSeq: 1}
	}
	if err := f.s.CommitCheckpoint(ctx, f.lease, checkpoint.Checkpoint{Table: "t", SnapshotID: 2, Files: maps.Clone(f.files)}); err != nil {
		t.Fatal(err)
	}
	f.agree(t, "after a full commit of 3,005 files")
	edit := checkpoint.CheckpointDelta{Header: checkpoint.Checkpoint{Table: "t", SnapshotID: 3},
		Set: map[string]checkpoint.FileState{}}
	for i := range 1200 {
		edit.Delete = append(edit.Delete, fmt.Sprintf("big/%04d", 3*i))
	}
	for i := range 1100 {
		edit.Set[fmt.Sprintf("new/%04d", i)] = checkpoint.FileState{Segments: []string{fmt.Sprintf("t_new%d_0", i)},
			SizeBytes: 3, Group: fmt.Sprintf("t_ng%d", i%7), Partition: "p=1", DataSeq: 3}
	}
	if err := f.delta(t, f.lease, edit); err != nil {
		t.Fatal(err)
	}
	f.agree(t, "after a delta of 2,300 entries")
	rebuild := checkpoint.CheckpointDelta{Header: checkpoint.Checkpoint{Table: "t", SnapshotID: 4}}
	for p := range f.files {
		if strings.HasPrefix(p, "big/") || strings.HasPrefix(p, "new/0") {
			rebuild.Delete = append(rebuild.Delete, p)
		}
	}
	if err := f.delta(t, f.lease, rebuild); err != nil {
		t.Fatal(err)
	}
	f.agree(t, "after a delta that takes most of the map out")
}
