package read_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/read"
)

// buildSegment writes a small v3 segment: "name" is a dictionary STRING
// column with fixed-width entries of different lengths, "note" a raw
// STRING column.
func buildSegment(t *testing.T) string {
	t.Helper()
	schema := &spec.Schema{Name: "people", Fields: []spec.FieldSpec{
		{Name: "name", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true},
		{Name: "note", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true},
	}}
	rows := [][]any{{"lynda", "a"}, {"bo", "b"}, {"carl", "c"}, {"bo", "d"}}
	res, err := segments.Build(t.Context(), segments.NewMemorySource(schema, rows, 0), segments.Config{
		Schema: schema, TableName: "people", SegmentName: "people_0", NoDictionary: []string{"note"},
		CreationTime: time.Unix(1, 0)}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return res.Dir
}

// indexEntry returns where an index buffer sits in columns.psf (after
// its 8-byte marker) and its length.
func indexEntry(t *testing.T, dir, key string) (int, int) {
	t.Helper()
	im, err := os.ReadFile(filepath.Join(dir, "v3", "index_map"))
	if err != nil {
		t.Fatal(err)
	}
	var start, size int
	for _, line := range strings.Split(string(im), "\n") {
		k, v, _ := strings.Cut(line, " = ")
		switch k {
		case key + ".startOffset":
			start, _ = strconv.Atoi(v)
		case key + ".size":
			size, _ = strconv.Atoi(v)
		}
	}
	if size == 0 {
		t.Fatalf("no index_map entry %s", key)
	}
	return start + 8, size - 8
}

// editFile rewrites one file of the segment's v3 directory.
func editFile(t *testing.T, dir, name string, edit func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, "v3", name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOpen_oldPadding reads a segment padded the way Pinot before 0.3
// padded fixed-width STRING dictionaries ('%', declared in
// segment.padding.character): the padding is cut as Pinot's reader cuts
// it, at the first padding byte.
func TestOpen_oldPadding(t *testing.T) {
	for name, declared := range map[string][]byte{
		"declared":       []byte("segment.padding.character = %"),
		"legacy default": nil, // no key at all: Pinot's reader assumes '%'
	} {
		t.Run(name, func(t *testing.T) { testOldPadding(t, declared) })
	}
}

func testOldPadding(t *testing.T, declared []byte) {
	dir := buildSegment(t)
	editFile(t, dir, "metadata.properties", func(b []byte) []byte {
		line := []byte(`segment.padding.character = \u0000`)
		if !bytes.Contains(b, line) {
			t.Fatalf("metadata.properties has no %s", line)
		}
		if declared == nil {
			line = append(line, '\n')
		}
		return bytes.Replace(b, line, declared, 1)
	})
	start, n := indexEntry(t, dir, "name.dictionary")
	editFile(t, dir, "columns.psf", func(b []byte) []byte {
		for i := start; i < start+n; i++ {
			if b[i] == 0 {
				b[i] = '%'
			}
		}
		return b
	})
	seg, err := read.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := seg.ReadColumn("name")
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"lynda", "bo", "carl", "bo"}
	for i, v := range d.Values {
		if v != want[i] {
			t.Fatalf("doc %d: %q, want %q (padding left on)", i, v, want[i])
		}
	}
}

// TestWriteSummary_dataUnreadable: a segment whose data cannot be read
// still shows its metadata, and the error says what is wrong instead of
// "corrupt".
func TestWriteSummary_dataUnreadable(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		want   error
		text   string
	}{
		{"missing columns.psf", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "v3", "columns.psf")); err != nil {
				t.Fatal(err)
			}
		}, read.ErrMissingFile, "missing file columns.psf"},
		{"unsupported raw codec", func(t *testing.T, dir string) {
			// Var-byte V4 header: version, chunk size, compression id.
			start, _ := indexEntry(t, dir, "note.forward_index")
			editFile(t, dir, "columns.psf", func(b []byte) []byte {
				binary.BigEndian.PutUint32(b[start+8:], 8)
				return b
			})
		}, read.ErrUnsupported, "unsupported: chunk compression codec 8"},
		{"CLP-encoded forward index", func(t *testing.T, dir string) {
			start, _ := indexEntry(t, dir, "note.forward_index")
			editFile(t, dir, "columns.psf", func(b []byte) []byte {
				copy(b[start:], "CLP.v2")
				return b
			})
		}, read.ErrUnsupported, `unsupported: CLP-encoded forward index (Pinot's log compression, "CLP.v2")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := buildSegment(t)
			tt.break_(t, dir)
			seg, err := read.Open(dir)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			var out bytes.Buffer
			err = read.WriteSummary(&out, seg)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("error %v, want %v saying %q", err, tt.want, tt.text)
			}
			for _, s := range []string{"segment:   people_0", "rows:      4", "name", "note"} {
				if !strings.Contains(out.String(), s) {
					t.Errorf("summary lacks %q:\n%s", s, out.String())
				}
			}
		})
	}
}
