package pinot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// LocalDir is an Uploader that keeps each table's segment tarballs in
// <root>/<table>/. The list of live segments is the manifest file
// segments.json, swapped by rename, so a reader of the manifest sees the
// old set or the new set, never a mix (the same guarantee segment lineage
// gives on a cluster).
type LocalDir struct {
	root string
	mu   sync.Mutex
}

var _ Uploader = (*LocalDir)(nil)

// NewLocalDir returns an Uploader writing under root.
func NewLocalDir(root string) *LocalDir { return &LocalDir{root: root} }

const manifestName = "segments.json"

func (d *LocalDir) tableDir(table string) string { return filepath.Join(d.root, table) }

// EnsureTable writes schema.json and tableConfig.json for the table.
func (d *LocalDir) EnsureTable(_ context.Context, schema *Schema, table *TableConfig) error {
	dir := d.tableDir(schema.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create table dir %s: %w", dir, err)
	}
	if err := writeJSONFile(filepath.Join(dir, "schema.json"), schema); err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(dir, "tableConfig.json"), table)
}

// ListSegments reads the table's manifest.
func (d *LocalDir) ListSegments(_ context.Context, table string) ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.readManifest(table)
}

func (d *LocalDir) readManifest(table string) ([]string, error) {
	raw, err := os.ReadFile(filepath.Join(d.tableDir(table), manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		if _, statErr := os.Stat(d.tableDir(table)); statErr != nil {
			return nil, fmt.Errorf("list segments of %s: %w", table, ErrTableMissing)
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read manifest of %s: %w", table, err)
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, fmt.Errorf("read manifest of %s: %w", table, err)
	}
	return names, nil
}

// Replace copies the new tarballs in, swaps the manifest, then removes the
// tarballs of the replaced segments.
func (d *LocalDir) Replace(_ context.Context, table string, from []string, to []Segment) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	current, err := d.readManifest(table)
	if err != nil {
		return err
	}
	for _, s := range to {
		if err := copyFile(s.TarPath, filepath.Join(d.tableDir(table), s.Name+".tar.gz")); err != nil {
			return fmt.Errorf("store segment %s: %w", s.Name, err)
		}
	}
	next := make([]string, 0, len(current)+len(to))
	for _, name := range current {
		if !slices.Contains(from, name) {
			next = append(next, name)
		}
	}
	for _, s := range to {
		if !slices.Contains(next, s.Name) {
			next = append(next, s.Name)
		}
	}
	slices.Sort(next)
	if err := writeJSONFile(filepath.Join(d.tableDir(table), manifestName), next); err != nil {
		return err
	}
	for _, name := range from {
		if slices.Contains(next, name) {
			continue
		}
		if err := os.Remove(filepath.Join(d.tableDir(table), name+".tar.gz")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove replaced segment %s: %w", name, err)
		}
	}
	return nil
}

// writeJSONFile writes v as indented JSON through a temp file and rename.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
