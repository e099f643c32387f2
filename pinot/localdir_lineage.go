package pinot

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/google/uuid"
)

// localLineage is LocalDir's segment lineage, part of each state version.
// Format: add fields, never change one.
type localLineage struct {
	Next    int64                         `json:"next"`
	Entries map[string]*localLineageEntry `json:"entries"`
}

type localLineageEntry struct {
	From  []string `json:"segmentsFrom"`
	To    []string `json:"segmentsTo"`
	State string   `json:"state"` // IN_PROGRESS, COMPLETED or REVERTED (ENDING only in legacy files)
	Seq   int64    `json:"seq"`
}

// lineageEnding marks, in a legacy lineage.json, an end logged but not yet
// applied to segments.json; migration finishes it. No state version holds
// it: an end is one transition now.
const lineageEnding = "ENDING"

// keepFinished is how many ended or reverted entries the lineage keeps.
const keepFinished = 64

// The files of a table written by floe before state/ existed.
const (
	legacyManifestName = "segments.json"
	legacyLineageName  = "lineage.json"
)

// legacyState reads a table that has no state version yet: empty, or, when
// legacy is true, its segments.json and lineage.json, with every end they
// logged but did not apply finished; retired are those ends' From segments.
func (d *LocalDir) legacyState(table string) (tx *tableTx, retired []string, legacy bool, err error) {
	var served []string
	l := &localLineage{}
	dir := d.tableDir(table)
	okServed, err := readJSONFile(filepath.Join(dir, legacyManifestName), &served)
	if err != nil {
		return nil, nil, false, fmt.Errorf("read manifest of %s: %w", table, err)
	}
	okLineage, err := readJSONFile(filepath.Join(dir, legacyLineageName), l)
	if err != nil {
		return nil, nil, false, fmt.Errorf("read segment lineage of %s: %w", table, err)
	}
	tx = newTx(d, table, 0, nil, served, l)
	for _, e := range tx.lineage.Entries {
		if e.State == lineageEnding {
			tx.end(e)
			retired = append(retired, e.From...)
		}
	}
	return tx, retired, okServed || okLineage, nil
}

// openTo returns the To segments of open replacements.
func (l *localLineage) openTo() map[string]bool {
	out := map[string]bool{}
	for _, e := range l.Entries {
		if e.State == lineageInProgress {
			for _, s := range e.To {
				out[s] = true
			}
		}
	}
	return out
}

// opensTo reports whether an open replacement's To list names segment.
func (l *localLineage) opensTo(segment string) bool {
	for _, e := range l.Entries {
		if e.State == lineageInProgress && slices.Contains(e.To, segment) {
			return true
		}
	}
	return false
}

// reverted returns the reverted entry whose To list names segment, or "".
func (l *localLineage) reverted(segment string) string {
	for id, e := range l.Entries {
		if e.State == lineageReverted && slices.Contains(e.To, segment) {
			return id
		}
	}
	return ""
}

// pruneFinished drops the oldest ended or reverted entries beyond
// keepFinished.
func (l *localLineage) pruneFinished() {
	var finished []string
	for id, e := range l.Entries {
		if e.State == lineageCompleted || e.State == lineageReverted {
			finished = append(finished, id)
		}
	}
	if len(finished) <= keepFinished {
		return
	}
	sort.Slice(finished, func(i, j int) bool {
		return l.Entries[finished[i]].Seq < l.Entries[finished[j]].Seq
	})
	for _, id := range finished[:len(finished)-keepFinished] {
		delete(l.Entries, id)
	}
}

// end applies an end to tx: e's From segments unserved, its To segments
// served, e completed.
func (tx *tableTx) end(e *localLineageEntry) {
	tx.served = slices.DeleteFunc(tx.served, func(s string) bool { return slices.Contains(e.From, s) })
	tx.served = append(tx.served, e.To...)
	e.State = lineageCompleted
}

// StartReplace checks the request as a controller does (every From
// segment served, no To segment served), reverts the open replacements
// that overlap it (removing their To tarballs this one does not reuse),
// and records a new open replacement.
func (d *LocalDir) StartReplace(ctx context.Context, table string, from, to []string) (string, error) {
	if len(from) == 0 && len(to) == 0 {
		return "", fmt.Errorf("start replace segments of %s: nothing to replace", table)
	}
	var id string
	var dropped []string
	_, err := d.update(ctx, table, func(tx *tableTx) (*Write, error) {
		for _, s := range from {
			if !slices.Contains(tx.served, s) {
				return nil, fmt.Errorf("start replace segments of %s: segment %s to replace is not served", table, s)
			}
		}
		for _, s := range to {
			if slices.Contains(tx.served, s) {
				return nil, fmt.Errorf("start replace segments of %s: new segment %s is already served", table, s)
			}
			if id := tx.lineage.reverted(s); id != "" {
				return nil, fmt.Errorf("start replace segments of %s: segment %s (reverted replacement %s): %w", table, s, id, ErrSegmentNameReverted)
			}
		}
		dropped = tx.revertOverlapping(from, to)
		id = uuid.NewString()
		tx.lineage.Next++
		tx.lineage.Entries[id] = &localLineageEntry{From: nonNil(from), To: nonNil(to), State: lineageInProgress, Seq: tx.lineage.Next}
		return &Write{Op: OpStartReplace, Table: table, Segments: append(slices.Clone(from), to...), Destructive: true}, nil
	})
	if err != nil {
		return "", err
	}
	d.removeRetired(table, dropped)
	return id, nil
}

// revertOverlapping reverts (or, when to reuses all its To segments,
// drops) every open entry sharing a From or To segment with the new one,
// and returns the To segments no longer wanted. Pinot: forceCleanup.
func (tx *tableTx) revertOverlapping(from, to []string) []string {
	var dropped []string
	for id, e := range tx.lineage.Entries {
		if e.State != lineageInProgress || !overlaps(e.From, from) && !overlaps(e.To, to) {
			continue
		}
		rest := slices.DeleteFunc(slices.Clone(e.To), func(s string) bool { return slices.Contains(to, s) })
		if len(rest) == 0 {
			delete(tx.lineage.Entries, id)
			continue
		}
		e.To, e.State = rest, lineageReverted
		dropped = append(dropped, rest...)
	}
	return dropped
}

func overlaps(a, b []string) bool {
	for _, s := range a {
		if slices.Contains(b, s) {
			return true
		}
	}
	return false
}

// EndReplace serves the To segments, unserves the From segments and
// completes the entry in one transition, then removes the From tarballs.
// Every To segment must have been uploaded.
func (d *LocalDir) EndReplace(ctx context.Context, table, id string) error {
	var from []string
	_, err := d.update(ctx, table, func(tx *tableTx) (*Write, error) {
		e := tx.lineage.Entries[id]
		switch {
		case e == nil || e.State == lineageReverted:
			return nil, fmt.Errorf("end replace segments of %s (entry %s): %w", table, id, ErrReplaceAborted)
		case e.State == lineageCompleted:
			from = e.From // ended before: finish a removal a crash cut short
			return nil, nil
		}
		for _, s := range e.To {
			if !fileExists(d.tarball(table, s)) {
				return nil, fmt.Errorf("end replace segments of %s: new segment %s was not uploaded", table, s)
			}
		}
		tx.end(e)
		from = e.From
		return &Write{Op: OpEndReplace, Table: table, Destructive: true}, nil
	})
	if err != nil {
		return err
	}
	d.removeRetired(table, from)
	return nil
}

// RevertReplace marks an open replacement reverted and removes its To
// tarballs.
func (d *LocalDir) RevertReplace(ctx context.Context, table, id string) error {
	var to []string
	_, err := d.update(ctx, table, func(tx *tableTx) (*Write, error) {
		to = nil
		e := tx.lineage.Entries[id]
		switch {
		case e == nil:
			return nil, nil
		case e.State == lineageCompleted:
			return nil, fmt.Errorf("revert replace segments of %s (entry %s): %w", table, id, ErrReplaceEnded)
		}
		to = e.To
		if e.State != lineageInProgress {
			return nil, nil // reverted before
		}
		e.State = lineageReverted
		return &Write{Op: OpRevertReplace, Table: table, Destructive: true}, nil
	})
	if err != nil {
		return err
	}
	d.removeRetired(table, to)
	return nil
}
