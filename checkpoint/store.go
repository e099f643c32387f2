package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no such table, connection, checkpoint or run.
	ErrNotFound = errors.New("not found")
	// ErrLeaseHeld: another owner holds an unexpired lease on the table.
	ErrLeaseHeld = errors.New("lease held by another owner")
	// ErrFenced: the caller's lease token is no longer the current one
	// (it expired and someone else took the table); its writes are refused.
	ErrFenced = errors.New("lease token fenced")
	// ErrConflict: a create found the key already there.
	ErrConflict = errors.New("already exists")
	// ErrInvalid: the caller passed an argument no store accepts (empty
	// name, non-positive TTL, checkpoint for another table than its lease).
	ErrInvalid = errors.New("invalid argument")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store closed")
	// ErrInUse: a connection that a table names cannot be deleted (C13).
	ErrInUse = errors.New("in use")
	// ErrNoConnection: a table was created on a connection that is not
	// stored, or no longer is (C13).
	ErrNoConnection = errors.New("connection not stored")
)

// Store is everything floe persists. Implementations: Redis (several
// replicas share one Redis) and Bolt (embedded, single node). Every method
// is safe for concurrent use. The conformance suite in checkpointtest
// defines the behaviour both must have.
type Store interface {
	// Connections (catalog connection configs, credentials included: the
	// store is trusted, the API never returns them).
	PutConnection(ctx context.Context, c Connection) error
	GetConnection(ctx context.Context, name string) (Connection, error)
	ListConnections(ctx context.Context) ([]Connection, error)
	// DeleteConnection removes a connection no table names; while one
	// does it fails with ErrInUse naming the tables. The check and the
	// delete are one atomic step (C13).
	DeleteConnection(ctx context.Context, name string) error

	// External tables and their sync task config.
	CreateTable(ctx context.Context, t Table) error // ErrConflict if it exists
	// CreateBoundTable is CreateTable that also requires t.Connection to be
	// stored, checked in the same atomic step (ErrNoConnection otherwise):
	// with DeleteConnection's check, a table never outlives its connection
	// however the two race (C13).
	CreateBoundTable(ctx context.Context, t Table) error
	PutTable(ctx context.Context, t Table) error // create or replace
	GetTable(ctx context.Context, name string) (Table, error)
	ListTables(ctx context.Context) ([]Table, error)
	DeleteTable(ctx context.Context, name string) error // also drops checkpoint, runs, lease
	// Table records are revisioned and their changes announced (tables.go,
	// architecture I8). Every table write above takes the next value of one
	// store-wide counter as the record's Revision. UpdateTable is the
	// compare-and-set write: t replaces the stored record only while that
	// record's revision is still t.Revision (ErrStale otherwise, ErrNotFound
	// when there is none); it returns the record as stored.
	UpdateTable(ctx context.Context, t Table) (Table, error)
	// SnapshotTables returns every table with the store revision the list
	// reflects: each table write up to Revision is in it.
	SnapshotTables(ctx context.Context) (TableSnapshot, error)
	// TableRevision returns the store's table revision, the last one a
	// table write took (0 before any): a reader holding a snapshot of that
	// revision holds every table as stored (caches of the table list).
	TableRevision(ctx context.Context) (int64, error)
	// WatchTables delivers every table change with a revision above after,
	// in revision order (see TableChange for when the channel closes).
	WatchTables(ctx context.Context, after int64) (<-chan TableChange, error)

	// Checkpoints. CommitCheckpoint writes only while lease is the table's
	// current lease (ErrFenced otherwise): invariant I1/I4.
	GetCheckpoint(ctx context.Context, table string) (Checkpoint, error)
	// GetCheckpointSummary is GetCheckpoint without reading the file map
	// (cheap for status pages and planning "anything new?" checks).
	GetCheckpointSummary(ctx context.Context, table string) (CheckpointSummary, error)
	CommitCheckpoint(ctx context.Context, lease Lease, cp Checkpoint) error
	// CommitCheckpointDelta applies a change to the checkpoint under the
	// lease (ErrFenced otherwise): the header is replaced, the files in
	// Set are written and those in Delete removed, all in one atomic step
	// (C1, C9). Runs commit deltas so that a commit costs what changed,
	// not the size of the table.
	CommitCheckpointDelta(ctx context.Context, lease Lease, d CheckpointDelta) error

	// The segment ledger: which run (by fencing token) last uploaded each
	// segment name of a table. RecordSegments and ForgetSegments write only
	// while lease is the table's current lease (ErrFenced otherwise, C10);
	// a run records names before it uploads them, so a run holding an older
	// token can tell that a newer run owns a segment and leave it alone.
	RecordSegments(ctx context.Context, lease Lease, names []string) error
	ForgetSegments(ctx context.Context, lease Lease, names []string) error
	// SegmentTokens returns the recorded token of each name that has one.
	SegmentTokens(ctx context.Context, table string, names []string) (map[string]int64, error)

	// Run history, newest first, capped per table (RunHistoryLimit).
	PutRun(ctx context.Context, r Run) error // insert or update by (Table, ID)
	ListRuns(ctx context.Context, table string, limit int) ([]Run, error)
	GetRun(ctx context.Context, table, id string) (Run, error)

	// Leases with fencing tokens. Acquire succeeds when the lease is free,
	// expired, or already held by owner; every successful Acquire by a new
	// owner returns a strictly larger Token than any before it. The table
	// must exist (ErrNotFound otherwise); ErrLeaseHeld when another owner
	// holds it.
	AcquireLease(ctx context.Context, table, owner string, ttl time.Duration) (Lease, error)
	RenewLease(ctx context.Context, lease Lease, ttl time.Duration) (Lease, error) // ErrFenced if lost
	ReleaseLease(ctx context.Context, lease Lease) error                           // ErrFenced if already lost
	// GetLease returns the table's unexpired lease (ErrNotFound if none).
	GetLease(ctx context.Context, table string) (Lease, error)
	// ListLeases returns every unexpired lease, sorted by table.
	ListLeases(ctx context.Context) ([]Lease, error)

	// Observations and overviews (overview.go). PutObservation records
	// what the latest check of the table's source saw (ErrNotFound when
	// the table does not exist); DeleteTable removes it.
	PutObservation(ctx context.Context, table string, o Observation) error
	// TableOverviews returns, for each name in order, the table's
	// checkpoint summary, newest run and observation (nil when absent; a
	// name without a table gets an overview with all three nil). One read
	// whatever the number of names: Redis one pipeline, Bolt one
	// transaction.
	TableOverviews(ctx context.Context, names []string) ([]TableOverview, error)

	Close() error
}

// RunHistoryLimit is how many runs a store keeps per table.
const RunHistoryLimit = 100

// Connection is a named catalog connection. Props holds the catalog
// properties (type, uri, warehouse, region, role ARN, ...); Secrets holds
// credentials, kept apart so that nothing that prints Props can leak them.
type Connection struct {
	Name      string            `json:"name"`
	Type      string            `json:"type"`
	Props     map[string]string `json:"props,omitempty"`
	Secrets   map[string]string `json:"secrets,omitempty"`
	CreatedAt time.Time         `json:"createdAt"`
	UpdatedAt time.Time         `json:"updatedAt"`
}

// Table is one external table: one Iceberg source bound to one Pinot
// OFFLINE table.
type Table struct {
	Name string `json:"name"` // raw Pinot table name
	// Revision orders the table's records: the store sets it on every
	// write from a counter shared by all tables, so it grows with each
	// change, across delete and re-create too. Callers pass it back to
	// UpdateTable; other writes ignore it.
	Revision   int64  `json:"revision,omitempty"`
	Connection string `json:"connection"`
	Namespace  string `json:"namespace"`
	Source     string `json:"source"` // Iceberg table name inside Namespace
	// TaskConfig is the sync task config, a string map like Pinot's task
	// configs: schedule, schedule.paused, enabled, continueOnFileError, ...
	TaskConfig map[string]string `json:"taskConfig"`
	// SchemaJSON and TableConfigJSON are the Pinot schema and table config
	// floe created the table with (JSON documents, stored as given).
	SchemaJSON      []byte `json:"schemaJson,omitempty"`
	TableConfigJSON []byte `json:"tableConfigJson,omitempty"`
	// FieldIDs binds each Pinot column to the Iceberg field id it reads,
	// so a column keeps reading its field when the field is renamed. The
	// watcher records it (and SchemaJSON, when the schema evolves) at the
	// start of a run; nil: columns bind by name (schema/doc.go, evolution).
	FieldIDs  map[string]int `json:"fieldIds,omitempty"`
	CreatedAt time.Time      `json:"createdAt"`
	UpdatedAt time.Time      `json:"updatedAt"`
}

// Checkpoint is the last Iceberg snapshot fully reflected in Pinot and the
// file→segment map that describes what Pinot holds for the table.
type Checkpoint struct {
	Table            string `json:"table"`
	SnapshotID       int64  `json:"snapshotId"`
	SequenceNumber   int64  `json:"sequenceNumber"`
	MetadataLocation string `json:"metadataLocation"`
	TableUUID        string `json:"tableUuid"`
	// SchemaID is the Iceberg schema the committing run read the snapshot
	// with and brought Pinot in line with: the table's current schema,
	// which a change committed without data makes newer than the snapshot's.
	SchemaID int `json:"schemaId"`
	// Files maps an Iceberg data file path to what Pinot holds for it.
	Files map[string]FileState `json:"files"`
	// SnapshotFileCounts: data files live per snapshot id ingested.
	SnapshotFileCounts map[int64]int `json:"snapshotFileCounts,omitempty"`
	CommittedAt        time.Time     `json:"committedAt"`
	// LeaseToken is the fencing token of the run that committed it.
	LeaseToken int64 `json:"leaseToken"`
	// Backfill is set while a run that only adds files is part-way
	// through: Files already holds the batches it committed (Pinot serves
	// them) while SnapshotID is still the last snapshot fully reflected.
	Backfill *Backfill `json:"backfill,omitempty"`
	// Rows is the sum of the files' rows: what Pinot serves for the table
	// (kept by the committing run, so summaries need not read the files).
	Rows int64 `json:"rows,omitempty"`
}

// Backfill is the progress of a run that commits in batches.
type Backfill struct {
	// SnapshotID and MetadataLocation are the snapshot the run works towards.
	SnapshotID       int64  `json:"snapshotId"`
	MetadataLocation string `json:"metadataLocation"`
	// FilesDone of FilesTotal data files of the plan are in Pinot.
	FilesDone  int `json:"filesDone"`
	FilesTotal int `json:"filesTotal"`
	// RunID is the run that committed the last batch.
	RunID string `json:"runId,omitempty"`
}

// CheckpointDelta is one change to a table's checkpoint.
type CheckpointDelta struct {
	// Header replaces every stored field but the file map (Header.Files is
	// ignored); the store sets LeaseToken, a zero CommittedAt and FileCount.
	Header Checkpoint
	// Set adds or replaces files; Delete removes files (Set wins when a
	// path is in both).
	Set    map[string]FileState
	Delete []string
}

// CheckpointSummary is a Checkpoint without its file map.
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

// Summary returns cp without its file map.
func (cp Checkpoint) Summary() CheckpointSummary {
	return CheckpointSummary{
		Table:            cp.Table,
		SnapshotID:       cp.SnapshotID,
		SequenceNumber:   cp.SequenceNumber,
		MetadataLocation: cp.MetadataLocation,
		TableUUID:        cp.TableUUID,
		SchemaID:         cp.SchemaID,
		FileCount:        len(cp.Files),
		CommittedAt:      cp.CommittedAt,
		LeaseToken:       cp.LeaseToken,
		Backfill:         cp.Backfill,
		Rows:             cp.Rows,
	}
}

// FileState is one data file's entry in the checkpoint.
type FileState struct {
	// DeleteFingerprint identifies the set of delete files applied when
	// the file's segments were built ("" when none).
	DeleteFingerprint string   `json:"deleteFingerprint,omitempty"`
	Segments          []string `json:"segments"`
	Rows              int64    `json:"rows"`
	SizeBytes         int64    `json:"sizeBytes,omitempty"`
	// Group is the key of the coalesced unit the file was built in, or of
	// the remapped group of a compaction's files that took over older
	// segments ("": the file is a unit on its own). Every member of a
	// coalesced unit lists the unit's segments, the members of a remapped
	// group share its segments out; the rows add up over the members.
	Group string `json:"group,omitempty"`
	// Partition is the file's canonical partition key ("" unpartitioned)
	// and DataSeq its data sequence number: the planner needs both to
	// find the files a new delete file applies to without re-reading
	// their manifests.
	Partition string `json:"partition,omitempty"`
	DataSeq   int64  `json:"dataSeq,omitempty"`
	// KeyBounds are the file's column bounds of the table's key fields
	// (identifier fields and equality delete fields) as its manifest
	// entry records them: the planner decides from them, without reading
	// the manifest again, whether an equality delete may remove a row of
	// the file.
	KeyBounds KeyBounds `json:"keyBounds,omitempty"`
}

// KeyBounds maps a field id to a data file's lower and upper bound of the
// field, in Iceberg's single-value serialization (nil: no bound).
type KeyBounds map[int][2][]byte

// RunStatus is the state of a run.
type RunStatus string

// Run states.
const (
	RunRunning   RunStatus = "RUNNING"
	RunCompleted RunStatus = "COMPLETED"
	RunFailed    RunStatus = "FAILED"
	RunSkipped   RunStatus = "SKIPPED" // e.g. lease held elsewhere
	// RunAbandoned: the replica running it died or lost its lease before it
	// could record an outcome; a later run or a restart marked it.
	RunAbandoned RunStatus = "ABANDONED"
)

// RunKind is what a run did to Pinot. A run that does several things
// takes the first kind of this list that applies: schema-rebuild,
// replace, merge, remap, backfill, append, none.
type RunKind string

// Run kinds.
const (
	// RunAppend: the run only added files, in one commit.
	RunAppend RunKind = "append"
	// RunBackfill: the run only added files, committed batch by batch
	// (Pinot serves each batch as it lands), or resumed such a run.
	RunBackfill RunKind = "backfill"
	// RunReplace: the run took something out of Pinot (dropped files,
	// files rebuilt for new deletes, an overwrite, a rewritten unit,
	// orphans of a dead run) in one atomic replacement.
	RunReplace RunKind = "replace"
	// RunMerge: the run packed small units of the checkpoint again into
	// larger ones (their rows rebuilt, not new) in one atomic
	// replacement, besides adding its new files.
	RunMerge RunKind = "merge"
	// RunRemap: a compaction's new files took over the segments of the
	// files they replaced; nothing was built or pushed.
	RunRemap RunKind = "remap"
	// RunSchemaRebuild: a schema change rebuilt every segment of the
	// table under new names in one atomic replacement.
	RunSchemaRebuild RunKind = "schema-rebuild"
	// RunNone: the new snapshot changed nothing Pinot serves (its
	// metadata moved); only the checkpoint moved.
	RunNone RunKind = "none"
)

// Run is one sync attempt of one table.
type Run struct {
	ID             string    `json:"id"`
	Table          string    `json:"table"`
	Trigger        string    `json:"trigger"` // schedule, first (a table's first run, at once), manual, notify (a commit was announced)
	Status         RunStatus `json:"status"`
	StartedAt      time.Time `json:"startedAt"`
	FinishedAt     time.Time `json:"finishedAt,omitempty"`
	FromSnapshotID int64     `json:"fromSnapshotId,omitempty"`
	SnapshotID     int64     `json:"snapshotId,omitempty"`
	// Kind is what the run did to Pinot, set once it planned (RunKind;
	// its log says why). A record without a kind is a run that never
	// planned or was written before runs carried their kind and counts:
	// FilesAdded … RowsRebuilt are then unknown, not zero. A run that
	// failed counts what it converted before it stopped; only what a
	// completed run counts is certainly in Pinot.
	Kind RunKind `json:"kind,omitempty"`
	// FilesAdded: data files new to Pinot that the run converted.
	FilesAdded int `json:"filesAdded,omitempty"`
	// FilesRebuilt: data files Pinot already held that the run converted
	// again (a merge, a unit regrouped, new deletes, a schema rebuild).
	// Files converted = FilesAdded + FilesRebuilt.
	FilesRebuilt int `json:"filesRebuilt,omitempty"`
	// FilesRemoved: data files no longer in the snapshot whose rows the
	// run took out of Pinot.
	FilesRemoved int `json:"filesRemoved,omitempty"`
	// FilesRemapped: data files a compaction wrote that took over the
	// segments of the files they replaced, with nothing built.
	FilesRemapped int `json:"filesRemapped,omitempty"`
	// LiveFiles: the data files of the snapshot the run synced.
	LiveFiles int `json:"liveFiles,omitempty"`
	// FilesDiscovered is LiveFiles under its first name, still written
	// for readers of older records; it never counted files converted.
	FilesDiscovered int `json:"filesDiscovered"`
	// FilesFailed: data files that could not be converted (only under
	// continueOnFileError does the run still complete).
	FilesFailed int `json:"filesFailed"`
	// SegmentsGenerated: segments built and pushed to Pinot.
	SegmentsGenerated int `json:"segmentsGenerated"`
	// SegmentsDeleted: segments the run's atomic replacement took out of
	// Pinot (replaced by the new ones, or dropped with their files).
	SegmentsDeleted int `json:"segmentsDeleted"`
	// Rows: rows written into segments, RowsAdded + RowsRebuilt.
	Rows int64 `json:"rows"`
	// RowsAdded: rows of the files added.
	RowsAdded int64 `json:"rowsAdded,omitempty"`
	// RowsRebuilt: rows of the files rebuilt, which Pinot served before
	// the run and serves again (not new rows).
	RowsRebuilt int64 `json:"rowsRebuilt,omitempty"`
	// Bytes: bytes of the data files converted.
	Bytes int64  `json:"bytes"`
	Error string `json:"error,omitempty"`
	Owner string `json:"owner,omitempty"`
	// Builders counts the units each replica built for the run.
	Builders map[string]int `json:"builders,omitempty"`
	// SchemaChange says what the run did about a change of the Iceberg
	// schema: the kind (add-columns, rebuild, none for renames and
	// bindings only) and every change found. A change floe cannot apply
	// fails the run, and Error says what the operator can do.
	SchemaChange string `json:"schemaChange,omitempty"`
	// Log holds the run's own log lines (at most MaxRunLogLines, scrubbed); see RunLogLine.
	Log []RunLogLine `json:"log,omitempty"`
}

// Lease is a table's run lease. Token is the fencing token.
type Lease struct {
	Table     string    `json:"table"`
	Owner     string    `json:"owner"`
	Token     int64     `json:"token"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// inUseErr is DeleteConnection's refusal, naming the tables (sorted).
func inUseErr(conn string, tables []string) error {
	slices.Sort(tables)
	return fmt.Errorf("delete connection %q: %w by table(s) %s; delete them first", conn, ErrInUse, strings.Join(tables, ", "))
}

// noConnectionErr is CreateBoundTable's refusal.
func noConnectionErr(t Table) error {
	return fmt.Errorf("create table %q: connection %q: %w (deleted or never stored)", t.Name, t.Connection, ErrNoConnection)
}
