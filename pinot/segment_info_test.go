package pinot_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/floehq/floe/pinot"
)

// metaTarGz writes a segment tarball whose v3/metadata.properties is props
// and whose creation.meta carries crc.
func metaTarGz(t *testing.T, name, props string, crc uint64) pinot.Segment {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	meta := make([]byte, 24)
	binary.BigEndian.PutUint64(meta, crc)
	for _, f := range []struct{ path, body string }{
		{name + "/v3/columns.psf", "column bytes"},
		{name + "/v3/creation.meta", string(meta)},
		{name + "/v3/metadata.properties", props},
	} {
		if err := tw.WriteHeader(&tar.Header{Name: f.path, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(f.body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name+".tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return pinot.Segment{Name: name, TarPath: p}
}

// The metadata of the segments a LocalDir holds, served or hidden in an
// open replacement's To list, comes from their tarballs (escapes undone);
// a name never uploaded, and a tarball that is no segment, are absent.
func TestLocalDir_UploadedSegments(t *testing.T) {
	ctx := context.Background()
	d, _ := newLocalDir(t)
	old := metaTarGz(t, "old", "segment.name = old\nsegment.total.docs = 7\n", 11)
	if err := d.Upload(ctx, "t", old); err != nil {
		t.Fatal(err)
	}
	id, err := d.StartReplace(ctx, "t", []string{"old"}, []string{"a", "b", "junk"})
	if err != nil {
		t.Fatal(err)
	}
	props := "segment.name = a\nsegment.total.docs = 40\n" +
		"custom.floe.sourceFile = s3\\://lake/x\\,y/Z\\u00FCrich \\uD83D\\uDE00.parquet\ncustom.floe.unit\\:k = v\n"
	if err := d.Upload(ctx, "t", metaTarGz(t, "a", props, 2018915346)); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(t.TempDir(), "junk.tar.gz")
	if err := os.WriteFile(junk, []byte("not a segment"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.Upload(ctx, "t", pinot.Segment{Name: "junk", TarPath: junk}); err != nil {
		t.Fatal(err)
	}
	got, err := d.UploadedSegments(ctx, "t", []string{"old", "a", "b", "junk", "never"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]pinot.SegmentInfo{
		"old": {Name: "old", TotalDocs: 7, CRC: "11", Custom: map[string]string{}},
		"a": {Name: "a", TotalDocs: 40, CRC: "2018915346", Custom: map[string]string{
			"floe.sourceFile": "s3://lake/x,y/Zürich 😀.parquet", "floe.unit:k": "v"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("uploaded segments\n got %+v\nwant %+v", got, want)
	}
	if err := d.RevertReplace(ctx, "t", id); err != nil {
		t.Fatal(err)
	}
	if got, err := d.UploadedSegments(ctx, "t", []string{"a"}); err != nil || len(got) != 0 {
		t.Fatalf("a reverted replacement's uploads are gone, got %v (%v)", got, err)
	}
	if got, err := d.UploadedSegments(ctx, "nope", []string{"a"}); err != nil || len(got) != 0 {
		t.Fatalf("a missing table holds nothing, got %v (%v)", got, err)
	}
}

// The controller's answer: only names its full segment list holds are read
// (one metadata GET each), their ZK metadata decoded.
func TestController_UploadedSegments(t *testing.T) {
	f := newFake()
	c := newController(t, f, nil)
	got, err := c.UploadedSegments(context.Background(), "t", []string{"s1", "s3"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]pinot.SegmentInfo{"s1": {Name: "s1", TotalDocs: 40, CRC: "2018915346",
		Custom: map[string]string{"floe.sourceFile": "s3://lake/s1.parquet"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("uploaded segments\n got %+v\nwant %+v", got, want)
	}
	wantCalls(t, f, "list", "metadata s1 type=OFFLINE")
	f.failNext("metadata", "400")
	if _, err := c.UploadedSegments(context.Background(), "t", []string{"s2"}); err == nil {
		t.Fatal("a refused metadata read must fail the call, not pass for a segment never uploaded")
	}
}
