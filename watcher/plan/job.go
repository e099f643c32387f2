package plan

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// job is one Plan call: the table, the snapshot planned and how to read
// its metadata.
type job struct {
	p         *Planner
	tableName string
	tbl       *table.Table
	meta      table.Metadata
	snap      *table.Snapshot
	fs        iceio.IO
	specs     map[int32]iceberg.PartitionSpec
	// keyIDs are the table's key fields and classes how their values
	// compare (keyFields), fixed once the live delete files are known.
	keyIDs  []int
	classes map[int]keyClass
	// units, when set, is the UnitIndex of the checkpoint planned from.
	units *UnitIndex
	// lazy, when set, is the checkpoint's unread file map (PlanLazy).
	lazy *lazyBase
}

func (p *Planner) newJob(ctx context.Context, tableName string, tbl *table.Table, snap *table.Snapshot) (*job, error) {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("open file IO of table %s: %w", tableName, err)
	}
	specs := map[int32]iceberg.PartitionSpec{}
	for _, s := range tbl.Metadata().PartitionSpecs() {
		specs[int32(s.ID())] = s
	}
	return &job{p: p, tableName: tableName, tbl: tbl, meta: tbl.Metadata(), snap: snap, fs: fs, specs: specs}, nil
}

// newPlan is an empty plan of the job's snapshot.
func (j *job) newPlan() *Plan {
	out := &Plan{SnapshotID: j.snap.SnapshotID, SequenceNumber: j.snap.SequenceNumber}
	if j.snap.SchemaID != nil {
		out.SchemaID = *j.snap.SchemaID
	}
	return out
}

// partitionKey is the canonical partition key of a file: "" when its spec
// is unpartitioned, else the spec id and the typed value of every
// partition field in spec order (P3).
func (j *job) partitionKey(df iceberg.DataFile) (string, error) {
	spec, ok := j.specs[df.SpecID()]
	if !ok {
		return "", fmt.Errorf("file %s: partition spec %d is not in the table metadata", df.FilePath(), df.SpecID())
	}
	if spec.IsUnpartitioned() {
		return "", nil
	}
	key, err := encodePartitionKey(spec, df.Partition())
	if err != nil {
		return "", fmt.Errorf("file %s: %w", df.FilePath(), err)
	}
	return key, nil
}

// allPartitioned reports whether every partition spec of the table is
// partitioned, so that no live file can have the empty partition key.
func (j *job) allPartitioned() bool {
	for _, s := range j.specs {
		if s.IsUnpartitioned() {
			return false
		}
	}
	return true
}
