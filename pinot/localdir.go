package pinot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/floehq/floe/internal/sleep"
	"github.com/floehq/floe/pinot/spec"
)

// LocalDir is an Uploader that keeps each table in <root>/<table>/ with
// the semantics of a Pinot cluster, so that tests and the demo exercise
// the same protocol:
//
//	state/<seq>.json     the table's state, one immutable file per version: the served
//	                     segments (sorted) and the segment lineage (open replacements,
//	                     and the last finished ones, so that a repeated end or revert is
//	                     answered like Pinot answers it); seq is zero-padded to 20
//	                     digits and the highest is current; the last 16 are kept
//	<segment>.tar.gz     tarballs of served segments and of open replacements' To lists
//	schema.json, tableConfig.json
//
// Several processes may share one root (replicas of floe serve on one
// sink), and nothing is ever locked: a process paused anywhere (SIGSTOP)
// blocks no other, as a Pinot controller never waits for a client. Every
// change is compare-and-set: it reads version N, computes the next state,
// asks the write guard, and publishes the state by linking a fully written
// temporary file to state/N+1, which fails when another writer published
// N+1 first; then it starts over on the new state. A writer waking up with
// a stale state therefore never overwrites a newer one. Each call is one
// transition (an end unserves the From segments, serves the To segments
// and completes its lineage entry in one version), so a crash leaves a
// replacement open or ended, never half of each.
//
// Tarballs are copied in under a unique temporary name and renamed into
// place before the transition that serves them. A temporary name carries
// its writer (localdir_temp.go), so SweepTemps, which floe runs when it
// opens the sink, removes what a killed writer left and nothing a live one
// is writing. The tarballs of segments a
// transition retires are removed after it, best effort, and only while the
// state then current neither serves them nor lists them in an open To list.
//
// A table written by an older floe (segments.json and lineage.json, no
// state/) is migrated by the first call that reads it: those files become
// version 1, an end they logged but did not apply is finished, and they are
// not read again.
type LocalDir struct {
	root  string
	owner tempOwner
	cache *stateCache
}

var _ Uploader = (*LocalDir)(nil)

// NewLocalDir returns an Uploader writing under root.
func NewLocalDir(root string) *LocalDir {
	return &LocalDir{root: root, owner: thisProcess(), cache: newStateCache()}
}

const (
	stateDirName = "state"
	// keepVersions is how many versions of a table's state stay on disk.
	keepVersions = 16
	// maxAttempts bounds the compare-and-set attempts of one change.
	maxAttempts = 100
)

// errStateContended: a change lost maxAttempts races in a row.
var errStateContended = errors.New("other writers kept publishing first")

func (d *LocalDir) tableDir(table string) string { return filepath.Join(d.root, table) }

func (d *LocalDir) stateDir(table string) string {
	return filepath.Join(d.tableDir(table), stateDirName)
}

func (d *LocalDir) versionPath(table string, seq int64) string {
	return filepath.Join(d.stateDir(table), fmt.Sprintf("%020d.json", seq))
}

func (d *LocalDir) tarball(table, segment string) string {
	return filepath.Join(d.tableDir(table), segment+".tar.gz")
}

// stateFile is state/<seq>.json. Format: add fields, never change one.
type stateFile struct {
	Served  []string      `json:"served"`
	Lineage *localLineage `json:"lineage"`
}

// tableTx is one version of a table's state as read. A change edits this
// private copy and publishes it as the next version.
type tableTx struct {
	d       *LocalDir
	table   string
	seq     int64  // the version read; 0 when there is none yet
	raw     []byte // its encoding (nil for none)
	served  []string
	lineage *localLineage
}

// load reads the current version of the table's state. ErrTableMissing
// when the table directory does not exist.
func (d *LocalDir) load(table string) (*tableTx, error) {
	if _, err := os.Stat(d.tableDir(table)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("table %s: %w", table, ErrTableMissing)
		}
		return nil, fmt.Errorf("table %s: %w", table, err)
	}
	for range maxAttempts {
		seqs, err := d.versions(table)
		if err != nil {
			return nil, err
		}
		if len(seqs) == 0 {
			tx, retired, legacy, err := d.legacyState(table)
			if err != nil || !legacy {
				return tx, err
			}
			// Migration is no write a caller asked for: it changes
			// nothing served, so it asks no guard.
			if _, err := d.publish(tx); err != nil {
				return nil, err
			}
			d.removeRetired(table, retired)
			continue
		}
		seq := seqs[len(seqs)-1]
		raw, err := os.ReadFile(d.versionPath(table, seq))
		if errors.Is(err, fs.ErrNotExist) {
			continue // pruned since listed: newer versions exist
		}
		if err != nil {
			return nil, fmt.Errorf("read state of %s: %w", table, err)
		}
		if served, l, ok := d.cache.get(table, raw); ok {
			return newTx(d, table, seq, raw, served, l), nil
		}
		var f stateFile
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("read state of %s (version %d): %w", table, seq, err)
		}
		tx := newTx(d, table, seq, raw, f.Served, f.Lineage)
		d.cache.put(table, raw, tx.served, tx.lineage)
		return tx, nil
	}
	return nil, fmt.Errorf("read state of %s: %w", table, errStateContended)
}

func newTx(d *LocalDir, table string, seq int64, raw []byte, served []string, l *localLineage) *tableTx {
	if l == nil {
		l = &localLineage{}
	}
	if l.Entries == nil {
		l.Entries = map[string]*localLineageEntry{}
	}
	return &tableTx{d: d, table: table, seq: seq, raw: raw, served: served, lineage: l}
}

// versions lists the table's state versions on disk, ascending.
func (d *LocalDir) versions(table string) ([]int64, error) {
	entries, err := os.ReadDir(d.stateDir(table))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list state of %s: %w", table, err)
	}
	var seqs []int64
	for _, e := range entries {
		digits, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || len(digits) != 20 {
			continue // a temporary file
		}
		if seq, err := strconv.ParseInt(digits, 10, 64); err == nil {
			seqs = append(seqs, seq)
		}
	}
	slices.Sort(seqs)
	return seqs, nil
}

// withTable runs fn on the table's current state (read only).
// ErrTableMissing when the table directory does not exist.
func (d *LocalDir) withTable(table string, fn func(tx *tableTx) error) error {
	tx, err := d.load(table)
	if err != nil {
		return err
	}
	return fn(tx)
}

// update makes one change to the table's state: it loads the current
// version, lets fn edit it, asks the guard about the Write fn returns, and
// publishes the result as the next version; when another writer published
// that version first, it starts over (fn runs again on the new state, the
// guard is asked again). fn returns a nil Write when there is nothing to
// change. Nothing is held between the steps. It returns the state
// published, or the state read when fn changed nothing.
func (d *LocalDir) update(ctx context.Context, table string, fn func(tx *tableTx) (*Write, error)) (*tableTx, error) {
	for attempt := range maxAttempts {
		if attempt > 0 {
			if err := backoff(ctx, attempt); err != nil {
				return nil, err
			}
		}
		tx, err := d.load(table)
		if err != nil {
			return nil, err
		}
		w, err := fn(tx)
		if err != nil {
			return nil, err
		}
		if w == nil {
			return tx, nil
		}
		if err := CheckGuard(ctx, *w); err != nil {
			return nil, err
		}
		won, err := d.publish(tx)
		if err != nil {
			return nil, err
		}
		if won {
			return tx, nil
		}
	}
	return nil, fmt.Errorf("update state of %s: gave up after %d attempts: %w", table, maxAttempts, errStateContended)
}

// backoff sleeps a random time, longer after more lost races.
func backoff(ctx context.Context, attempt int) error {
	return sleep.For(ctx, mrand.N(time.Millisecond<<min(attempt, 5)))
}

// publish writes tx as the version after the one it was read from and
// reports whether it became that version. False when another writer
// published it first; also when the version number had been used and
// pruned (only a writer paused while keepVersions newer versions were
// published meets this): the link then succeeds, but the version is older
// than the current one, so it is removed and does not count.
func (d *LocalDir) publish(tx *tableTx) (bool, error) {
	b, err := tx.encode()
	if err != nil {
		return false, err
	}
	if bytes.Equal(b, tx.raw) {
		return true, nil // nothing changed
	}
	if err := os.Mkdir(d.stateDir(tx.table), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("publish state of %s: %w", tx.table, err)
	}
	next := tx.seq + 1
	path := d.versionPath(tx.table, next)
	tmp := d.tempName(path)
	defer os.Remove(tmp)
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return false, fmt.Errorf("publish state of %s: %w", tx.table, err)
	}
	if err := os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("publish state of %s: %w", tx.table, err)
	}
	seqs, err := d.versions(tx.table)
	if err != nil {
		return false, fmt.Errorf("publish state of %s (version %d): %w", tx.table, next, err)
	}
	latest := next
	if len(seqs) > 0 {
		latest = max(latest, seqs[len(seqs)-1])
	}
	if latest-next >= keepVersions {
		os.Remove(path)
		return false, nil
	}
	for _, s := range seqs {
		if latest-s < keepVersions {
			break
		}
		os.Remove(d.versionPath(tx.table, s)) // best effort; another writer may prune it too
	}
	tx.seq, tx.raw = next, b
	d.cache.put(tx.table, b, tx.served, tx.lineage)
	return true, nil
}

// encode normalizes tx (served sorted without duplicates, the oldest
// finished lineage entries pruned) and returns its state file.
func (tx *tableTx) encode() ([]byte, error) {
	slices.Sort(tx.served)
	tx.served = nonNil(slices.Compact(tx.served))
	tx.lineage.pruneFinished()
	b, err := json.Marshal(stateFile{Served: tx.served, Lineage: tx.lineage})
	if err != nil {
		return nil, fmt.Errorf("encode state of %s: %w", tx.table, err)
	}
	return append(b, '\n'), nil
}

// kept returns the segments whose tarballs must stay: served ones and the
// To segments of open replacements.
func (tx *tableTx) kept() map[string]bool {
	keep := tx.lineage.openTo()
	for _, s := range tx.served {
		keep[s] = true
	}
	return keep
}

// keeps reports whether kept holds name, without building the set (an
// upload asks it once per segment of a table that may serve thousands).
func (tx *tableTx) keeps(name string) bool {
	return slices.Contains(tx.served, name) || tx.lineage.opensTo(name)
}

// removeRetired removes, best effort, the tarballs of names that the
// current state does not keep. Each is first moved aside; then the state is
// read again, and a tarball that a writer meanwhile served again (an upload
// of the same name) is put back unless a newer one is already in place.
func (d *LocalDir) removeRetired(table string, names []string) {
	if len(names) == 0 {
		return
	}
	tx, err := d.load(table)
	if err != nil {
		return
	}
	keep := tx.kept()
	aside := map[string]string{}
	for _, name := range names {
		p := d.tarball(table, name)
		if keep[name] || aside[name] != "" {
			continue
		}
		tmp := d.tempName(p)
		if os.Rename(p, tmp) == nil {
			aside[name] = tmp
		}
	}
	if len(aside) == 0 {
		return
	}
	tx, err = d.load(table)
	if err == nil {
		keep = tx.kept()
	}
	for name, tmp := range aside {
		if err != nil || keep[name] {
			_ = os.Link(tmp, d.tarball(table, name))
		}
		os.Remove(tmp)
	}
}

// EnsureTable writes schema.json, and tableConfig.json when the table has
// none yet (like a controller, it does not change an existing table).
func (d *LocalDir) EnsureTable(ctx context.Context, schema *spec.Schema, table *spec.TableConfig) error {
	if err := CheckGuard(ctx, Write{Op: OpUpdateSchema, Table: table.TableName, Destructive: true}); err != nil {
		return err
	}
	dir := d.tableDir(table.TableName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create table dir %s: %w", dir, err)
	}
	if err := d.writeJSONFile(filepath.Join(dir, "schema.json"), schema, true); err != nil {
		return err
	}
	cfgPath := filepath.Join(dir, "tableConfig.json")
	if fileExists(cfgPath) {
		return nil
	}
	if err := CheckGuard(ctx, Write{Op: OpCreateTable, Table: table.TableName}); err != nil {
		return err
	}
	return d.writeJSONFile(cfgPath, table, false)
}

// ListSegments reads the table's served segments.
func (d *LocalDir) ListSegments(_ context.Context, table string) ([]string, error) {
	tx, err := d.load(table)
	if err != nil {
		return nil, fmt.Errorf("list segments of %s: %w", table, err)
	}
	return tx.served, nil
}

// Upload copies the tarball in under a temporary name, renames it into
// place, and serves it unless an open replacement lists it in its To list.
// The guard is asked before the rename and before every publish.
func (d *LocalDir) Upload(ctx context.Context, table string, seg Segment) error {
	if _, err := os.Stat(d.tableDir(table)); err != nil {
		return fmt.Errorf("upload segment %s: table %s: %w", seg.Name, table, ErrTableMissing)
	}
	tmp, err := d.copyToTemp(seg.TarPath, d.tarball(table, seg.Name))
	if err != nil {
		return fmt.Errorf("upload segment %s of %s: %w", seg.Name, table, err)
	}
	defer os.Remove(tmp) // gone after the rename; removes a leftover on error
	w := Write{Op: OpUpload, Table: table, Segments: []string{seg.Name}}
	placed := false
	_, err = d.update(ctx, table, func(tx *tableTx) (*Write, error) {
		if id := tx.lineage.reverted(seg.Name); id != "" {
			return nil, fmt.Errorf("upload segment %s of %s (reverted replacement %s): %w", seg.Name, table, id, ErrSegmentNameReverted)
		}
		if !placed {
			if err := d.place(ctx, w, tmp, table, seg.Name); err != nil {
				return nil, err
			}
			placed = true
		}
		if tx.keeps(seg.Name) {
			return nil, nil
		}
		tx.served = append(tx.served, seg.Name)
		return &w, nil
	})
	if err != nil {
		if placed {
			d.removeRetired(table, []string{seg.Name})
		}
		return err
	}
	return d.keepPlaced(ctx, w, table, seg)
}

// place asks the guard, then renames the temporary tarball into place.
func (d *LocalDir) place(ctx context.Context, w Write, tmp, table, segment string) error {
	if err := CheckGuard(ctx, w); err != nil {
		return err
	}
	if err := os.Rename(tmp, d.tarball(table, segment)); err != nil {
		return fmt.Errorf("upload segment %s of %s: %w", segment, table, err)
	}
	return nil
}

// keepPlaced copies the tarball in again when a concurrent removal of the
// same name (moved aside by removeRetired on an older state) took it,
// while the current state keeps the segment.
func (d *LocalDir) keepPlaced(ctx context.Context, w Write, table string, seg Segment) error {
	if fileExists(d.tarball(table, seg.Name)) {
		return nil
	}
	tx, err := d.load(table)
	if err != nil || !tx.keeps(seg.Name) {
		return err
	}
	tmp, err := d.copyToTemp(seg.TarPath, d.tarball(table, seg.Name))
	if err != nil {
		return fmt.Errorf("upload segment %s of %s: %w", seg.Name, table, err)
	}
	defer os.Remove(tmp)
	return d.place(ctx, w, tmp, table, seg.Name)
}

// DeleteSegments unserves names and removes their tarballs.
func (d *LocalDir) DeleteSegments(ctx context.Context, table string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	_, err := d.update(ctx, table, func(tx *tableTx) (*Write, error) {
		gone := make(map[string]bool, len(names))
		for _, n := range names {
			gone[n] = true
		}
		tx.served = slices.DeleteFunc(tx.served, func(s string) bool { return gone[s] })
		return &Write{Op: OpDeleteSegments, Table: table, Segments: names, Destructive: true}, nil
	})
	if err != nil {
		return err
	}
	d.removeRetired(table, names)
	return nil
}

// readJSONFile decodes path into v and reports whether it exists.
func readJSONFile(path string, v any) (bool, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(raw, v)
}

// writeJSONFile writes v as indented JSON through a uniquely named temp
// file, then renames it over path (replace) or links it to path, keeping
// an existing file.
func (d *LocalDir) writeJSONFile(path string, v any, replace bool) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	tmp := d.tempName(path)
	defer os.Remove(tmp)
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if replace {
		err = os.Rename(tmp, path)
	} else if err = os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// copyToTemp copies src to a unique temporary file beside dst and returns
// its name.
func (d *LocalDir) copyToTemp(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	tmp := d.tempName(dst)
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
