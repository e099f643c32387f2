package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/internal/parquettest"
	"github.com/floehq/floe/segments"
)

type convertNested struct {
	City string `parquet:"city"`
	Zip  int32  `parquet:"zip"`
}

// convertRow is the row type of the round-trip fixture.
type convertRow struct {
	ID     int64          `parquet:"id"`
	Score  *float64       `parquet:"score,optional"`
	Name   *string        `parquet:"name,optional,dict"`
	TS     int64          `parquet:"ts,timestamp(millisecond)"`
	Tags   []int32        `parquet:"tags,list"`
	Flag   bool           `parquet:"flag"`
	Amount int64          `parquet:"amount,decimal(2:18)"`
	Blob   []byte         `parquet:"blob"`
	Addr   *convertNested `parquet:"addr,optional"`
}

func makeConvertRows(n int) []convertRow {
	rows := make([]convertRow, n)
	for i := range rows {
		r := convertRow{ID: int64(i)*1_000_003 - 5, TS: 1_700_000_000_000 + int64(i)*60_000, Flag: i%2 == 0,
			Amount: int64(i*137 - 900), Blob: []byte(fmt.Sprint("b", i%11))}
		for j := 0; j < i%3; j++ {
			r.Tags = append(r.Tags, int32(i+j))
		}
		if i%5 != 0 {
			s := float64(i) / 8
			r.Score = &s
			name := fmt.Sprint("name-", i%17)
			r.Name = &name
			r.Addr = &convertNested{City: fmt.Sprint("c", i%4), Zip: int32(i)}
		}
		rows[i] = r
	}
	return rows
}

func writeConvertFixture(t *testing.T, rows []convertRow) string {
	t.Helper()
	return parquettest.WriteFile(t, filepath.Join(t.TempDir(), "events.parquet"), rows, parquet.MaxRowsPerRowGroup(400))
}

// expectedJSON is what floe inspect --rows must print for a source row,
// built with encoding/json from the row itself.
func expectedJSON(r convertRow) map[string]any {
	m := map[string]any{
		"id": r.ID, "ts": r.TS, "flag": r.Flag, "blob": hex.EncodeToString(r.Blob),
		// Pinot strips a BIG_DECIMAL's trailing zeros.
		"amount": strconv.FormatFloat(float64(r.Amount)/100, 'f', -1, 64),
		"score":  nil, "name": nil, "addr": nil, "tags": nil,
	}
	if r.Score != nil {
		m["score"], m["name"] = *r.Score, *r.Name
		addr, _ := json.Marshal(map[string]any{"city": r.Addr.City, "zip": r.Addr.Zip})
		m["addr"] = string(addr)
	}
	if len(r.Tags) > 0 {
		var tags []any
		for _, x := range r.Tags {
			tags = append(tags, x)
		}
		m["tags"] = tags
	}
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func runCLI(t *testing.T, run func(context.Context, []string, *bytes.Buffer, *bytes.Buffer) error, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	return out.String() + errOut.String(), err
}

func convertCmd(ctx context.Context, args []string, out, errOut *bytes.Buffer) error {
	return cmdConvert(ctx, args, out, errOut)
}

func inspectCmd(ctx context.Context, args []string, out, errOut *bytes.Buffer) error {
	return cmdInspect(ctx, args, out, errOut)
}

func TestCmdConvert_roundTrip(t *testing.T) {
	rows := makeConvertRows(1000)
	input := writeConvertFixture(t, rows)
	for _, tc := range []struct {
		name  string
		extra []string
		seg   string
	}{
		{"directory", nil, "events_events"},
		{"tarball raw columns", []string{"--tar", "--no-dictionary", "id,name,blob,tags", "--inverted", "flag"}, "events_events.tar.gz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{input, "--table", "events", "-o", out, "--time-column", "ts"}, tc.extra...)
			if msg, err := runCLI(t, convertCmd, args...); err != nil {
				t.Fatalf("convert: %v\n%s", err, msg)
			}
			got, err := runCLI(t, inspectCmd, filepath.Join(out, tc.seg), "--rows")
			if err != nil {
				t.Fatalf("inspect: %v\n%s", err, got)
			}
			compareRows(t, got, rows)
			if summary, err := runCLI(t, inspectCmd, filepath.Join(out, tc.seg)); err != nil || !strings.Contains(summary, "rows:      1000") {
				t.Fatalf("inspect summary: %v\n%s", err, summary)
			}
		})
	}
}

func compareRows(t *testing.T, jsonLines string, rows []convertRow) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(jsonLines))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	i := 0
	for ; sc.Scan(); i++ {
		var got map[string]any
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, sc.Text())
		}
		if i >= len(rows) {
			t.Fatalf("more rows than the source's %d", len(rows))
		}
		want := expectedJSON(rows[i])
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("row %d:\n got %v\nwant %v", i, got, want)
		}
	}
	if i != len(rows) {
		t.Fatalf("inspect printed %d rows, want %d", i, len(rows))
	}
}

func TestCmdInspect_limit(t *testing.T) {
	input := writeConvertFixture(t, makeConvertRows(50))
	out := t.TempDir()
	if msg, err := runCLI(t, convertCmd, input, "--table", "events", "-o", out); err != nil {
		t.Fatalf("convert: %v\n%s", err, msg)
	}
	got, err := runCLI(t, inspectCmd, filepath.Join(out, "events_events"), "--rows", "--limit", "7")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "\n"); n != 7 {
		t.Fatalf("--limit 7 printed %d lines", n)
	}
}

func TestCmdConvert_failureLeavesNothing(t *testing.T) {
	input := writeConvertFixture(t, makeConvertRows(100))
	schema := filepath.Join(t.TempDir(), "schema.json")
	// "name" is a string column; a LONG target is an unsupported conversion.
	doc := `{"schemaName":"events","dimensionFieldSpecs":[{"name":"id","dataType":"LONG"},{"name":"name","dataType":"LONG"}]}`
	if err := os.WriteFile(schema, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(t.TempDir(), "corrupt.parquet")
	b, _ := os.ReadFile(input)
	for i := 4; i < len(b)/2; i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(corrupt, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, column string
		args               []string
		want               error
	}{
		{"type mismatch", input, "name", []string{"--schema", schema}, segments.ErrUnsupportedConversion},
		{"corrupt pages", corrupt, "id", []string{"--table", "events"}, segments.ErrCorruptSource},
		{"corrupt pages tar", corrupt, "id", []string{"--table", "events", "--tar"}, segments.ErrCorruptSource},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			msg, err := runCLI(t, convertCmd, append([]string{tt.file, "-o", out}, tt.args...)...)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v\n%s", err, tt.want, msg)
			}
			if !strings.Contains(err.Error(), tt.file) || !strings.Contains(err.Error(), "column "+tt.column) {
				t.Errorf("error %q does not name %s and column %s", err, tt.file, tt.column)
			}
			entries, _ := os.ReadDir(out)
			if len(entries) != 0 {
				t.Errorf("output directory holds %d entries after a failure: %v", len(entries), entries[0].Name())
			}
		})
	}
}

// oddNameRow has columns whose names Pinot rejects and one whose type floe
// does not read (unsigned 64-bit).
type oddNameRow struct {
	ID    int64  `parquet:"id"`
	Space string `parquet:"a b"`
	Colon int32  `parquet:"x:y"`
	Big   uint64 `parquet:"big"`
}

// TestCmdConvert_renameAndSkip: --rename gives a Parquet column the Pinot
// name it needs; inference skips what still cannot be mapped, with a
// warning naming the column, and converts the rest.
func TestCmdConvert_renameAndSkip(t *testing.T) {
	rows := make([]oddNameRow, 20)
	for i := range rows {
		rows[i] = oddNameRow{ID: int64(i), Space: fmt.Sprint("s", i), Colon: int32(i * 3), Big: uint64(i)}
	}
	input := parquettest.WriteFile(t, filepath.Join(t.TempDir(), "odd.parquet"), rows)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := cmdConvert(t.Context(), []string{input, "--table", "odd", "-o", out, "--rename", "a b=a_b"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("convert: %v\n%s", err, stderr.String())
	}
	for _, col := range []string{`"x:y"`, "column big"} {
		if !strings.Contains(stderr.String(), "warning: ") || !strings.Contains(stderr.String(), col) {
			t.Errorf("no warning naming %s:\n%s", col, stderr.String())
		}
	}
	got, err := runCLI(t, inspectCmd, filepath.Join(out, "odd_odd"), "--rows", "--limit", "2")
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"id\":0,\"a_b\":\"s0\"}\n{\"id\":1,\"a_b\":\"s1\"}\n"; got != want {
		t.Fatalf("rows:\n%s\nwant:\n%s", got, want)
	}
}

type allOddRow struct {
	Space string `parquet:"a b"`
	Colon int32  `parquet:"x:y"`
}

// TestCmdConvert_explainsWhatItCannotTake: a file none of whose columns
// can become a Pinot column fails naming each column and the way around
// it (not "Schema has no fields"); a list of decimals is skipped with a
// warning, not failing the file; a schema naming an impossible column says
// how to bind the Parquet column under a valid name.
func TestCmdConvert_explainsWhatItCannotTake(t *testing.T) {
	input := parquettest.WriteFile(t, filepath.Join(t.TempDir(), "allodd.parquet"), []allOddRow{{"s", 1}})
	var stdout, stderr bytes.Buffer
	err := cmdConvert(t.Context(), []string{input, "--table", "odd", "-o", t.TempDir()}, &stdout, &stderr)
	if err == nil {
		t.Fatal("convert of a file without a mappable column succeeded")
	}
	for _, s := range []string{"no column of the file can become a Pinot column", `"a b"`, `"x:y"`, "--rename"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %s", err, s)
		}
	}
	if strings.Contains(err.Error(), "has no fields") {
		t.Errorf("error %q still speaks of the segment config", err)
	}

	schemaPath := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schemaPath, []byte(`{"schemaName":"odd","dimensionFieldSpecs":[{"name":"a b","dataType":"STRING"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err = cmdConvert(t.Context(), []string{input, "--schema", schemaPath, "-o", t.TempDir()}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `column "a b"`) || !strings.Contains(err.Error(), "--rename") {
		t.Errorf("schema with an impossible column name: err = %v, want it named with a --rename hint", err)
	}
}
