package client

import (
	"encoding/json"
	"strings"
	"time"
)

// Overview states of a table (GET /api/v1/tables "state").
const (
	StateIdle        = "IDLE"
	StateRunning     = "RUNNING"
	StateBackfilling = "BACKFILLING"
	StatePaused      = "PAUSED"
	StateDisabled    = "DISABLED"
	StateFailed      = "FAILED"
)

// KeyPausedSchedule is the task config key that holds a paused table's
// schedule until it resumes.
const KeyPausedSchedule = "schedule.paused"

// Run statuses.
const (
	RunRunning   = "RUNNING"
	RunCompleted = "COMPLETED"
	RunFailed    = "FAILED"
	RunSkipped   = "SKIPPED"
	RunAbandoned = "ABANDONED"
)

// Table is one external table as the API shows it.
type Table struct {
	Name       string            `json:"name"`
	Revision   int64             `json:"revision"`
	Connection string            `json:"connection"`
	Source     string            `json:"source"`
	TaskConfig map[string]string `json:"taskConfig,omitempty"`
	// FieldIDs binds each Pinot column to the Iceberg field id it reads.
	FieldIDs   map[string]int     `json:"fieldIds,omitempty"`
	Status     Status             `json:"status"`
	Checkpoint *CheckpointSummary `json:"checkpoint,omitempty"`
	LastRun    *Run               `json:"lastRun,omitempty"`
	CreatedAt  time.Time          `json:"createdAt"`
	// State, Rows, Lag and LastError come from a floe that computes the
	// overview (newer floe); Overview, RowCount and ErrorLine fall back on
	// the other fields when they are absent.
	State     string `json:"state,omitempty"`
	Rows      int64  `json:"rows,omitempty"`
	Lag       *Lag   `json:"lag,omitempty"`
	LastError string `json:"lastError,omitempty"`
	// Schema and TableConfig are the Pinot documents GET of one table
	// answers with (kept as sent).
	Schema      json.RawMessage `json:"schema,omitempty"`
	TableConfig json.RawMessage `json:"tableConfig,omitempty"`
	// LastEvent is the last change announcement the answering replica saw.
	LastEvent *SeenEvent `json:"lastEvent,omitempty"`
}

// SeenEvent is a change announcement (a commit) as a replica received it.
type SeenEvent struct {
	Event Event `json:"event"`
	// Via is the queue's name, or "webhook".
	Via        string    `json:"via"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// Event is one announcement of an Iceberg commit.
type Event struct {
	Kind             string    `json:"kind"`
	ID               string    `json:"id,omitempty"`
	Time             time.Time `json:"time,omitzero"`
	Region           string    `json:"region,omitempty"`
	Account          string    `json:"account,omitempty"`
	Catalog          string    `json:"catalog,omitempty"`
	Namespace        string    `json:"namespace,omitempty"`
	Table            string    `json:"table,omitempty"`
	MetadataLocation string    `json:"metadataLocation,omitempty"`
}

// Status is a table's scheduling state on the replica that answered.
type Status struct {
	Table        string    `json:"table"`
	State        string    `json:"state"`
	Schedule     string    `json:"schedule,omitempty"`
	NextRun      time.Time `json:"nextRun,omitzero"`
	RunningRunID string    `json:"runningRunId,omitempty"`
	LastChecked  time.Time `json:"lastChecked,omitzero"`
	Error        string    `json:"error,omitempty"`
	Revision     int64     `json:"revision,omitempty"`
	Progress     *Progress `json:"progress,omitempty"`
}

// Progress is how far a running run is.
type Progress struct {
	FilesDone  int   `json:"filesDone"`
	FilesTotal int   `json:"filesTotal"`
	Rows       int64 `json:"rows"`
	Batched    bool  `json:"batched"`
}

// CheckpointSummary is the table's checkpoint without its file map.
type CheckpointSummary struct {
	Table            string    `json:"table"`
	SnapshotID       int64     `json:"snapshotId"`
	SequenceNumber   int64     `json:"sequenceNumber"`
	MetadataLocation string    `json:"metadataLocation"`
	TableUUID        string    `json:"tableUuid"`
	SchemaID         int       `json:"schemaId"`
	FileCount        int       `json:"fileCount"`
	CommittedAt      time.Time `json:"committedAt"`
	LeaseToken       int64     `json:"leaseToken"`
	Backfill         *Backfill `json:"backfill,omitempty"`
	Rows             int64     `json:"rows,omitempty"`
}

// Backfill is how far a batched run part-way through has come.
type Backfill struct {
	SnapshotID       int64  `json:"snapshotId"`
	MetadataLocation string `json:"metadataLocation"`
	FilesDone        int    `json:"filesDone"`
	FilesTotal       int    `json:"filesTotal"`
	RunID            string `json:"runId,omitempty"`
}

// Lag is how far Pinot is behind the newest Iceberg snapshot.
type Lag struct {
	Snapshots        int       `json:"snapshots"`
	Seconds          float64   `json:"seconds"`
	LatestSnapshotID int64     `json:"latestSnapshotId"`
	CheckedAt        time.Time `json:"checkedAt"`
}

// Run is one run of a table.
type Run struct {
	ID             string    `json:"id"`
	Table          string    `json:"table"`
	Trigger        string    `json:"trigger"`
	Status         string    `json:"status"`
	StartedAt      time.Time `json:"startedAt"`
	FinishedAt     time.Time `json:"finishedAt,omitzero"`
	FromSnapshotID int64     `json:"fromSnapshotId,omitempty"`
	SnapshotID     int64     `json:"snapshotId,omitempty"`
	// Kind is what the run did (append, backfill, replace, merge,
	// remap, schema-rebuild, none); "" for a run that never planned or
	// one recorded before runs carried their kind, whose file and row
	// counts below are then unknown (see Counted).
	Kind          string `json:"kind,omitempty"`
	FilesAdded    int    `json:"filesAdded,omitempty"`
	FilesRebuilt  int    `json:"filesRebuilt,omitempty"`
	FilesRemoved  int    `json:"filesRemoved,omitempty"`
	FilesRemapped int    `json:"filesRemapped,omitempty"`
	LiveFiles     int    `json:"liveFiles,omitempty"`
	// FilesDiscovered is LiveFiles under its first name (never files
	// converted); use Live.
	FilesDiscovered   int    `json:"filesDiscovered"`
	FilesFailed       int    `json:"filesFailed"`
	SegmentsGenerated int    `json:"segmentsGenerated"`
	SegmentsDeleted   int    `json:"segmentsDeleted"`
	Rows              int64  `json:"rows"`
	RowsAdded         int64  `json:"rowsAdded,omitempty"`
	RowsRebuilt       int64  `json:"rowsRebuilt,omitempty"`
	Bytes             int64  `json:"bytes"`
	Error             string `json:"error,omitempty"`
	Owner             string `json:"owner,omitempty"`
	// Builders counts the units each replica built for the run.
	Builders map[string]int `json:"builders,omitempty"`
	// SchemaChange says what the run did about a change of the Iceberg schema.
	SchemaChange string `json:"schemaChange,omitempty"`
	// Log is the run's own log lines, from a floe that keeps them.
	Log []RunLogLine `json:"log,omitempty"`
}

// Counted reports whether the run's record says what it did (it carries
// a kind): without one, FilesAdded … RowsRebuilt are unknown, not zero.
func (r Run) Counted() bool { return r.Kind != "" }

// Live is the snapshot's data files: LiveFiles, or FilesDiscovered on a
// record written before LiveFiles (the same count under its first name).
func (r Run) Live() int {
	if r.LiveFiles == 0 {
		return r.FilesDiscovered
	}
	return r.LiveFiles
}

// FilesConverted is the data files the run converted: added and rebuilt.
func (r Run) FilesConverted() int { return r.FilesAdded + r.FilesRebuilt }

// RunLogLine is one log line of a run.
type RunLogLine struct {
	At    time.Time         `json:"at"`
	Level string            `json:"level"`
	Msg   string            `json:"msg"`
	Attrs map[string]string `json:"attrs,omitempty"`
}

// Failed reports whether the run ended without syncing: FAILED, ABANDONED
// or SKIPPED.
func (r Run) Failed() bool {
	return r.Status == RunFailed || r.Status == RunAbandoned || r.Status == RunSkipped
}

// Duration is how long the run took (zero while it runs).
func (r Run) Duration() time.Duration {
	if r.FinishedAt.IsZero() {
		return 0
	}
	return r.FinishedAt.Sub(r.StartedAt)
}

// TableRecord is the stored record pause and resume answer with.
type TableRecord struct {
	Name       string            `json:"name"`
	Revision   int64             `json:"revision"`
	TaskConfig map[string]string `json:"taskConfig"`
}

// Overview is the table's overview state: the server's when it sent one,
// else derived the way the server derives it (PAUSED/DISABLED from the
// schedule state, RUNNING/BACKFILLING from the status, FAILED when the
// last run failed or was abandoned or the watcher reports an error).
func (t Table) Overview() string {
	if t.State != "" {
		return t.State
	}
	switch s := t.Status.State; s {
	case "ERROR":
		return StateFailed
	case StateRunning, StateBackfilling, StatePaused, StateDisabled:
		return s
	}
	if t.LastRun != nil && (t.LastRun.Status == RunFailed || t.LastRun.Status == RunAbandoned) {
		return StateFailed
	}
	return StateIdle
}

// RowCount is the number of rows in Pinot: the server's figure, else the
// checkpoint's.
func (t Table) RowCount() int64 {
	if t.Rows != 0 || t.Checkpoint == nil {
		return t.Rows
	}
	return t.Checkpoint.Rows
}

// ErrorLine is the last error on one line: the server's lastError, else
// the failed last run's error, else the watcher's.
func (t Table) ErrorLine() string {
	msg := t.LastError
	if msg == "" && t.LastRun != nil && t.LastRun.Failed() {
		msg = t.LastRun.Error
	}
	if msg == "" {
		msg = t.Status.Error
	}
	first, _, _ := strings.Cut(msg, "\n")
	return strings.TrimSpace(first)
}
