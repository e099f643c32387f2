package checkpoint

import (
	"maps"
	"slices"
	"time"
)

// Observation is what the latest check of a table's Iceberg source saw:
// the newest snapshot there, and how far the checkpoint is behind it. The
// watcher writes one at each check; status pages read it as the table's lag.
type Observation struct {
	// LatestSnapshotID is the source's current snapshot, committed at
	// LatestCommittedAt.
	LatestSnapshotID  int64     `json:"latestSnapshotId"`
	LatestCommittedAt time.Time `json:"latestCommittedAt,omitzero"`
	// SnapshotsBehind counts the source's snapshots after the checkpoint's
	// (0: Pinot is up to date); OldestUnsyncedAt is when the oldest of
	// them was committed (zero when none).
	SnapshotsBehind  int       `json:"snapshotsBehind"`
	OldestUnsyncedAt time.Time `json:"oldestUnsyncedAt,omitzero"`
	// CheckedAt is when the check ran.
	CheckedAt time.Time `json:"checkedAt"`
}

// TableOverview is what an overview of many tables needs of one table,
// read in one batch by TableOverviews: nil fields are absent records.
type TableOverview struct {
	Table       string             `json:"table"`
	Summary     *CheckpointSummary `json:"summary,omitempty"`
	LastRun     *Run               `json:"lastRun,omitempty"`
	Observation *Observation       `json:"observation,omitempty"`
}

type observationRecord struct {
	versioned
	Observation
}

func encodeObservation(o Observation) ([]byte, error) {
	return encode("observation", observationRecord{versioned{FormatCurrent}, o})
}

func decodeObservation(table string, raw []byte) (*Observation, error) {
	var rec observationRecord
	if err := decode("observation of table "+quote(table), raw, &rec); err != nil {
		return nil, err
	}
	return &rec.Observation, nil
}

func decodeRun(table string, raw []byte) (*Run, error) {
	var rec runRecord
	if err := decode("newest run of table "+quote(table), raw, &rec); err != nil {
		return nil, err
	}
	return &rec.Run, nil
}

// trimRunLog keeps the last MaxRunLogLines log lines of r.
func trimRunLog(r Run) Run {
	if n := len(r.Log) - MaxRunLogLines; n > 0 {
		r.Log = r.Log[n:]
	}
	return r
}

// cloneRun copies r's maps and log so that a stored run shares nothing
// with its caller.
func cloneRun(r Run) Run {
	r.Builders = maps.Clone(r.Builders)
	r.Log = slices.Clone(r.Log)
	for i := range r.Log {
		r.Log[i].Attrs = maps.Clone(r.Log[i].Attrs)
	}
	return r
}
