package plan

import (
	"fmt"
	"slices"

	"github.com/floehq/floe/checkpoint"
)

// countable reports whether the rows d deletes from the data file at path
// are its record count: a deletion vector of the file, or a position
// delete file that references only it (by referenced_data_file, or by
// file_path bounds that are both the path).
func countable(d *liveDelete, path string) bool {
	switch d.kind {
	case dvDelete:
		return d.ref == path
	case posDelete:
		return d.ref == path || d.ref == "" && d.paths.hasLower && d.paths.hasUpper &&
			d.paths.lower == path && d.paths.upper == path
	}
	return false
}

// deletesRewritten decides a checkpointed data file whose delete
// fingerprint changed from oldFP to newFP (P11, delete files): true when
// the change is replace snapshots rewriting its delete files (Iceberg's
// rewrite_position_delete_files, position deletes rewritten as deletion
// vectors) into files that delete as many of its rows. The file's
// segments then stay; only its fingerprint is recorded anew. Checked: at
// least one of its delete files was added by a replace snapshot since
// the checkpoint; its delete files now, less those, plus the ones replace
// snapshots removed that reached it, give oldFP (so nothing else changed
// what applies to it); every delete file added or removed that way can be
// counted from its manifest entry (countable) and both sides delete the
// same number of rows. A file for which a replace snapshot added a delete
// file but the check fails is rebuilt and its reason kept
// (rewriteReasons, reported by deleteRewriteFallback).
func (rm *remapping) deletesRewritten(path string, f liveFile, oldFP, newFP string) bool {
	if rm == nil || rm.h == nil || oldFP == newFP || len(rm.h.delAdded) == 0 {
		return false
	}
	pos, eq, dv, _ := rm.idx.forFile(path, f.partition, f.dataSeq, f.bounds)
	var added, kept []*liveDelete
	for _, d := range slices.Concat(pos, eq, dv) {
		if rm.h.delAdded[d.path] {
			added = append(added, d)
		} else {
			kept = append(kept, d)
		}
	}
	if len(added) == 0 {
		return false
	}
	removed := rm.h.reached(path, f)
	if fp := fingerprintOf(slices.Concat(kept, removed)); fp != oldFP {
		rm.rewriteReasons[path] = fmt.Sprintf("the delete files of %s changed by more than a replace snapshot's "+
			"rewrite", path)
		return false
	}
	var before, after int64
	for _, side := range []struct {
		ds  []*liveDelete
		sum *int64
	}{{removed, &before}, {added, &after}} {
		for _, d := range side.ds {
			if !countable(d, path) {
				rm.rewriteReasons[path] = fmt.Sprintf("delete file %s, rewritten by a replace snapshot, reaches %s; "+
					"the rows it deletes are not known without reading it", d.path, path)
				return false
			}
			*side.sum += d.df.Count()
		}
	}
	if before != after {
		rm.rewriteReasons[path] = fmt.Sprintf("replace snapshots rewrote the delete files of %s deleting %d rows "+
			"into files deleting %d (a snapshot labelled replace changed rows)", path, before, after)
		return false
	}
	return true
}

// reached is the delete files replace snapshots removed that reached the
// data file by the spec's rules (P2; an equality delete file reaching it
// by sequence number and partition, which the count check then refuses).
func (h *history) reached(path string, f liveFile) []*liveDelete {
	var out []*liveDelete
	for _, d := range h.delRemoved {
		var hit bool
		switch d.kind {
		case dvDelete:
			hit = d.ref == path && (d.seq < 0 || f.dataSeq <= d.seq)
		case posDelete:
			hit = d.seq >= f.dataSeq && (d.ref == path || d.ref == "" && d.partition == f.partition && d.paths.mayHold(path))
		case eqDelete:
			hit = d.seq > f.dataSeq && (d.partition == "" || d.partition == f.partition)
		}
		if hit {
			out = append(out, d)
		}
	}
	return out
}

// fingerprintOf is the delete fingerprint of a set of delete files (as
// deleteIndex.fingerprint computes it).
func fingerprintOf(ds []*liveDelete) string {
	tokens := make([]string, len(ds))
	for i, d := range ds {
		tokens[i] = d.token
	}
	return tokensFingerprint(tokens)
}

// refreshFingerprint keeps a checkpointed file whose delete files were
// rewritten: its entry as recorded, with the new fingerprint (and key
// bounds, when the plan read them) in Plan.Refresh.
func (c *comparison) refreshFingerprint(path string, old checkpoint.FileState, fp string, kb checkpoint.KeyBounds) {
	if c.refresh == nil {
		c.refresh = map[string]checkpoint.FileState{}
	}
	old.DeleteFingerprint = fp
	if len(kb) > 0 {
		old.KeyBounds = kb
	}
	c.refresh[path] = old
}

// deleteRewriteFallback is the reason delete-file rewrites were not
// trusted, "" when none: the first data file's by path, and how many
// others there are (the same whichever way the plan compared, P1).
func (rm *remapping) deleteRewriteFallback() string {
	if rm == nil || len(rm.rewriteReasons) == 0 {
		return ""
	}
	paths := make([]string, 0, len(rm.rewriteReasons))
	for p := range rm.rewriteReasons {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	out := rm.rewriteReasons[paths[0]]
	if n := len(paths) - 1; n > 0 {
		out += fmt.Sprintf(" (and %d more data files)", n)
	}
	return out
}
