package pinot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// LocalDir is an Uploader that keeps each table in <root>/<table>/ with
// the semantics of a Pinot cluster, so that tests and the demo exercise
// the same protocol:
//
//	segments.json        the served segments (a sorted JSON array), swapped by rename
//	lineage.json         replacements: open ones, and the last finished ones (so that a
//	                     repeated end or revert is answered like Pinot answers it)
//	<segment>.tar.gz     tarballs of served segments and of open replacements' To lists
//	schema.json, tableConfig.json
//	.lock                flock(2) held around every read-modify-write
//
// Several processes may share one root (replicas of floe serve on one
// sink): every change happens under the table's lock, and files are
// written under unique temporary names, then renamed. An end is logged in
// lineage.json (state ENDING) before the manifest changes, and rolled
// forward by the next call that takes the lock if the process died
// half-way; so a crash leaves a replacement open or ended, never both.
type LocalDir struct {
	root string
}

var _ Uploader = (*LocalDir)(nil)

// NewLocalDir returns an Uploader writing under root.
func NewLocalDir(root string) *LocalDir { return &LocalDir{root: root} }

const (
	manifestName = "segments.json"
	lineageName  = "lineage.json"
	lockName     = ".lock"
)

func (d *LocalDir) tableDir(table string) string { return filepath.Join(d.root, table) }

func (d *LocalDir) tarball(table, segment string) string {
	return filepath.Join(d.tableDir(table), segment+".tar.gz")
}

// tableTx is the state of one table read under its lock.
type tableTx struct {
	d       *LocalDir
	table   string
	served  []string
	lineage *localLineage
}

// withTable runs fn under the table's lock with its manifest and lineage
// loaded and any interrupted end rolled forward. ErrTableMissing when the
// table directory does not exist.
func (d *LocalDir) withTable(table string, fn func(tx *tableTx) error) error {
	if _, err := os.Stat(d.tableDir(table)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("table %s: %w", table, ErrTableMissing)
		}
		return fmt.Errorf("table %s: %w", table, err)
	}
	lock, err := lockFile(filepath.Join(d.tableDir(table), lockName))
	if err != nil {
		return err
	}
	defer lock.unlock()
	tx := &tableTx{d: d, table: table}
	if tx.served, err = d.readManifest(table); err != nil {
		return err
	}
	if tx.lineage, err = d.readLineage(table); err != nil {
		return err
	}
	if err := tx.rollForward(); err != nil {
		return err
	}
	return fn(tx)
}

// EnsureTable writes schema.json, and tableConfig.json when the table has
// none yet (like a controller, it does not change an existing table).
func (d *LocalDir) EnsureTable(ctx context.Context, schema *Schema, table *TableConfig) error {
	if err := CheckGuard(ctx, Write{Op: OpUpdateSchema, Table: table.TableName, Destructive: true}); err != nil {
		return err
	}
	dir := d.tableDir(table.TableName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create table dir %s: %w", dir, err)
	}
	return d.withTable(table.TableName, func(tx *tableTx) error {
		if err := writeJSONFile(filepath.Join(dir, "schema.json"), schema); err != nil {
			return err
		}
		cfgPath := filepath.Join(dir, "tableConfig.json")
		if _, err := os.Stat(cfgPath); err == nil {
			return nil
		}
		if err := CheckGuard(ctx, Write{Op: OpCreateTable, Table: table.TableName}); err != nil {
			return err
		}
		return writeJSONFile(cfgPath, table)
	})
}

// ListSegments reads the table's manifest.
func (d *LocalDir) ListSegments(_ context.Context, table string) ([]string, error) {
	var names []string
	err := d.withTable(table, func(tx *tableTx) error {
		names = slices.Clone(tx.served)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list segments of %s: %w", table, err)
	}
	return names, nil
}

// Upload copies the tarball in under a temporary name, then, under the
// lock, renames it into place and serves it unless an open replacement
// lists it in its To list.
func (d *LocalDir) Upload(ctx context.Context, table string, seg Segment) error {
	if _, err := os.Stat(d.tableDir(table)); err != nil {
		return fmt.Errorf("upload segment %s: table %s: %w", seg.Name, table, ErrTableMissing)
	}
	tmp, err := copyToTemp(seg.TarPath, d.tarball(table, seg.Name))
	if err != nil {
		return fmt.Errorf("upload segment %s of %s: %w", seg.Name, table, err)
	}
	defer os.Remove(tmp) // gone after the rename; removes a leftover on error
	return d.withTable(table, func(tx *tableTx) error {
		if id := tx.lineage.reverted(seg.Name); id != "" {
			return fmt.Errorf("upload segment %s of %s (reverted replacement %s): %w", seg.Name, table, id, ErrSegmentNameReverted)
		}
		if err := CheckGuard(ctx, Write{Op: OpUpload, Table: table, Segments: []string{seg.Name}}); err != nil {
			return err
		}
		if err := os.Rename(tmp, d.tarball(table, seg.Name)); err != nil {
			return fmt.Errorf("upload segment %s of %s: %w", seg.Name, table, err)
		}
		if tx.lineage.openTo()[seg.Name] || slices.Contains(tx.served, seg.Name) {
			return nil
		}
		return tx.saveServed(append(slices.Clone(tx.served), seg.Name))
	})
}

// DeleteSegments unserves names and removes their tarballs.
func (d *LocalDir) DeleteSegments(ctx context.Context, table string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	return d.withTable(table, func(tx *tableTx) error {
		w := Write{Op: OpDeleteSegments, Table: table, Segments: names, Destructive: true}
		if err := CheckGuard(ctx, w); err != nil {
			return err
		}
		next := slices.DeleteFunc(slices.Clone(tx.served), func(s string) bool { return slices.Contains(names, s) })
		if err := tx.saveServed(next); err != nil {
			return err
		}
		return tx.removeUnreferenced(names)
	})
}

// saveServed writes the manifest (sorted, no duplicates).
func (tx *tableTx) saveServed(names []string) error {
	slices.Sort(names)
	names = slices.Compact(names)
	if names == nil {
		names = []string{}
	}
	if err := writeJSONFile(filepath.Join(tx.d.tableDir(tx.table), manifestName), names); err != nil {
		return err
	}
	tx.served = names
	return nil
}

// removeUnreferenced removes the tarballs of names that are neither served
// nor in an open replacement's To list.
func (tx *tableTx) removeUnreferenced(names []string) error {
	open := tx.lineage.openTo()
	for _, name := range names {
		if slices.Contains(tx.served, name) || open[name] {
			continue
		}
		if err := os.Remove(tx.d.tarball(tx.table, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove segment %s of %s: %w", name, tx.table, err)
		}
	}
	return nil
}

func (d *LocalDir) readManifest(table string) ([]string, error) {
	var names []string
	if err := readJSONFile(filepath.Join(d.tableDir(table), manifestName), &names); err != nil {
		return nil, fmt.Errorf("read manifest of %s: %w", table, err)
	}
	return names, nil
}

// readJSONFile decodes path into v; a missing file leaves v alone.
func readJSONFile(path string, v any) error {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// writeJSONFile writes v as indented JSON through a uniquely named temp
// file and a rename.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	tmp := tempName(path)
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// tempName returns a name beside path that no other writer uses.
func tempName(path string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return path + ".tmp-" + hex.EncodeToString(b[:])
}

// copyToTemp copies src to a unique temporary file beside dst and returns
// its name.
func copyToTemp(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	tmp := tempName(dst)
	out, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(tmp)
		return "", err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
