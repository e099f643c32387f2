// Package watcher decides and runs syncs. For every external table it keeps
// a schedule (cron or Quartz, from the table's sync task config), fires a
// run when it is due or when an operator triggers one, and executes the run:
// take the table's lease, load the Iceberg table, diff the live data files
// against the checkpoint, build segments for new or changed files, swap
// them into Pinot atomically, then commit the checkpoint. Files a
// compaction rewrote take over the segments of the files they replaced
// when the planner's remap check holds (plan P11): that part of a run
// only commits the checkpoint (remap.go).
//
// Invariants (ARCHITECTURE.md; tests cite them):
//   - (I1) the checkpoint moves only after Pinot acknowledged every segment.
//   - (I2) a run killed at any point and run again leaves Pinot holding
//     exactly the snapshot's rows: segment names are deterministic, segments
//     already pushed by a dead run are reused, orphans are swapped out.
//   - (I4) at most one run per table at a time across replicas (the lease,
//     plus the fencing token checked by the checkpoint commit).
//   - (I5) pausing never interrupts a run in flight; resuming starts from the
//     checkpoint.
//   - (I6) a bad file fails its run (or only itself with continueOnFileError)
//     with an error naming it; other tables are not affected.
//   - (I8) once pause, disable or delete has answered, no run of that table
//     starts on any replica; a table without a checkpoint is due at once on
//     whichever replica learns of it first. Admission (admit.go) re-reads
//     the stored record after the lease and before any work; every path
//     that learns of a table applies a record only when it is newer, and
//     makes a table that starts being scheduled without a checkpoint due
//     at once (schedule_apply.go); announced changes reach every replica
//     as they happen, the periodic refresh catching anything missed
//     (schedule_watch.go).
//   - (I9) a replacing run streams into one open replacement: it opens the
//     replacement in Pinot before its first upload, with a To list named
//     from its units' keys and record counts; its units are built through
//     the work queue and uploaded as built (hidden until the end, local
//     disk bounded by the builders); it ends the replacement only when
//     every unit gave exactly its planned names, else reverts it and
//     builds whole under the next name generation (run_stream.go). A run
//     that dies with it open leaves it open; the next lease holder resumes
//     it when its plan is the same swap, else reverts it first and moves
//     the names it held to their next generation. A resumed replacement
//     builds only the units the dead run did not upload whole: a unit is
//     kept when Pinot holds every planned segment, recorded in the ledger
//     by an older lease (C10), with a CRC, the unit's files in its custom
//     map and the unit's rows (run_stream_resume.go). A run that only adds
//     files reverts every open replacement it finds before its first
//     upload, under the lease guard.
//
// Drain (drain.go), what SIGTERM does to `floe serve`:
//   - D1 once Drain began, no run starts on this replica (ErrDraining).
//   - D2 a run in flight either ends within the drain grace or is stopped
//     at a safe point, as at any cancellation (I2 holds), and records
//     FAILED naming ErrDraining: a drained replica leaves no run RUNNING,
//     so none is later marked ABANDONED on its account.
//   - D3 a run releases its lease as it returns, so another replica takes
//     the table on its next schedule tick, not after the lease TTL.
//   - D4 the run records buffered during a store outage are written before
//     Drain returns (or Drain says how many were not).
//
// Deletes at build time (build.go, build_deletes.go, build_deletefilter.go,
// build_directdeletes.go):
//   - B1 a data file with deletes yields exactly Iceberg's rows: the
//     delete files applied are those the plan attached to its scan task
//     (the planner's sequence-number and partition rules: an equality
//     delete applies to data files of a strictly smaller data sequence
//     number, a position delete to those of a smaller or equal one).
//     floe applies position deletes, deletion vectors and equality deletes
//     itself to the rows read without them (by floe's Parquet source when
//     the key fields feed Pinot columns that hold their values unchanged,
//     else by iceberg-go's scan); the scan applies every delete file floe
//     does not decode (a key type it does not compare, a nested key
//     field).
//   - B2 a replica fetches and decodes each delete file once while it
//     stays in its delete cache (DeleteCache, DefaultDeleteCacheBytes,
//     least recently used first out), whatever number of data files, units
//     and runs it applies to, local or claimed from the work queue; builds
//     that need a file another build is reading wait for that read.
//
// Observability: the watcher reports runs, phases, files, takeovers and lag
// through Metrics (metrics.go; an interface it owns, metrics.Registry
// implements it), and keeps each run's own log lines, INFO and above and
// scrubbed like its error, on the run record (runlog.go, checkpoint.Run.Log).
package watcher
