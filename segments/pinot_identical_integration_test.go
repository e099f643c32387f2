//go:build integration

package segments_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/internal/pinottest"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

type identRow struct {
	ID    int32    `parquet:"id"`
	Big   int64    `parquet:"big"`
	D     float64  `parquet:"d"`
	Name  *string  `parquet:"name,optional"`
	Flag  bool     `parquet:"flag"`
	Tags  []int32  `parquet:"tags,list"`
	Words []string `parquet:"words,list"`
}

const identSchema = `{
  "schemaName": "ident",
  "dimensionFieldSpecs": [
    {"name": "id", "dataType": "INT"},
    {"name": "name", "dataType": "STRING"},
    {"name": "flag", "dataType": "BOOLEAN"},
    {"name": "tags", "dataType": "INT", "singleValueField": false},
    {"name": "words", "dataType": "STRING", "singleValueField": false}
  ],
  "metricFieldSpecs": [
    {"name": "big", "dataType": "LONG"},
    {"name": "d", "dataType": "DOUBLE"}
  ]
}`

const identTable = `{
  "tableName": "ident",
  "tableType": "OFFLINE",
  "segmentsConfig": {"replication": "1"},
  "tableIndexConfig": {
    "loadMode": "MMAP",
    "nullHandlingEnabled": true,
    "invertedIndexColumns": ["name", "tags"],
    "createInvertedIndexDuringSegmentGeneration": true
  },
  "tenants": {},
  "metadata": {}
}`

const identRawTable = `{
  "tableName": "ident",
  "tableType": "OFFLINE",
  "segmentsConfig": {"replication": "1"},
  "tableIndexConfig": {"loadMode": "MMAP", "nullHandlingEnabled": true,
    "noDictionaryColumns": ["id", "big", "d", "name", "tags", "words"]},
  "fieldConfigList": [
    {"name": "id", "encodingType": "RAW", "compressionCodec": "PASS_THROUGH"},
    {"name": "name", "encodingType": "RAW", "compressionCodec": "PASS_THROUGH"},
    {"name": "tags", "encodingType": "RAW", "compressionCodec": "PASS_THROUGH"},
    {"name": "words", "encodingType": "RAW", "compressionCodec": "PASS_THROUGH"}
  ],
  "tenants": {},
  "metadata": {}
}`

// TestByteIdenticalWithPinot builds the same rows with Pinot's own segment
// creation (SegmentIndexCreationDriverImpl, through the harness) and with
// floe, then compares every index buffer both segments have, byte for byte.
func TestByteIdenticalWithPinot(t *testing.T) {
	h := pinottest.New(t)
	dir := t.TempDir()
	const n = 20_000
	in := make([]identRow, n)
	rows := make([][]any, n)
	for r := range in {
		var name *string
		if r%9 != 4 {
			s := fmt.Sprintf("name-%d", (r*37)%500)
			name = &s
		}
		tags := make([]int32, r%5+1)
		words := make([]string, r%3+1)
		for i := range tags {
			tags[i] = int32((r + i*7) % 300)
		}
		for i := range words {
			words[i] = fmt.Sprintf("w%d", (r*i+3)%40)
		}
		in[r] = identRow{ID: int32(r % 1000), Big: int64(r%777) * 1_000_003, D: float64(r%250) / 4, Name: name,
			Flag: r%3 == 0, Tags: tags, Words: words}
		var nameV any
		if name != nil {
			nameV = *name
		}
		tv, wv := make([]any, len(tags)), make([]any, len(words))
		for i := range tags {
			tv[i] = tags[i]
		}
		for i := range words {
			wv[i] = words[i]
		}
		rows[r] = []any{in[r].ID, nameV, in[r].Flag, tv, wv, in[r].Big, in[r].D}
	}
	pq := filepath.Join(dir, "in.parquet")
	if err := parquet.WriteFile(pq, in); err != nil {
		t.Fatal(err)
	}
	var schema spec.Schema
	if err := schema.UnmarshalJSON([]byte(identSchema)); err != nil {
		t.Fatal(err)
	}
	schema.EnableColumnNullHandle = true
	for _, v := range []struct {
		name, table string
		cfg         segments.Config
	}{
		{"dictionary", identTable, segments.Config{Inverted: []string{"name", "tags"},
			Dictionary: []string{"id", "name", "flag", "tags", "words", "big", "d"}}},
		{"raw", identRawTable, segments.Config{NoDictionary: []string{"id", "big", "d", "name", "tags", "words"},
			Dictionary: []string{"flag"}, Compression: map[string]string{"id": "PASS_THROUGH", "name": "PASS_THROUGH",
				"tags": "PASS_THROUGH", "words": "PASS_THROUGH"}}},
	} {
		t.Run(v.name, func(t *testing.T) {
			created, err := h.Create(t.Context(), pq, []byte(identSchema), []byte(v.table), filepath.Join(dir, "pinot-"+v.name), "ident_0")
			if err != nil {
				t.Fatal(err)
			}
			cfg := v.cfg
			cfg.Schema, cfg.TableName, cfg.SegmentName, cfg.CreationTime = &schema, "ident", "ident_0", time.UnixMilli(1)
			start := time.Now()
			res, err := segments.Build(context.Background(), segments.NewMemorySource(&schema, rows, 4096), cfg, filepath.Join(dir, "floe-"+v.name))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("Pinot created %d rows in %d ms; floe built them in %d ms (in-memory source)", n, created.CreateMillis,
				time.Since(start).Milliseconds())
			compareIndexes(t, created.SegmentDir, res.Dir)
			comparePinotMetadata(t, created.SegmentDir, res.Dir)
		})
	}
}

func compareIndexes(t *testing.T, pinotDir, floeDir string) {
	pinotIdx := readIndexes(t, pinotDir)
	floeIdx := readIndexes(t, floeDir)
	var keys []string
	for k := range pinotIdx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	same := 0
	for _, k := range keys {
		f, ok := floeIdx[k]
		switch {
		case !ok:
			t.Errorf("%s: Pinot wrote it, floe did not", k)
		case !bytes.Equal(pinotIdx[k], f):
			t.Errorf("%s: %d bytes from Pinot, %d from floe, first difference at %d", k, len(pinotIdx[k]), len(f), firstDiff(pinotIdx[k], f))
		default:
			same++
		}
	}
	for k := range floeIdx {
		if _, ok := pinotIdx[k]; !ok {
			t.Errorf("%s: floe wrote it, Pinot did not", k)
		}
	}
	t.Logf("%d of %d index buffers byte-identical with Pinot's own segment", same, len(keys))
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// readIndexes maps "<col>.<indexId>" to the index bytes (marker stripped).
func readIndexes(t *testing.T, segDir string) map[string][]byte {
	t.Helper()
	im, err := os.ReadFile(filepath.Join(segDir, "v3", "index_map"))
	if err != nil {
		t.Fatal(err)
	}
	psf, err := os.ReadFile(filepath.Join(segDir, "v3", "columns.psf"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range indexEntries(t, im) {
		out[e.col+"."+e.id] = psf[e.off+8 : e.off+e.size]
	}
	return out
}

// comparePinotMetadata checks that every column.* key floe writes has the
// value Pinot writes.
func comparePinotMetadata(t *testing.T, pinotDir, floeDir string) {
	t.Helper()
	load := func(dir string) map[string]string {
		b, err := os.ReadFile(filepath.Join(dir, "v3", "metadata.properties"))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, " = "); ok {
				m[k] = v
			}
		}
		return m
	}
	p, f := load(pinotDir), load(floeDir)
	for k, fv := range f {
		if !strings.HasPrefix(k, "column.") {
			continue
		}
		if pv, ok := p[k]; ok && pv != fv {
			t.Errorf("metadata %s: Pinot %q, floe %q", k, pv, fv)
		}
	}
}
