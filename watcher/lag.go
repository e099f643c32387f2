package watcher

import (
	"context"
	"log/slog"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// lag is how far a table's checkpoint is behind its Iceberg table.
type lag struct {
	// latestID and latestAt are the table's current snapshot and its
	// commit time (zero for a table without snapshots).
	latestID int64
	latestAt time.Time
	// behind counts the snapshots on the current snapshot's ancestry
	// committed after the synced one; oldest is the commit time of the
	// first of them (zero when behind is 0). When the synced snapshot is
	// not on that ancestry (a rollback, expired snapshots, a re-created
	// table) behind counts the whole ancestry the metadata keeps.
	behind int
	oldest time.Time
}

// maxLagWalk bounds the ancestry walk, so metadata with a parent cycle
// cannot stall a check.
const maxLagWalk = 100_000

// lagOf measures meta's current snapshot against the synced snapshot id.
func lagOf(meta table.Metadata, synced int64) lag {
	cur := meta.CurrentSnapshot()
	if cur == nil {
		return lag{}
	}
	l := lag{latestID: cur.SnapshotID, latestAt: time.UnixMilli(cur.TimestampMs).UTC()}
	for s := cur; s != nil && s.SnapshotID != synced && l.behind < maxLagWalk; {
		l.behind++
		l.oldest = time.UnixMilli(s.TimestampMs).UTC()
		if s.ParentSnapshotID == nil {
			break
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	return l
}

// seconds is the age of the oldest snapshot not yet synced at now.
func (l lag) seconds(now time.Time) float64 {
	if l.behind == 0 || l.oldest.IsZero() {
		return 0
	}
	return max(0, now.Sub(l.oldest).Seconds())
}

// observation is what a check of the table saw, for the store.
func (l lag) observation(checked time.Time) checkpoint.Observation {
	return checkpoint.Observation{LatestSnapshotID: l.latestID, LatestCommittedAt: l.latestAt,
		SnapshotsBehind: l.behind, OldestUnsyncedAt: l.oldest, CheckedAt: checked}
}

// observe records how far the checkpoint (at snapshot synced) is behind
// the table's metadata. A failed write is logged, never the run's
// failure: the observation only informs status pages.
func (r *runner) observe(ctx context.Context, meta table.Metadata, synced int64) {
	now := r.w.clock.Now()
	l := lagOf(meta, synced)
	r.w.metrics.SetLag(r.table.Name, l.behind, l.seconds(now))
	// CheckedAt is when the run started, before it read the metadata: a
	// commit announced before then is in what the check saw (notify.go).
	checked := r.run.StartedAt
	if checked.IsZero() {
		checked = now
	}
	if err := r.w.deps.Store.PutObservation(ctx, r.table.Name, l.observation(checked)); err != nil {
		r.w.log.Warn("record the table's lag", slog.String(attrTable, r.table.Name), slog.Any("error", err))
	}
}
