// Package checkpoint records what floe has done: catalog connections,
// external tables with their sync task config, the checkpoint of each
// table (the last Iceberg snapshot fully reflected in Pinot plus the
// file→segment map), run history, and per-table run leases with fencing
// tokens.
//
// The Store interface (store.go) has three implementations with the same
// semantics, proven by the shared suite in checkpointtest:
//
//   - Redis (NewRedis): several floe replicas share one Redis server.
//   - Bolt (OpenBolt): one bbolt file, one process; single-node setups.
//   - Memory (NewMemory): in-process, for fast unit tests.
//
// # Invariants
//
// Tests cite these numbers.
//
//   - C1 A checkpoint commits only while the committing lease (table,
//     owner, token) is the table's current, unexpired lease; otherwise
//     CommitCheckpoint fails with ErrFenced and changes nothing, so the
//     previous checkpoint stays intact (architecture I1, I2, I4).
//   - C2 An expired lease is gone: it can no longer commit, renew or
//     release (ErrFenced), even if nobody has taken the table since.
//   - C3 Every lease acquired by a new holder (free, released or expired
//     before) gets a token strictly larger than every token the table ever
//     had, across restarts and DeleteTable: the per-table fencing counter
//     is never reset or deleted. Re-acquiring by the current holder keeps
//     its token and extends the expiry.
//   - C4 A commit replaces the header and the whole file map at once:
//     readers see the old checkpoint or the new one, never a mix; files
//     absent from the new map are gone.
//   - C5 At most one holder per table: concurrent AcquireLease calls for a
//     held or free table have exactly one winner (ErrLeaseHeld for the rest).
//   - C6 Run history keeps the RunHistoryLimit newest runs per table,
//     ordered by StartedAt (microseconds) then ID, both descending;
//     PutRun of an existing (Table, ID) replaces it.
//   - C7 DeleteTable removes the table, its checkpoint, files, runs and
//     lease in one step (ErrNotFound if the table did not exist, after
//     still removing any leftovers); only the fencing counter stays (C3).
//   - C8 Leases exist only for existing tables (AcquireLease: ErrNotFound).
//   - C9 CommitCheckpointDelta is C1 and C4 for a change: under the current
//     lease only, it replaces the header and writes and removes exactly the
//     files it names, all at once; readers see the checkpoint before or
//     after it. Its cost is the size of the change, not of the table.
//   - C10 The segment ledger (RecordSegments, ForgetSegments) changes only
//     under the table's current lease; SegmentTokens returns, per segment
//     name, the token of the lease that last recorded it. Runs record names
//     before they upload them, so a run holding an older token can see that
//     a newer run owns a segment (architecture I4).
//   - W1 (WorkQueue) A builder uploads a work item's segments only after
//     Confirm said it still holds the item and the item's lease is the
//     table's current lease; a reclaimed item or a fenced run uploads
//     nothing. Complete and Heartbeat by a builder that lost the item fail
//     with ErrFenced and change nothing.
//   - C11 Table records are revisioned: every table write (CreateTable,
//     PutTable, UpdateTable, and DeleteTable of a table that exists) takes
//     the next value of one store-wide table revision counter, so the
//     revisions of one table name only grow, across delete and re-create.
//     UpdateTable is compare-and-set: it writes only while the stored
//     revision is the caller's, else fails with ErrStale and writes
//     nothing; of two writers editing one read, exactly one wins.
//   - C12 Every table write is announced once, in revision order, with
//     consecutive revisions. WatchTables from revision n delivers n+1,
//     n+2, ... or shows that it cannot (its channel closes, or the next
//     change it delivers is not n+1): a reader never skips a change
//     without knowing. SnapshotTables reflects every write up to the
//     revision it returns. Together, a reader that applies a snapshot and
//     then the changes after it holds every table as stored (I8).
//   - C13 A table never outlives its connection. DeleteConnection deletes
//     only while no table names the connection (ErrInUse, naming them) and
//     CreateBoundTable creates only while the connection is stored
//     (ErrNoConnection), each checking in the step that writes (Memory: its
//     lock; Bolt: one transaction; Redis: one script that reads the table
//     records, so deleting a connection costs one pass over the tables). Of
//     a delete and a create racing on one connection exactly one succeeds.
//     CreateTable and PutTable do not check: they are for tests and tools.
//   - C14 (FileIndex: every store) A store that indexes file maps keeps
//     each table's index in the step of every commit, full or delta (Bolt:
//     its transaction; Redis: its script; Memory: its lock), so that after
//     it IndexedCheckpoint's counts, LookupFiles, SmallUnits and
//     UnreferencedSegments answer exactly as the whole map would. An index not written by the checkpoint's own commit (a store
//     last written by a release without indexes) is reported out of step
//     (IndexedCheckpoint's ok false; SmallUnits and UnreferencedSegments
//     fail with ErrIndexStale), and rebuilt from the stored map by the
//     next commit.
//
// Fields the store owns: CommitCheckpoint sets Checkpoint.LeaseToken to the
// lease's token and fills a zero CommittedAt with the current time; every
// table write sets Table.Revision (C11). All
// other timestamps are stored as given. Expiry is judged by the Redis
// server's clock (key TTL) for Redis and by the local clock for Bolt and
// Memory; Lease.ExpiresAt is the client's estimate.
//
// # Format versions
//
// Every stored JSON value carries "v", the FormatVersion that wrote it
// (format.go: FormatV1 adds the first layout; FormatV2 adds table
// revisions, the revision counter and the change announcements, and is
// what this build writes). Stores read versions
// 1..FormatCurrent and refuse newer ones with an error naming the record.
// A future layout change appends a version, keeps readers for the old ones
// and says what it adds.
//
// Rolling upgrades rest on this: while replicas of two releases share a
// store, each reads the other's records of a version it knows, and a
// replica of the older release refuses a newer record (its run fails
// with the error, nothing is written over the record) instead of
// misreading it. A change to what a field means that would make an older
// release act wrongly on a record takes a new version too. A checkpoint's
// "schemaId" changed meaning without one: it is the schema the run read
// with (the table's current one), where earlier releases wrote the
// snapshot's. An earlier release reading it after a column was dropped
// without a data commit may rebuild a file with the column's old values
// and write the snapshot's schema id back, which the next lag check of a
// newer replica sees as a pending change and rebuilds again (architecture,
// "Rolling upgrades"); a version would instead stop every run of the
// earlier release for the whole upgrade. internal/e2e's rolling-upgrade test builds the previous release
// from git history and checks both directions on a real redis-server.
//
// # Redis layout (FormatV2)
//
// {P} is the key prefix (RedisOptions.Prefix, default "floe:"); {t} a raw
// Pinot table name, {c} a connection name. Names are binary-safe but must
// be non-empty, at most 512 bytes and free of control characters.
//
//	key                           type     value
//	{P}v1:conns                   set      every connection name
//	{P}v1:conn:{c}                string   Connection JSON + "v"; secrets included
//	{P}v1:tables                  set      every table name
//	{P}v1:table:{t}               string   Table JSON + "v", "revision" first (below)
//	{P}v1:tablerev                string   integer, the last table revision (C11)
//	{P}v1:tablechanges            stream   one entry per table write, id "{revision}-0":
//	                                       "name" and "table" (the record as stored)
//	                                       or "deleted" "1"; MAXLEN ~1000
//	{P}v1:checkpoint:{t}          string   checkpoint header JSON (below)
//	{P}v1:files:{t}               hash     data file path → FileState JSON + "v"
//	{P}v1:staging:{t}:{nonce}     hash     file map being written (TTL 1h)
//	{P}v1:runs:{t}                hash     run ID → Run JSON + "v"
//	{P}v1:runorder:{t}            zset     run ID, score StartedAt unix µs
//	{P}v1:lease:{t}               hash     v, owner, token, expiresAt; PEXPIRE ttl
//	{P}v1:fence:{t}               string   integer, INCR on each new lease
//	{P}v1:segtokens:{t}           hash     segment name → fencing token (ledger)
//	{P}v1:observation:{t}         string   Observation JSON + "v" (the latest check)
//	{P}v1:staging:{t}:{nonce}:del set      file paths a delta removes (TTL 1h)
//	{P}v1:fidx-stamp:{t}          string   file index stamp JSON (C14; below)
//	{P}v1:fidx-segs:{t}           hash     segment name → count of entries listing it
//	{P}v1:fidx-units:{t}          hash     unit key → {"v","bytes","unsized","paths"}
//	{P}v1:fidx-small:{t}          zset     size key, score 0 (ordered by bytes)
//	{P}v1:staging:{t}:{nonce}:fidx-{segs,units,small,unitdel,smallout}
//	                              (TTL 1h) a commit's index change (below)
//	{P}v1:work                    stream   work items, field "item" = WorkItem JSON;
//	                                       consumer group "floe-builders"
//	{P}v1:workdone:{t}:{run}      list     WorkResult JSON of completed items (TTL 1h)
//
// (The key is P immediately followed by "v1:...", e.g. "floe:v1:table:orders".)
//
// The checkpoint header is the Checkpoint JSON without "files", plus
// "v" and "fileCount" (the count of the map the commit wrote; delta
// commits of releases before the file index did not keep it, so summaries
// count the file hash), and "backfill" while a batched run is part-way
// (Backfill):
//
//	{"v":1,"table":"orders","snapshotId":42,"sequenceNumber":7,
//	 "metadataLocation":"s3://…/00007-….metadata.json","tableUuid":"…",
//	 "schemaId":3,"fileCount":2,"snapshotFileCounts":{"41":1,"42":2},
//	 "committedAt":"2026-03-14T15:09:26.5Z","leaseToken":12}
//
// A FileState value: {"v":1,"deleteFingerprint":"…","segments":["s_0"],
// "rows":1000,"sizeBytes":4096,"group":"…","partition":"…","dataSeq":7,
// "keyBounds":{"1":["AAAAAAAAAAA=","5wMAAAAAAAA="]}}.
// "group" (the key of the coalesced unit the file was built in; every
// member lists the unit's segments, the unit's rows are on its first
// member or spread over its members; or, <table>_r…, the key of a group
// of files a compaction wrote that took over the segments of the files
// they replaced, which keep their names, shared out among the members
// (each segment listed by one), each member with its own rows:
// watcher/plan P11; an opaque key, so a build that predates remapping
// reads it as a coalesced unit), "partition" (the canonical partition key, "" unpartitioned),
// "dataSeq" (the data sequence number) and "keyBounds" (per key field id,
// the file's lower and upper bound in Iceberg's single-value
// serialization, base64; null for none) are optional additions within
// FormatV1, omitted when empty: a value without them reads as a file built
// on its own, and a checkpoint whose files lack "dataSeq" in a table of
// format 2 or later is planned with the full-state diff once, which writes
// them (watcher/plan). Reading a file map, both stores parse each value
// with a reader of exactly this layout (filedecode.go: plain-ASCII
// strings without escapes, integers, the keys above) and hand anything
// else to encoding/json, so both read the same values; the stored bytes
// are what encoding/json writes, unchanged within FormatV2.
//
// The file map is a hash so that GetCheckpointSummary never reads it and
// large tables are not one huge string. A commit first writes the new map
// into a private staging hash (pipelined HSETs of 1,000 entries, TTL 1h so
// an interrupted commit leaves nothing behind for long), then one Lua
// script checks the lease (owner and token), checks the staging hash holds
// exactly the expected number of entries, RENAMEs it over P v1:files:{t},
// PERSISTs it and SETs the header: C1 and C4 in one atomic step. A fenced
// commit deletes its staging hash. A delta commit stages the files it sets
// (hash) and removes (set) the same way, then one script checks the lease,
// HDELs, HSETs and SETs the header (C9).
//
// The file index (C14) is Bolt's (below) in four keys: the stamp
// {"v","leaseToken","committedAt","counts"} names the commit the index is
// in step with (it matches the header's leaseToken, committedAt and
// fileCount) and counts the map; fidx-segs counts, per segment name, the
// entries that list it (HINCRBY; a name at 0 is removed); fidx-units
// holds each unit's members under its unit key; fidx-small holds one
// member per unit whose members all record a size, the unit's size key,
// all with score 0, so ZRANGEBYLEX from the partition's prefix up to
// (exclusive) the prefix and 8 bytes of a size lists the partition's
// units under that size (unit and size keys are byte strings exactly as
// in Bolt). The lease holder computes what a commit changes in the index
// and stages it beside the files; the commit's script applies it after
// the lease check, with the map and the header. A full commit stages the
// whole index of its map (fidx-segs, -units, -small) and RENAMEs it over
// the stored keys with the file map (DEL when empty), and SETs the stamp.
// A delta commit reads, in one MULTI, the header, the stamp and the old
// entries of the paths it touches (with 1,000 deletions or more, after it,
// once it knows it edits), then the units those and its new entries
// belong to; it stages the reference count increments (segs),
// the units it rewrites (units) and deletes (unitdel), and the size keys
// it takes out (smallout) and puts in (small). Its script also checks that
// the header and the stamp are still the ones it read: if not, it applies
// the delta to the map and header and deletes the stamp (out of step),
// never an edit computed for another index. Scripts check every staged
// key holds the entries staged ("staging" otherwise, nothing committed),
// and cost the size of the change. A delta that finds the index out of
// step (a store last written by a release without it), or that takes out
// at least half of the map (as on Bolt: a compaction's remap), reads header,
// stamp and the whole map in a second MULTI and stages the whole index of
// the map it makes, which its script RENAMEs in. Staging goes eight
// chunks of 1,000 entries per pipelined round trip, the script in the
// last one. DeleteTable deletes the four keys with the table's others
// (C7). IndexedCheckpoint reads header and stamp in one MULTI (never the
// map), LookupFiles HMGETs the map,
// UnreferencedSegments HMGETs fidx-segs in a MULTI with header and stamp,
// and SmallUnits is one script that reads header, stamp, the ranges of
// fidx-small and the units they name. A release without the index leaves
// the keys alone; its commits do not move the stamp, so the next commit
// of this one rebuilds the index.
//
// Work queue: one stream for every table; each replica's builders read it
// as consumers of one group (XREADGROUP), take over items idle longer than
// the claim timeout (XAUTOCLAIM) and keep their own items fresh by
// XCLAIMing them again (heartbeat). Confirm, Complete and Discard are
// scripts that first check XPENDING names the builder as the item's
// consumer; Confirm also compares the item's owner and token with the
// table's lease hash (W1). Complete XACKs and XDELs the item and RPUSHes
// the result to the run's list, which the lease holder BLPOPs.
//
// Leases: AcquireLease is one Lua script (table exists? lease held by
// another owner? else INCR the fence counter for a new holder, HSET the
// lease hash, PEXPIRE ttl). RenewLease and ReleaseLease are scripts that
// compare owner and token first. Expired leases vanish with their key.
// Runs: one script HSETs the run, ZADDs its order and trims the zset and
// hash to RunHistoryLimit. DeleteTable is one script. A run keeps its last
// MaxRunLogLines log lines ("log", optional within FormatV2).
//
// A Run record says what the run did, in fields optional within FormatV2
// (older builds ignore them; records without them still read): "kind"
// (RunKind: append, backfill, replace, merge, remap, schema-rebuild,
// none), "filesAdded", "filesRebuilt", "filesRemoved", "filesRemapped",
// "liveFiles", "rowsAdded" and "rowsRebuilt" ("rows" is their sum of
// added and rebuilt rows). "filesDiscovered" is the snapshot's live files
// under their first name, still written for older readers. A record
// without "kind" (a run that never planned, or one written before runs
// carried their kind) has unknown counts, not zero ones: readers show
// them as unknown and take its live files from "filesDiscovered", which
// always held them.
//
// Overviews: PutObservation is a script that SETs the observation only
// while the table record exists. TableOverviews sends, in one pipeline,
// one small script per table (EVALSHA) that returns the checkpoint header,
// the newest run (ZREVRANGE 0 0 of the run order, then HGET) and the
// observation: one round trip for any number of tables, while Redis serves
// other clients between two tables.
//
// Tables: every table write is one script. It computes the next revision
// (one above both the counter and the stream's newest entry, so losing the
// counter key cannot make revisions repeat), XADDs the change with the id
// "{revision}-0" (first, so a failing XADD writes nothing), SETs the
// counter and the record and updates the index. The record is the Table
// JSON with "revision" as its first field — {"revision":12,"v":2,
// "name":"orders",...} — so the compare-and-set script reads the stored
// revision with one pattern match (a FormatV1 record, without it, is
// revision 0). DeleteTable of an existing table announces {"deleted":"1"}
// in the same script that removes the table's keys. SnapshotTables reads
// the counter, then the index and the records (C12: a write in between
// shows with a larger revision); TableRevision GETs the counter, so a
// reader can tell whether a table list it holds is still current. WatchTables XREADs the stream from
// "{n}-0" (BLOCK 1s) and, while Redis is unreachable, retries from the
// last revision it delivered; it closes its channel when the next entry
// is not n+1 (trimmed away) so the reader re-reads a snapshot.
//
// Redis Cluster is not supported: scripts touch keys of several slots.
//
// # Bolt layout (FormatV2)
//
// Top-level buckets: "meta" (key "format" → {"v":N}, the version that
// created the file; key "tablerev" →
// 8-byte big-endian last table revision), "connections"
// (name → Connection JSON), "tables" (name → Table JSON), "checkpoints"
// (table → header JSON as above), "files" (one sub-bucket per table: path
// → FileState JSON), "runs" (one sub-bucket per table: run ID → Run JSON),
// "leases" (table → Lease JSON + "v"; expired when expiresAt ≤ now),
// "fences" (table → 8-byte big-endian counter), "segtokens" (one sub-bucket
// per table: segment name → 8-byte big-endian token), "observations"
// (table → Observation JSON + "v"), "lastruns" (table → its newest run's
// JSON, kept by PutRun so that overviews read one key per table; a file
// written before it existed falls back to the history), "fileindex" (one
// sub-bucket per table, C14: key "stamp" → {"v","leaseToken","committedAt",
// "counts"}, the commit the index is in step with and the FileCounts of
// the map; sub-bucket "segs": segment name → uvarint count of the entries
// that list it; "units": unit key → {"v","bytes","unsized","paths"}, the
// unit's members; "small": unit key with the unit's bytes as 8 bytes
// big-endian between partition and name → empty, one per unit whose
// members all record a size, so the units of a partition under a size are
// one range. A unit key is the partition's length as a uvarint, the
// partition, then "g" and the group or "f" and the one file's path). A
// file written before the index existed gets it at its next commit. Each Store method is one
// bbolt transaction, which gives C1, C4, C5 and C7 directly; a table write
// bumps "tablerev" in its transaction and, once committed, appends the
// change to an in-process log of the last 256 changes that WatchTables
// reads (C11, C12; Memory does the same). Only the process that holds the
// file sees its changes, which is all there is with Bolt.
//
// # Secrets at rest
//
// Connection records hold their secrets as given, unencrypted, in both
// layouts (the bbolt file is created mode 0600). A secret given as a
// reference, ${env:NAME} or ${file:/path}, is stored as that text and read
// only when the connection is opened (catalog.Policy), so the store never
// holds its value.
package checkpoint
