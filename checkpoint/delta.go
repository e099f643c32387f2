package checkpoint

import (
	"fmt"
	"slices"
)

// checkDelta rejects deltas no store accepts.
func checkDelta(lease Lease, d CheckpointDelta) error {
	if err := checkCommit(lease, Checkpoint{Table: d.Header.Table}); err != nil {
		return err
	}
	for path := range d.Set {
		if path == "" {
			return fmt.Errorf("%w: checkpoint delta of table %q sets a file with an empty path", ErrInvalid, lease.Table)
		}
	}
	return nil
}

// deletions returns d.Delete without the paths d.Set writes (Set wins).
func (d CheckpointDelta) deletions() []string {
	out := make([]string, 0, len(d.Delete))
	for _, p := range d.Delete {
		if _, set := d.Set[p]; !set && p != "" {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// applyDelta changes files by d in place.
func applyDelta(files map[string]FileState, d CheckpointDelta) {
	for _, p := range d.deletions() {
		delete(files, p)
	}
	for p, fs := range d.Set {
		fs.Segments = slices.Clone(fs.Segments)
		files[p] = fs
	}
}

// checkNames rejects empty segment names in ledger calls.
func checkNames(lease Lease, names []string) error {
	if err := checkName("table", lease.Table); err != nil {
		return err
	}
	for _, n := range names {
		if n == "" {
			return fmt.Errorf("%w: empty segment name for table %q", ErrInvalid, lease.Table)
		}
	}
	return nil
}
