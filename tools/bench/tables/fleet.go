package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// tableName is the i-th table of the fleet.
func tableName(i int) string { return fmt.Sprintf("events_%04d", i) }

// schemaJSON and configJSON are documents of the size floe stores for a
// table of twenty columns (a few KiB each).
func schemaJSON(name string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"schemaName":%q,"dimensionFieldSpecs":[`, name)
	for c := range 16 {
		if c > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"dimension_column_%02d","dataType":"STRING","defaultNullValue":"null"}`, c)
	}
	b.WriteString(`],"metricFieldSpecs":[{"name":"amount","dataType":"DOUBLE"},{"name":"quantity","dataType":"LONG"}],`)
	b.WriteString(`"dateTimeFieldSpecs":[{"name":"event_time","dataType":"TIMESTAMP","format":"1:MILLISECONDS:TIMESTAMP","granularity":"1:MILLISECONDS"}]}`)
	return []byte(b.String())
}

func configJSON(name string) []byte {
	return []byte(fmt.Sprintf(`{"tableName":"%s_OFFLINE","tableType":"OFFLINE","segmentsConfig":{"timeColumnName":"event_time",`+
		`"replication":"1","segmentPushType":"REFRESH"},"tenants":{"broker":"DefaultTenant","server":"DefaultTenant"},`+
		`"tableIndexConfig":{"loadMode":"MMAP","invertedIndexColumns":["dimension_column_00","dimension_column_01"],`+
		`"noDictionaryColumns":["amount"],"nullHandlingEnabled":true},"metadata":{"customConfigs":{"floe.source":"lake.sales.%s"}},`+
		`"task":{"taskTypeConfigsMap":{"ExternalTableSyncTask":{"schedule":"0 */5 * * * ?","enabled":"true",`+
		`"continueOnFileError":"false","connection":"lake","source":"sales.%s"}}}}`, name, name, name))
}

// populate registers o.tables tables, each with a checkpoint of ten files,
// o.runsPerTable runs (the newest one failed, running or completed by the
// table's index) and an observation, on eight connections to the store.
func populate(ctx context.Context, s checkpoint.Store, o options, now time.Time) error {
	work := make(chan int)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := addTable(ctx, s, o, i, now); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for i := range o.tables {
		select {
		case work <- i:
		case err = <-errs:
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	return err
}

func addTable(ctx context.Context, s checkpoint.Store, o options, i int, now time.Time) error {
	name := tableName(i)
	tc := map[string]string{"schedule": "0 */5 * * * ?", "continueOnFileError": "false"}
	switch {
	case i%25 == 1:
		tc = map[string]string{"schedule.paused": "0 */5 * * * ?"}
	case i%50 == 2:
		tc["enabled"] = "false"
	}
	t := checkpoint.Table{Name: name, Connection: fmt.Sprintf("lake%d", i%8), Namespace: "sales", Source: name,
		TaskConfig: tc, SchemaJSON: schemaJSON(name), TableConfigJSON: configJSON(name), CreatedAt: now, UpdatedAt: now}
	if err := s.CreateTable(ctx, t); err != nil {
		return err
	}
	if err := commit(ctx, s, name, int64(1000*(i+1))); err != nil {
		return err
	}
	for r := range o.runsPerTable {
		run := checkpoint.Run{ID: fmt.Sprintf("run-%03d", r), Table: name, Trigger: "schedule", Status: checkpoint.RunCompleted,
			StartedAt: now.Add(time.Duration(r-o.runsPerTable) * 5 * time.Minute), FilesDiscovered: 3, SegmentsGenerated: 3,
			Rows: 30_000, Bytes: 3 << 20, Owner: "replica-1"}
		run.FinishedAt = run.StartedAt.Add(4 * time.Second)
		if r == o.runsPerTable-1 {
			switch {
			case i%10 == 0:
				run.Status, run.Error = checkpoint.RunFailed, "convert file s3://lake/sales/"+name+"/data/part-7.parquet: column amount: unexpected type"
			case i%20 == 3:
				run.Status, run.FinishedAt = checkpoint.RunRunning, time.Time{}
			}
		}
		if err := s.PutRun(ctx, run); err != nil {
			return err
		}
	}
	obs := checkpoint.Observation{LatestSnapshotID: int64(i + 1), LatestCommittedAt: now, CheckedAt: now}
	if i%4 == 0 {
		obs.SnapshotsBehind, obs.OldestUnsyncedAt = 1+i%5, now.Add(-time.Duration(i)*time.Second)
	}
	return s.PutObservation(ctx, name, obs)
}

func commit(ctx context.Context, s checkpoint.Store, name string, rows int64) error {
	l, err := s.AcquireLease(ctx, name, "bench", time.Minute)
	if err != nil {
		return err
	}
	files := map[string]checkpoint.FileState{}
	for f := range 10 {
		files[fmt.Sprintf("s3://lake/sales/%s/data/part-%d.parquet", name, f)] = checkpoint.FileState{
			Segments: []string{fmt.Sprintf("%s_%d_0", name, f)}, Rows: rows / 10, SizeBytes: 1 << 20}
	}
	cp := checkpoint.Checkpoint{Table: name, SnapshotID: 1, MetadataLocation: "s3://lake/sales/" + name + "/metadata/1.json",
		Files: files, Rows: rows}
	if err := s.CommitCheckpoint(ctx, l, cp); err != nil {
		return err
	}
	return s.ReleaseLease(ctx, l)
}
