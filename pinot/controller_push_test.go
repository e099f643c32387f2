package pinot_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/floehq/floe/pinot"
)

// memDeepStore is an in-memory DeepStore that asks the guard like a real
// one.
type memDeepStore struct {
	mu      sync.Mutex
	objects map[string][]byte
	puts    int
	deletes int
}

func (m *memDeepStore) URI(table, segment string) string {
	return "s3://deep/floe/" + table + "/" + segment + ".tar.gz"
}

func (m *memDeepStore) Put(ctx context.Context, table, segment, tarPath string) error {
	if err := pinot.CheckGuard(ctx, pinot.Write{Op: pinot.OpDeepStorePut, Table: table, Segments: []string{segment}}); err != nil {
		return err
	}
	b, err := os.ReadFile(tarPath)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.objects == nil {
		m.objects = map[string][]byte{}
	}
	m.objects[m.URI(table, segment)] = b
	m.puts++
	return nil
}

func (m *memDeepStore) Delete(ctx context.Context, table string, segments []string) error {
	w := pinot.Write{Op: pinot.OpDeepStoreDel, Table: table, Segments: segments, Destructive: true}
	if err := pinot.CheckGuard(ctx, w); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range segments {
		delete(m.objects, m.URI(table, s))
	}
	m.deletes++
	return nil
}

func (m *memDeepStore) keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.objects {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// segmentTarGz writes a tarball laid out like floe's segments:
// <name>/v3/{columns.psf,creation.meta,index_map,metadata.properties}.
func segmentTarGz(t *testing.T, name string) pinot.Segment {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(path, body string) {
		typ := byte(tar.TypeReg)
		if strings.HasSuffix(path, "/") {
			typ = tar.TypeDir
		}
		if err := tw.WriteHeader(&tar.Header{Name: path, Typeflag: typ, Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, body)
	}
	add(name+"/", "")
	add(name+"/v3/", "")
	add(name+"/v3/columns.psf", strings.Repeat("column bytes ", 1000))
	add(name+"/v3/creation.meta", "\x00\x00\x00\x00\x12\x34\x56\x78crtime..dataCrc.")
	add(name+"/v3/index_map", "id.forward_index.startOffset = 0\n")
	add(name+"/v3/metadata.properties", "segment.name = "+name+"\nsegment.table.name = t\n")
	tw.Close()
	gz.Close()
	p := filepath.Join(t.TempDir(), name+".tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return pinot.Segment{Name: name, TarPath: p}
}

// untar returns the entry names of a tar.gz, in order, and their contents.
func untar(t *testing.T, b []byte) ([]string, map[string]string) {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	files := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, files
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		body, _ := io.ReadAll(tr)
		files[h.Name] = string(body)
	}
}

// With a deep store, Upload puts the tarball there and sends the
// controller a metadata push: the segment's metadata.properties and
// creation.meta in one directory, and the tarball's URI.
func TestController_MetadataPush(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	c := newController(t, f, nil)
	ds := &memDeepStore{}
	c.DeepStore = ds
	seg := segmentTarGz(t, "orders_a_0")
	if err := c.Upload(ctx, "orders", seg); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, f, "upload orders_a_0 parts=1 table=orders type=METADATA uri=s3://deep/floe/orders/orders_a_0.tar.gz")
	tarball, _ := os.ReadFile(seg.TarPath)
	if got := ds.objects["s3://deep/floe/orders/orders_a_0.tar.gz"]; !bytes.Equal(got, tarball) {
		t.Fatalf("deep store holds %d bytes, want the %d-byte tarball", len(got), len(tarball))
	}
	names, files := untar(t, f.metaTar)
	if strings.Join(names, ",") != "orders_a_0/,orders_a_0/metadata.properties,orders_a_0/creation.meta" {
		t.Fatalf("metadata tarball entries %q: the first must be the directory", names)
	}
	_, src := untar(t, tarball)
	for _, n := range []string{"metadata.properties", "creation.meta"} {
		if files["orders_a_0/"+n] != src["orders_a_0/v3/"+n] {
			t.Fatalf("%s differs from the segment's", n)
		}
	}

	// Deletes and reverts remove the deep-store objects of what left Pinot.
	if err := c.DeleteSegments(ctx, "orders", []string{"orders_a_0"}); err != nil {
		t.Fatal(err)
	}
	if k := ds.keys(); len(k) != 0 {
		t.Fatalf("deep store still holds %q after delete", k)
	}
	id, err := c.StartReplace(ctx, "orders", []string{"x"}, []string{"orders_b_0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Upload(ctx, "orders", segmentTarGz(t, "orders_b_0")); err != nil {
		t.Fatal(err)
	}
	if err := c.RevertReplace(ctx, "orders", id); err != nil {
		t.Fatal(err)
	}
	if k := ds.keys(); len(k) != 0 {
		t.Fatalf("deep store still holds %q after revert", k)
	}
}

func TestController_MetadataPushNeedsMetadata(t *testing.T) {
	f := newFake()
	c := newController(t, f, nil)
	c.DeepStore = &memDeepStore{}
	err := c.Upload(context.Background(), "t", tarFile(t, "broken")) // not a tar.gz
	if err == nil || !strings.Contains(err.Error(), "broken") {
		t.Fatalf("want an error naming the segment, got %v", err)
	}
	if len(f.callLog()) != 0 {
		t.Fatalf("sent %q", f.callLog())
	}
}
