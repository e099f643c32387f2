package pinot

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/google/uuid"
)

// localLineage is lineage.json: LocalDir's segment lineage.
type localLineage struct {
	Next    int64                         `json:"next"`
	Entries map[string]*localLineageEntry `json:"entries"`
}

type localLineageEntry struct {
	From  []string `json:"segmentsFrom"`
	To    []string `json:"segmentsTo"`
	State string   `json:"state"` // IN_PROGRESS, ENDING, COMPLETED or REVERTED
	Seq   int64    `json:"seq"`
}

// lineageEnding marks an end logged but not yet applied to the manifest.
const lineageEnding = "ENDING"

// keepFinished is how many ended or reverted entries lineage.json keeps.
const keepFinished = 64

func (d *LocalDir) readLineage(table string) (*localLineage, error) {
	l := &localLineage{Entries: map[string]*localLineageEntry{}}
	if err := readJSONFile(filepath.Join(d.tableDir(table), lineageName), l); err != nil {
		return nil, fmt.Errorf("read segment lineage of %s: %w", table, err)
	}
	if l.Entries == nil {
		l.Entries = map[string]*localLineageEntry{}
	}
	return l, nil
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

// reverted returns the reverted entry whose To list names segment, or "".
func (l *localLineage) reverted(segment string) string {
	for id, e := range l.Entries {
		if e.State == lineageReverted && slices.Contains(e.To, segment) {
			return id
		}
	}
	return ""
}

// saveLineage prunes the oldest finished entries and writes lineage.json.
func (tx *tableTx) saveLineage() error {
	var finished []string
	for id, e := range tx.lineage.Entries {
		if e.State == lineageCompleted || e.State == lineageReverted {
			finished = append(finished, id)
		}
	}
	if len(finished) > keepFinished {
		sort.Slice(finished, func(i, j int) bool {
			return tx.lineage.Entries[finished[i]].Seq < tx.lineage.Entries[finished[j]].Seq
		})
		for _, id := range finished[:len(finished)-keepFinished] {
			delete(tx.lineage.Entries, id)
		}
	}
	return writeJSONFile(filepath.Join(tx.d.tableDir(tx.table), lineageName), tx.lineage)
}

// rollForward finishes ends that a dead process logged but did not apply.
func (tx *tableTx) rollForward() error {
	for _, e := range tx.lineage.Entries {
		if e.State == lineageEnding {
			if err := tx.applyEnd(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyEnd swaps an ENDING entry's segments in the manifest, marks it
// COMPLETED and removes the From tarballs. Repeating it is harmless.
func (tx *tableTx) applyEnd(e *localLineageEntry) error {
	next := slices.DeleteFunc(slices.Clone(tx.served), func(s string) bool { return slices.Contains(e.From, s) })
	if err := tx.saveServed(append(next, e.To...)); err != nil {
		return err
	}
	e.State = lineageCompleted
	if err := tx.saveLineage(); err != nil {
		return err
	}
	return tx.removeUnreferenced(e.From)
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
	err := d.withTable(table, func(tx *tableTx) error {
		for _, s := range from {
			if !slices.Contains(tx.served, s) {
				return fmt.Errorf("start replace segments of %s: segment %s to replace is not served", table, s)
			}
		}
		for _, s := range to {
			if slices.Contains(tx.served, s) {
				return fmt.Errorf("start replace segments of %s: new segment %s is already served", table, s)
			}
			if id := tx.lineage.reverted(s); id != "" {
				return fmt.Errorf("start replace segments of %s: segment %s (reverted replacement %s): %w", table, s, id, ErrSegmentNameReverted)
			}
		}
		w := Write{Op: OpStartReplace, Table: table, Segments: append(slices.Clone(from), to...), Destructive: true}
		if err := CheckGuard(ctx, w); err != nil {
			return err
		}
		dropped := tx.revertOverlapping(from, to)
		id = uuid.NewString()
		tx.lineage.Next++
		tx.lineage.Entries[id] = &localLineageEntry{From: nonNil(from), To: nonNil(to), State: lineageInProgress, Seq: tx.lineage.Next}
		if err := tx.saveLineage(); err != nil {
			return err
		}
		return tx.removeUnreferenced(dropped)
	})
	if err != nil {
		return "", err
	}
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

// EndReplace logs the end, swaps the manifest and removes the From
// tarballs. Every To segment must have been uploaded.
func (d *LocalDir) EndReplace(ctx context.Context, table, id string) error {
	return d.withTable(table, func(tx *tableTx) error {
		e := tx.lineage.Entries[id]
		switch {
		case e == nil || e.State == lineageReverted:
			return fmt.Errorf("end replace segments of %s (entry %s): %w", table, id, ErrReplaceAborted)
		case e.State == lineageCompleted:
			return nil
		}
		for _, s := range e.To {
			if !fileExists(d.tarball(table, s)) {
				return fmt.Errorf("end replace segments of %s: new segment %s was not uploaded", table, s)
			}
		}
		if err := CheckGuard(ctx, Write{Op: OpEndReplace, Table: table, Destructive: true}); err != nil {
			return err
		}
		e.State = lineageEnding
		if err := tx.saveLineage(); err != nil {
			return err
		}
		return tx.applyEnd(e)
	})
}

// RevertReplace marks an open replacement reverted and removes its To
// tarballs.
func (d *LocalDir) RevertReplace(ctx context.Context, table, id string) error {
	return d.withTable(table, func(tx *tableTx) error {
		e := tx.lineage.Entries[id]
		switch {
		case e == nil:
			return nil
		case e.State == lineageCompleted:
			return fmt.Errorf("revert replace segments of %s (entry %s): %w", table, id, ErrReplaceEnded)
		case e.State == lineageInProgress:
			if err := CheckGuard(ctx, Write{Op: OpRevertReplace, Table: table, Destructive: true}); err != nil {
				return err
			}
			e.State = lineageReverted
			if err := tx.saveLineage(); err != nil {
				return err
			}
		}
		return tx.removeUnreferenced(e.To)
	})
}
