package pinottest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ErrInvalid means Pinot's validation rejected a schema or table config.
var ErrInvalid = errors.New("pinot validation failed")

// ReadSegments loads every segment (directory or .tar.gz) with Pinot in one
// JVM and returns what Pinot read, in the order given. Any load failure or
// index inconsistency fails the test, with the JVM's log.
func (h *Harness) ReadSegments(t testing.TB, paths []string) []SegmentDump {
	t.Helper()
	dumps, err := h.Read(t.Context(), paths)
	if err != nil {
		t.Fatalf("pinottest: %v", err)
	}
	return dumps
}

// Read is ReadSegments without a test: it returns the dumps and, when Pinot
// failed to load a segment or found inconsistent indexes, an ErrSegment
// error naming each segment and problem (the dumps are still returned).
func (h *Harness) Read(ctx context.Context, paths []string) ([]SegmentDump, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	var dumps []SegmentDump
	res, err := h.stream(ctx, func(r io.Reader) error {
		var err error
		dumps, err = parseDumps(r, len(paths))
		return err
	}, append([]string{"read"}, paths...)...)
	if err != nil {
		return nil, fmt.Errorf("read segments: %w", err)
	}
	var problems []string
	for _, d := range dumps {
		for _, e := range d.Errors {
			problems = append(problems, d.Path+": "+e)
		}
	}
	if len(problems) > 0 || res.exit != 0 {
		return dumps, fmt.Errorf("%w:\n  %s\n%s", ErrSegment, strings.Join(problems, "\n  "), tail(res.stderr))
	}
	return dumps, nil
}

// CreateResult is what "create" reports.
type CreateResult struct {
	SegmentDir   string `json:"segmentDir"`
	SegmentName  string `json:"segmentName"`
	Rows         int    `json:"rows"`
	CreateMillis int64  `json:"createMillis"`
}

// CreateSegment builds a v3 segment from a Parquet file with Pinot's own
// segment creation and returns the segment directory (under outDir).
// schemaJSON and tableConfigJSON are Pinot JSON documents.
func (h *Harness) CreateSegment(t testing.TB, parquetPath string, schemaJSON, tableConfigJSON []byte,
	outDir string) string {
	t.Helper()
	res, err := h.Create(t.Context(), parquetPath, schemaJSON, tableConfigJSON, outDir, "")
	if err != nil {
		t.Fatalf("pinottest: %v", err)
	}
	return res.SegmentDir
}

// Create is CreateSegment without a test; name "" lets Pinot name the segment.
func (h *Harness) Create(ctx context.Context, parquetPath string, schemaJSON, tableConfigJSON []byte,
	outDir, name string) (CreateResult, error) {
	var out CreateResult
	tmp, err := os.MkdirTemp("", "floe-pinottest-create")
	if err != nil {
		return out, fmt.Errorf("create segment: %w", err)
	}
	defer os.RemoveAll(tmp)
	schemaPath, tablePath := filepath.Join(tmp, "schema.json"), filepath.Join(tmp, "table.json")
	if err := writeFiles(map[string][]byte{schemaPath: schemaJSON, tablePath: tableConfigJSON}); err != nil {
		return out, fmt.Errorf("create segment: %w", err)
	}
	args := []string{"create", "--parquet", parquetPath, "--schema", schemaPath, "--table-config", tablePath,
		"--out", outDir}
	if name != "" {
		args = append(args, "--name", name)
	}
	res, err := h.run(ctx, args...)
	if err == nil && res.exit != 0 {
		err = fmt.Errorf("%w: create exited 1\n%s", ErrHarness, tail(res.stderr))
	}
	if err != nil {
		return out, fmt.Errorf("create segment from %s: %w", parquetPath, err)
	}
	if err := json.Unmarshal(res.stdout, &out); err != nil {
		return out, fmt.Errorf("create segment from %s: decode %q: %w", parquetPath, res.stdout, err)
	}
	return out, nil
}

// ValidateSchema checks a Pinot schema JSON with Pinot's parser and
// SchemaUtils.validate. It returns nil, or an ErrInvalid error with Pinot's
// message; a harness failure fails the test.
func (h *Harness) ValidateSchema(t testing.TB, schemaJSON []byte) error {
	t.Helper()
	err := h.validate(t.Context(), "validate-schema", schemaJSON, nil)
	if err != nil && !errors.Is(err, ErrInvalid) {
		t.Fatalf("pinottest: %v", err)
	}
	return err
}

// ValidateTableConfig checks a table config JSON with Pinot's parser,
// TableConfigUtils.validate and SchemaUtils.validate against schemaJSON.
// Pinot 1.5 cannot validate a table config without its schema, so with a
// nil schemaJSON only parsing and the table name are checked.
func (h *Harness) ValidateTableConfig(t testing.TB, tableConfigJSON, schemaJSON []byte) error {
	t.Helper()
	err := h.validate(t.Context(), "validate-table-config", tableConfigJSON, schemaJSON)
	if err != nil && !errors.Is(err, ErrInvalid) {
		t.Fatalf("pinottest: %v", err)
	}
	return err
}

func (h *Harness) validate(ctx context.Context, cmd string, doc, schemaJSON []byte) error {
	tmp, err := os.MkdirTemp("", "floe-pinottest-validate")
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	defer os.RemoveAll(tmp)
	docPath, schemaPath := filepath.Join(tmp, "doc.json"), filepath.Join(tmp, "schema.json")
	files := map[string][]byte{docPath: doc}
	args := []string{cmd, docPath}
	if schemaJSON != nil {
		files[schemaPath] = schemaJSON
		args = append(args, "--schema", schemaPath)
	}
	if err := writeFiles(files); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	res, err := h.run(ctx, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	var out struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(res.stdout, &out); err != nil {
		return fmt.Errorf("%s: decode %q: %w", cmd, res.stdout, err)
	}
	if !out.OK {
		return fmt.Errorf("%w: %s", ErrInvalid, out.Error)
	}
	return nil
}

// Tar packs segmentDir into outTarGz with Pinot's TarCompressionUtils.
func (h *Harness) Tar(ctx context.Context, segmentDir, outTarGz string) error {
	res, err := h.run(ctx, "tar", segmentDir, outTarGz)
	if err == nil && res.exit != 0 {
		err = fmt.Errorf("%w: tar exited 1\n%s", ErrHarness, tail(res.stderr))
	}
	if err != nil {
		return fmt.Errorf("tar segment %s: %w", segmentDir, err)
	}
	return nil
}

func writeFiles(files map[string][]byte) error {
	for p, b := range files {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}
