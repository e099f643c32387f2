package plan

import (
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// liveFile is what the planner knows of a live data file.
type liveFile struct {
	partition string
	dataSeq   int64
	size      int64
	// df is the file's manifest entry; nil when the file is known only
	// from the checkpoint (fold).
	df iceberg.DataFile
	// bounds are the file's bounds of the key fields (P2): from its
	// manifest entry, or as the checkpoint recorded them.
	bounds checkpoint.KeyBounds
}

// deleteKind is how a delete file deletes rows.
type deleteKind uint8

const (
	posDelete deleteKind = iota // position delete file (Parquet)
	eqDelete                    // equality delete file
	dvDelete                    // deletion vector (Puffin blob)
)

// liveDelete is a live delete file.
type liveDelete struct {
	path      string
	kind      deleteKind
	partition string
	seq       int64
	// snapshotID is the snapshot that added the delete file.
	snapshotID int64
	ref        string // referenced data file, "" when none
	// token names the delete file in fingerprints: pos:<path>, eq:<path>
	// or dv:<path>@<content offset>. Format: never change.
	token string
	df    iceberg.DataFile
	paths pathBounds // file_path bounds of a position delete file
	keys  *eqKeys    // keys of an equality delete file (loadKeys)
}

func newLiveDelete(e entry) (liveDelete, error) {
	df := e.df
	d := liveDelete{path: df.FilePath(), partition: e.partition, seq: e.seq, snapshotID: e.snapshotID, df: df, paths: e.paths}
	if ref := df.ReferencedDataFile(); ref != nil {
		d.ref = *ref
	}
	switch {
	case df.ContentType() == iceberg.EntryContentEqDeletes:
		d.kind, d.token = eqDelete, "eq:"+d.path
	case table.IsDeletionVector(df):
		if d.ref == "" {
			return liveDelete{}, fmt.Errorf("deletion vector %s names no data file", d.path)
		}
		d.kind, d.token = dvDelete, fmt.Sprintf("dv:%s@%d", d.path, derefInt64(df.ContentOffset()))
	case df.ContentType() == iceberg.EntryContentPosDeletes:
		d.kind, d.token = posDelete, "pos:"+d.path
	default:
		return liveDelete{}, fmt.Errorf("delete manifest holds data file %s", d.path)
	}
	return d, nil
}

func derefInt64(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// live is the set of data and delete files live at the planned snapshot.
// The full-state diff reads every file from the manifests (files); the
// fold starts from the checkpoint's files (base), marks those removed
// since (gone) and adds those added since (files).
type live struct {
	base map[string]checkpoint.FileState
	// size is the checkpoint's file count when base holds only the
	// entries a lazy plan read (PlanLazy); else 0 and base is whole.
	size    int
	gone    map[string]bool
	files   map[string]liveFile
	deletes []liveDelete
	// dataManifests are the data manifests of the planned snapshot; only
	// those of the list's head while headOnly (loadDataManifests).
	dataManifests []iceberg.ManifestFile
	headOnly      bool
	// removedBy are the files each snapshot the fold folded by difference
	// removed (P15), for the remap's history.
	removedBy map[int64][]stepFile
}

// has reports whether path is a live data file.
func (lv *live) has(path string) bool {
	if _, ok := lv.files[path]; ok {
		return true
	}
	_, ok := lv.base[path]
	return ok && !lv.gone[path]
}

// baseSize is the number of files of the checkpoint folded from.
func (lv *live) baseSize() int {
	if lv.size > 0 {
		return lv.size
	}
	return len(lv.base)
}

// count is the number of live data files.
func (lv *live) count() int {
	n := lv.baseSize() - len(lv.gone)
	for path := range lv.files {
		if _, ok := lv.base[path]; !ok {
			n++
		}
	}
	return n
}
