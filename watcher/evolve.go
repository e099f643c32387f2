package watcher

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
	"github.com/floehq/floe/watcher/plan"
)

// rebuildFingerprint marks every checkpointed file changed in the
// checkpoint a schema rebuild plans from, so that the plan builds every
// live file again.
const rebuildFingerprint = "floe:schema-rebuild"

// evolveSchema brings the table's Pinot schema in line with the table's
// current schema (readSchema), following schema/doc.go's evolution
// policy, before anything is planned or built. A schema change committed
// without data (Spark's ALTER TABLE, a metadata-only commit) is applied
// by the next run whether or not a snapshot came with it:
//   - None: Pinot keeps its schema; bindings (a renamed field read by id)
//     are recorded in the table record.
//   - AddColumns: the schema is pushed (added columns, relaxed notNull),
//     Pinot's servers are asked to reload their segments (old rows answer
//     null, or the column's default null value on Pinot before 0.12), and
//     the table record takes the schema and bindings; the run goes on.
//   - Rebuild: the schema is pushed and recorded, and the run rebuilds
//     every segment of the table under new names (unitBases), swapped in
//     one atomic replace.
//   - Fail: the run fails with what changed and what the operator can do.
//
// It returns the checkpoint to plan from: cp, or for a rebuild cp with
// every file marked changed. The run's record says what was done
// (Run.SchemaChange). Every write passes the run's lease guard.
func (r *runner) evolveSchema(ctx context.Context, src *Source, uuid string, cp checkpoint.Checkpoint) (checkpoint.Checkpoint, error) {
	snap := src.Table.CurrentSnapshot()
	if snap == nil {
		return cp, nil // nothing to build
	}
	next := readSchema(src.Table)
	current, tc, err := r.pinotModel()
	if err != nil {
		return cp, err
	}
	old, fieldIDs := r.evolveFrom(src, uuid, cp, next, current)
	ch, err := schema.Evolve(old, next, current, fieldIDs, schema.Options{Name: current.Name})
	if err != nil {
		return cp, fmt.Errorf("evolve Pinot schema of %s: %w", r.table.Name, err)
	}
	if ch.Kind == schema.Fail {
		return cp, fmt.Errorf("table %s: Iceberg schema %d: %w", r.table.Name, next.ID, ch.Err())
	}
	r.noteSchemaChange(ch, next.ID)
	ctx = pinot.WithGuard(ctx, r.keeper.guard)
	if ch.Schema != nil {
		r.phase("schema")
		if err := r.w.deps.Uploader.EnsureTable(ctx, ch.Schema, tc); err != nil {
			return cp, fmt.Errorf("update Pinot schema of %s: %w", r.table.Name, err)
		}
	}
	if ch.Kind == schema.AddColumns {
		if err := r.reload(ctx); err != nil {
			return cp, err
		}
	}
	if err := r.recordSchema(ctx, ch); err != nil {
		return cp, err
	}
	if ch.Kind != schema.Rebuild {
		return cp, nil
	}
	r.rebuildTag = "s" + strconv.Itoa(next.ID)
	if cp, err = r.wholeCheckpoint(ctx); err != nil { // every file is rebuilt
		return cp, err
	}
	return markAllChanged(cp), nil
}

// noteSchemaChange records in the run, and logs, a change the run acts
// on: any kind but None, a rename, a column bound to another field. The
// first recording of a table's bindings, and what stays as it was (a
// column fed by no field), are not news.
func (r *runner) noteSchemaChange(ch schema.Change, schemaID int) {
	rebound := r.table.FieldIDs != nil && !maps.Equal(ch.FieldIDs, r.table.FieldIDs)
	if ch.Kind == schema.None && len(ch.Renamed) == 0 && !rebound {
		return
	}
	r.run.SchemaChange = ch.Kind.String() + ": " + ch.Reason
	r.w.log.Info("Iceberg schema changed", slog.String(attrTable, r.table.Name), slog.Int("schema_id", schemaID),
		slog.String("change", ch.Kind.String()), slog.String("reason", ch.Reason))
}

// readSchema is the schema a run reads the table's current snapshot with:
// the table's current schema, as every Iceberg reader of the table does
// (a column dropped without a data commit is gone, a renamed one has its
// new name), not the schema the snapshot was written with.
func readSchema(tbl *table.Table) *iceberg.Schema {
	return tbl.Schema()
}

// evolveFrom returns the Iceberg schema the Pinot table was last brought
// in line with, and the bindings to trust: the schema the checkpoint
// records (checkpoint.Checkpoint.SchemaID: the schema the run that wrote
// it read with) while the checkpoint is of this very table; else (a first run,
// a checkpoint of no snapshot, a table dropped and created again) the
// newest schema that has a field for every Pinot column by name. The
// recorded bindings hold unless the table was created again (new UUID):
// its field ids are new, so its columns bind by name again.
func (r *runner) evolveFrom(src *Source, uuid string, cp checkpoint.Checkpoint, next *iceberg.Schema, current *spec.Schema) (*iceberg.Schema, map[string]int) {
	var fieldIDs map[string]int
	if cp.MetadataLocation == "" || cp.TableUUID == uuid {
		fieldIDs = r.table.FieldIDs
	}
	if cp.MetadataLocation != "" && cp.TableUUID == uuid && cp.SnapshotID != 0 {
		for _, s := range src.Table.Metadata().Schemas() {
			if s.ID == cp.SchemaID {
				return s, fieldIDs
			}
		}
	}
	schemas := slices.Clone(src.Table.Metadata().Schemas())
	slices.SortFunc(schemas, func(a, b *iceberg.Schema) int { return b.ID - a.ID })
	for _, s := range schemas {
		if s.ID <= next.ID && namesEvery(s, current) {
			return s, fieldIDs
		}
	}
	return next, fieldIDs
}

// namesEvery reports whether s has a field for every Pinot column, by
// name (dots reach flattened struct fields).
func namesEvery(s *iceberg.Schema, p *spec.Schema) bool {
	for _, f := range p.Fields {
		if _, ok := s.FindFieldByName(f.Name); !ok {
			return false
		}
	}
	return true
}

// reload asks Pinot's servers to reload the table's segments with the
// schema just pushed, when the sink has servers.
func (r *runner) reload(ctx context.Context) error {
	rl, ok := r.w.deps.Uploader.(pinot.Reloader)
	if !ok {
		return nil
	}
	if err := rl.ReloadSegments(ctx, r.table.Name); err != nil {
		return fmt.Errorf("reload Pinot segments of %s for the new schema: %w", r.table.Name, err)
	}
	return nil
}

// recordSchema stores the evolved schema and the bindings in the table
// record (compare-and-set, under a renewed lease), when they changed; the
// run builds with the stored record from then on, as do the builders of
// other replicas.
func (r *runner) recordSchema(ctx context.Context, ch schema.Change) error {
	sj := r.table.SchemaJSON
	if ch.Schema != nil {
		var err error
		if sj, err = json.Marshal(ch.Schema); err != nil {
			return fmt.Errorf("encode Pinot schema of %s: %w", r.table.Name, err)
		}
	}
	if bytes.Equal(sj, r.table.SchemaJSON) && maps.Equal(ch.FieldIDs, r.table.FieldIDs) {
		return nil
	}
	if err := r.keeper.guard(ctx, pinot.Write{Op: "record evolved schema", Table: r.table.Name, Destructive: true}); err != nil {
		return err
	}
	t, err := r.w.UpdateTable(ctx, r.table.Name, func(t *checkpoint.Table) error {
		t.SchemaJSON, t.FieldIDs = sj, maps.Clone(ch.FieldIDs)
		return nil
	})
	if err != nil {
		return fmt.Errorf("record evolved schema of %s: %w", r.table.Name, err)
	}
	r.table = t
	return nil
}

// markAllChanged returns cp with every file marked as built for other
// deletes, so the planner rebuilds every live file (and drops the others)
// in one replacing plan.
func markAllChanged(cp checkpoint.Checkpoint) checkpoint.Checkpoint {
	files := make(map[string]checkpoint.FileState, len(cp.Files))
	for path, fs := range cp.Files {
		fs.DeleteFingerprint = rebuildFingerprint
		files[path] = fs
	}
	cp.Files = files
	return cp
}

// unitBases picks the name each unit's segments start with
// (segmentBases). A run that rebuilds the table for a schema change names
// every unit's segments after the new schema (key_s<schema id>, then a
// generation when Pinot's lineage holds those names): the rebuilt
// segments replace the old ones, which hold the same unit keys, and a
// retry of the run reuses the names.
func (r *runner) unitBases(units []plan.Unit, hidden map[string]bool) map[string]string {
	if r.rebuildTag == "" {
		return segmentBases(units, hidden)
	}
	out := make(map[string]string, len(units))
	for _, u := range units {
		key := u.Key + "_" + r.rebuildTag
		for gen := 0; ; gen++ {
			if base := generationBase(key, gen); !holdsNames(hidden, base, key) {
				out[u.Key] = base
				break
			}
		}
	}
	return out
}
