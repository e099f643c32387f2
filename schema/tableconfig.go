package schema

import (
	"maps"
	"strconv"

	"github.com/floehq/floe/pinot/spec"
)

// DefaultSchedule is the sync schedule of a new table: every 5 minutes, in
// Pinot's Quartz form.
const DefaultSchedule = "0 */5 * * * ?"

// Sync task config keys under task.taskTypeConfigsMap.ExternalTableSyncTask.
const (
	TaskKeySchedule   = "schedule"
	TaskKeyEnabled    = "enabled"
	TaskKeySource     = "sourceTable"
	TaskKeyConnection = "connection"
)

// TableOptions steer TableConfig.
type TableOptions struct {
	// Schedule is the sync cron; empty means DefaultSchedule.
	Schedule string
	// Disabled writes enabled=false.
	Disabled bool
	// Source and Connection, when set, are recorded in the task config.
	Source     TableName
	Connection string
	// Replication is the segment replica count; 0 means 1.
	Replication int
	// Task holds further sync task config keys (they win over the above).
	Task map[string]string
}

// TableConfig returns the OFFLINE table config for an inferred schema:
// the raw table name and time column from res, column-based null handling
// on, every column dictionary-encoded (what floe's segment builder writes)
// with no extra indexes except a range index on the time column, APPEND
// batch ingestion, and floe's sync task block.
func TableConfig(res *Result, opts TableOptions) *spec.TableConfig {
	repl := opts.Replication
	if repl <= 0 {
		repl = 1
	}
	tc := &spec.TableConfig{
		TableName: res.Schema.Name,
		TableType: "OFFLINE",
		SegmentsConfig: spec.SegmentsConfig{
			TimeColumnName: res.TimeColumn,
			Replication:    strconv.Itoa(repl),
		},
		Tenants: map[string]string{},
		TableIndexConfig: spec.TableIndexConfig{
			LoadMode:             "MMAP",
			InvertedIndexColumns: []string{},
			RangeIndexColumns:    []string{},
			NoDictionaryColumns:  []string{},
			SortedColumn:         []string{},
			NullHandlingEnabled:  true,
		},
		Metadata: map[string]any{},
		IngestionConfig: &spec.IngestionConfig{BatchIngestionConfig: &spec.BatchIngestionConfig{
			SegmentIngestionType: "APPEND", SegmentIngestionFrequency: "DAILY",
		}},
		Task: &spec.TaskConfig{TaskTypeConfigsMap: map[string]map[string]string{
			spec.SyncTaskType: syncTaskConfig(opts),
		}},
	}
	if res.TimeColumn != "" {
		tc.TableIndexConfig.RangeIndexColumns = []string{res.TimeColumn}
	}
	return tc
}

func syncTaskConfig(opts TableOptions) map[string]string {
	sched := opts.Schedule
	if sched == "" {
		sched = DefaultSchedule
	}
	m := map[string]string{TaskKeySchedule: sched, TaskKeyEnabled: strconv.FormatBool(!opts.Disabled)}
	if opts.Source.Table != "" {
		m[TaskKeySource] = opts.Source.String()
	}
	if opts.Connection != "" {
		m[TaskKeyConnection] = opts.Connection
	}
	maps.Copy(m, opts.Task)
	return m
}
