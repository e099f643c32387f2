// Package plan decides what a run must build and drop so that Pinot holds
// the current Iceberg snapshot. It compares the data files live at the
// snapshot with the checkpoint's file→segment map, keyed by data file
// path and a fingerprint of the delete files that apply to each file, and
// turns the files to build into units (one file, or several small files of
// one partition coalesced) whose segment names are deterministic.
//
// # Algorithm
//
// A Planner plans in two ways that end in the same comparison (diff.go):
//
//  1. Fold (fold.go), when the checkpoint can be trusted and its snapshot
//     is an ancestor of the current one (table.AncestorsBetween). The live
//     data files are the checkpoint's files, minus those removed and plus
//     those added by each snapshot since, oldest first: for every snapshot
//     only the data manifests it wrote (added_snapshot_id) with added or
//     deleted entries, and in them only the entries whose snapshot id is
//     that snapshot. The live delete files are read from every delete
//     manifest of the current snapshot (all cached after their first
//     read). The fold is checked against the manifest list: its data
//     manifests' added and existing counts must add up to the folded file
//     count.
//  2. Full-state diff (full.go): every manifest of the current snapshot.
//
// The comparison computes each live file's delete fingerprint from the
// live delete files and the keys of its equality delete files (deletes.go,
// eqkeys.go), keeps files whose fingerprint is the
// checkpoint's, builds the others and drops checkpoint files no longer
// live. The fold recomputes the fingerprint only of checkpoint files a
// live delete file may reach or that had delete files; the rest are kept
// after one pass over the checkpoint's map, which a plan that only adds
// files returns as Plan.Keep without copying it. Files the fold knows only from the checkpoint and must rebuild (a
// new delete file applies to them, or their coalesced unit broke) are
// looked up in the current snapshot's data manifests whose sequence number
// range holds their data sequence number (resolve.go).
//
// # Remapping a compaction
//
// A replace snapshot (a compaction: rewrite_data_files bin-pack or sort,
// a catalog's automatic compaction) changes no row, only the files that
// hold them, so Pinot's segments of the files it
// rewrote already hold the new files' rows. Both ways read the snapshots
// since the checkpointed one the same way (remap.go): the chain of
// snapshots from the table metadata and, for each replace snapshot, the
// data files it removed and added, from the manifests it wrote (which a
// fold reads anyway; the full-state diff reads them as well, so both give
// the same plan, P1). Files one replace snapshot removed and added in one
// partition form a group, with every file of the checkpoint's units they
// touch, and groups sharing a file (a compaction of a compaction) join.
// A group that passes P11's checks is remapped: its new files take over
// its segments under a remap key, nothing is built or dropped, Pinot is
// not called. Any other group is planned as before (its old files
// dropped, its new files built) and Plan.RemapFallback says why. A
// replace that rewrites only delete files (rewrite_position_delete_files)
// gives the data files they apply to a new delete fingerprint: those are
// rebuilt, as for any delete change.
//
// # Invariants
//
// Tests cite these numbers.
//
//   - P1 Both ways give the same plan for the same table state and
//     checkpoint: the same units (keys, files, fingerprints, tasks), the
//     same kept and dropped files, the same remapped groups and remap
//     fallback reason, and the same Replacing. Only Incremental, Fallback,
//     Refresh (key bounds the fold had to look up, P2) and KeyIndex (the
//     full diff consults more files' indexes, P12) differ.
//
//   - P2 A data file's delete fingerprint covers every live delete file
//     that may delete one of its rows by the spec's rules, decided from
//     the file's path, partition, data sequence number and key bounds: a
//     deletion vector referencing the file with data seq ≤ the DV's
//     (position delete files then do not apply); a position delete file
//     with seq ≥ the file's that references the file, or references none,
//     has the file's partition and, when its manifest records file_path
//     bounds, bounds that hold the file's path; an equality delete file
//     with seq > the file's that has the file's partition or an
//     unpartitioned spec, and one of whose keys lies within the file's
//     lower and upper bounds of every compared equality field. Compared
//     are fields of int, long, date, time, timestamp (µs), string, binary,
//     fixed, uuid and boolean type; a field of another type, or without
//     bounds for the file, rules nothing out, and a delete with a null key
//     (or no compared field) may touch every file it reaches. So an
//     equality delete rebuilds only the files whose bounds hold one of its
//     keys, and a file no key can reach keeps its fingerprint and its
//     segments. Delete files that delete no row (record count 0) are not
//     live. The scan tasks of a built file carry exactly these delete
//     files. The fingerprint is the first 12 bytes of the SHA-256 of the
//     sorted tokens (pos:<path>, eq:<path>, dv:<path>@<offset>), "" when
//     none apply.
//
//     Key bounds: a data file's bounds of the table's key fields (the
//     current schema's identifier fields and the equality field ids of
//     every live equality delete file) come from its manifest entry (data
//     manifests are then read with column statistics, of which only those
//     fields' bounds are kept) and are recorded in its checkpoint entry
//     (FileState.KeyBounds, about 50 bytes of JSON per file for one long
//     key), so the fold decides a checkpointed file without reading its
//     manifest.
//     A file recorded before an equality delete compared a field (a table
//     without identifier fields, its files built before its first
//     equality delete) is looked up in the manifests whose sequence number
//     range holds it, as files to rebuild are, and the plan returns its
//     bounds in Plan.Refresh for the run to record.
//     Equality delete keys are read once per delete file, decoded into a
//     sorted list cached by path (delete files are immutable) in the
//     manifest cache's budget (about 40 bytes per long key). The keys of
//     the delete files of one reach (a partition, or the table) that
//     compare the same fields are merged into one sorted list, each key
//     with its delete file (eqgroup.go), so deciding a file costs one
//     binary search per such group by the file's bounds of the first
//     compared field, then a check of the keys in range (their delete
//     file's sequence number, their other fields), however many delete
//     files have piled up. The design's numbers: no bytes per row (no
//     per-row index), about 50 bytes of checkpoint per file; false
//     positives are the keys inside a file's bounds that the file does
//     not hold: none for disjoint key ranges (a CDC table keyed by a
//     growing id, or files sorted by key) but for keys deleted before,
//     and every file for keys whose files all span the key range (random
//     keys, unsorted files), which the key index (P12) then rules out.
//
//   - P3 A partition key is "" for a file of an unpartitioned spec, else
//     "<spec id>/<field id>=<type>:<quoted value>,..." in spec order; two
//     files have the same key exactly when they are in the same partition
//     of the same spec.
//
//   - P4 The fold reads the current snapshot's manifest list, the manifest
//     lists of the snapshots since the checkpoint (each as far as P13
//     needs), the data manifests those
//     snapshots wrote with added or deleted entries (but those P15 leaves
//     unread), and the delete
//     manifests of the current snapshot. It reads no other manifest unless
//     it must rebuild a checkpointed file. Appends, overwrites and
//     replaces (compaction) without delete changes always fold. (The
//     full-state diff also reads the data manifests the replace snapshots
//     since the checkpoint wrote, for P11.)
//
//   - P5 The full-state diff runs, and Plan.Fallback says why, when: there
//     is no checkpointed snapshot; the table UUID changed (re-created);
//     the checkpointed snapshot is not an ancestor of the current one
//     (rollback, branch reset, expired history); a backfill's target
//     snapshot left the chain; the checkpoint lacks data sequence numbers
//     (in a table of format 2 or later) or partitions (in a table whose
//     specs are all partitioned), as checkpoints written before they were
//     recorded do; the fold's file count disagrees with the manifest list (a
//     unit failed under continueOnFileError, so a live file is missing);
//     a manifest the fold needs cannot be read; or rebuilding checkpointed
//     files would read more than half of the data manifests not yet cached
//     (a delete-heavy change, for which reading them all once is as cheap).
//
//   - P6 Units: a file of at least CoalesceBelowBytes is a unit on its
//     own, keyed <table>_<hash(path, fingerprint)> (the names floe always
//     gave single files); smaller files are packed per partition, sorted
//     by path, up to TargetSegmentBytes of data files per unit; a pack of
//     several files is keyed <table>_g<hash of its sorted (path,
//     fingerprint) pairs>. A checkpointed unit stays while all its members
//     are live and unchanged; when one changes or goes away, its remaining
//     members are packed again with the other files the run builds. Only
//     files the run must build are packed: a kept file moves only in a
//     merge (P10).
//
//   - P7 Manifests and manifest lists are cached by path (Iceberg never
//     rewrites them) within CacheBytes, least recently used first out, for
//     every table the Planner serves. Planning a snapshot whose manifests
//     are all cached reads no file.
//
//   - P8 Plan.Replacing is true exactly when a file is dropped or a unit
//     to build holds a file of the checkpoint (changed, a member of a
//     broken unit, or merged, P10); a plan that only adds files can be
//     pushed without a replacement.
//
//   - P9 DecodeUnit(EncodeUnit(u)) reads the same rows as u through
//     table.Scan.ReadTasks: data files and their position, equality and
//     deletion-vector delete files carry every field reading needs.
//
//   - P10 Merge: a checkpointed unit is small when all its files are
//     below CoalesceBelowBytes and together too; its tier is
//     floor(log_M(its bytes)) for M = MergeSmallUnits. When one tier of a
//     partition the run builds files of holds at least M small units that
//     the run leaves alone, and the files the run builds anyway come to at
//     most TargetSegmentBytes, the run rebuilds those units' files (tiers
//     by partition and tier, units by key, up to TargetSegmentBytes of
//     data files in all); they are packed (P6) among themselves, apart
//     from the run's other files, so a file that can no longer be read
//     fails the merge, never the run's new data. So a writer that adds a
//     few small files per snapshot leaves at most M small segments per
//     tier and partition, not one per run, and a file is rebuilt about
//     once per tier it climbs.
//     PlanIndexed finds the small units in a UnitIndex of the checkpoint
//     (the caller keeps it in step with the file map, entry by entry)
//     instead of a pass over every file, and plans the same.
//
//   - P11 Remap: a group of files that replace snapshots since the
//     checkpoint rewrote is remapped (Plan.Remaps: its old files leave
//     the checkpoint, its new files own the old files' segments, whose
//     names stay; nothing is built, dropped or pushed, Replacing is not
//     set by it) only when all of these hold, else it is rebuilt and
//     Plan.RemapFallback says why: the checkpointed snapshot is an
//     ancestor of the current one, of the same table, with no backfill
//     part-way; every file a replace removed was in the checkpoint or
//     added by an earlier replace, and every file of the group that is
//     gone was removed by a replace (no other snapshot changed the
//     group's rows); the group holds whole units of the checkpoint (a
//     compaction of part of a coalesced unit is rebuilt); its new files
//     are live and of one partition; every delete file that applies to a
//     new file (P2, sequence numbers included, so an equality delete
//     committed while a compaction that kept its starting sequence number
//     ran still applies) was committed by a replace snapshot or before the
//     checkpoint, and deletes a number of rows its manifest entry gives (a
//     deletion vector of the file, or a position delete file referencing
//     only the file; an equality delete or a partition-wide position
//     delete file cannot be counted without reading the file); and the
//     rows the checkpoint records for the old files equal the new files'
//     record counts less those deleted rows (a snapshot labelled replace
//     that changed rows fails this). A remapped group is recorded like a
//     coalesced unit, Group <table>_r<hash of its files and
//     fingerprints>, each file with its own rows, except that its new
//     files share its segments out (each segment listed by one of them,
//     in path order) instead of each listing all: a later change to any
//     of its files rebuilds the group from its live files under new
//     names (P6), retiring the union of their segments, and merges (P10)
//     size it like any unit.
//
//     Delete files: a replace snapshot that rewrites delete files
//     (rewrite_position_delete_files, position deletes rewritten as
//     deletion vectors, deletes dropped by a compaction) changes the
//     fingerprint of the data files they reach but no row. A checkpointed
//     file whose fingerprint changed keeps its segments, and records the
//     new fingerprint (Plan.Refresh), when: a delete file that reaches it
//     was added by a replace snapshot since the checkpoint; its delete
//     files now less those, plus the delete files replace snapshots
//     removed that reached it (by P2's rules), give the fingerprint it
//     recorded, so nothing but the rewrite changed what applies to it;
//     and every delete file so added or removed is counted by its manifest
//     entry alone (a deletion vector of the file, or a position delete
//     file referencing only it, by referenced_data_file or by file_path
//     bounds both equal to its path) and both sides delete the same number
//     of rows. Else it is rebuilt and Plan.RemapFallback says why (for the
//     first such file by path, with how many others).
//
//   - P12 Key index: when one of an equality delete's keys lies within a
//     data file's bounds (P2), the file's key index decides: the delete
//     applies to the file only if the index may hold one of those keys.
//     An index never misses a key the file holds (so no row a delete
//     removes is served), and is the same for the same file whichever way
//     and however often it is read, so fingerprints stay stable. A file's
//     index is the sorted, distinct 32-bit fingerprints (64-bit FNV-1a of
//     each key's length-prefixed comparable values, folded) of its rows'
//     values of the delete group's compared fields; rows with a null there
//     are left out (only a delete with a null key, which is compared with
//     nothing, can remove them). It is built on demand, the first time a
//     plan needs it, by reading only those columns of the data file (by
//     field id), then kept in the planner's cache (the manifest cache's
//     budget) and, when Options.KeyIndexDir is set (the watcher sets
//     <workDir>/_keyindex), in a file named by the SHA-256 of the data
//     file's path and the fields (keyindex_file.go: magic, version, name,
//     count, fingerprints, CRC-32; a file of another name, version or
//     checksum is rebuilt). A file whose index cannot be built (a column
//     without a field id or of an unexpected type, a read error) is
//     decided by its bounds, as before. The numbers: 4 bytes per row
//     (40 MB for 10 million rows, on local disk, nothing in the store);
//     a false positive (a key the file does not hold taken as held)
//     needs a fingerprint collision, about n/2^32 per probed key for a
//     file of n distinct keys (2.3e-6 for 10,000); a probe is one binary
//     search (about 14 comparisons for 10,000 keys). Plan.KeyIndex counts
//     the files consulted, the indexes built and the (file, delete) pairs
//     ruled out.
//
//   - P13 Head of a manifest list: writers list the manifests a snapshot
//     wrote before the ones it carries over, so the fold (and the remap's
//     read of a replace snapshot) reads a snapshot's list record by record
//     and stops once the manifests of that snapshot account for the files
//     its summary says it added and removed (added-data-files,
//     deleted-data-files, added-delete-files, removed-delete-files; a count
//     the summary leaves out is 0). Only the fields the planner uses are
//     decoded (a projection of the writer's schema: no partition
//     summaries). The current snapshot's list is cut short only when its
//     summary records total-delete-files 0 and a total-data-files, which
//     then checks the fold's live count in place of the whole list's
//     counts (P5); a rebuild of a checkpointed file reads the whole list.
//     A list of format 1 or 3, or of a snapshot without a summary, is
//     read whole; a list whose writer lists its own manifests elsewhere
//     is read to its end, so it costs what a whole read does and the plan
//     is the same. Plan.Fallback says so when the summary's total
//     disagrees with the fold.
//
//   - P14 Plans from an unread file map: PlanLazy plans from a
//     checkpoint's header, the counts of its file map and a store's index
//     of it (checkpoint.FileIndex), reading only the entries the plan
//     names: the files the snapshots since the checkpoint added or
//     removed, and the members of the small units of the partitions the
//     run builds (read by size from the index, P10). The counts stand in
//     for compareFold's pass over the map: it plans only when no
//     checkpointed file was built with deletes or lacks its data sequence
//     number or partition, and the snapshot has no live delete file, no
//     replace snapshot is folded, no backfill is part-way and no coalesced
//     unit lost a member; else it says why, and the caller plans from the
//     whole map. Where it plans, the plan is PlanIndexed's of the whole
//     map but for Keep, which it leaves nil (KeptFiles counts it); the
//     planner's tests compare the two on every plan (checkLazy).
//
//   - P15 Folds by difference: a snapshot that rewrites whole manifests (a
//     compaction, a copy-on-write overwrite or delete) writes the files it
//     removed as DELETED entries of manifests that list nothing live. When
//     the data manifests a snapshot wrote list every file live after it
//     (their added and existing counts add up to its total-data-files),
//     the fold takes the files it removed as the files live before it
//     that those manifests do not list, and leaves the manifests of
//     DELETED entries unread; the remap's history takes the same files.
//     It does so only where that is cheaper (the unread entries outnumber
//     the extra entries read plus a sixteenth of the live files compared)
//     and only where it can be checked: the difference must count the
//     summary's deleted-data-files, the snapshot must add no file that
//     was live before it, and every removed checkpointed file must record
//     its data sequence number and partition. Otherwise the manifests are
//     read (P4). Plan.FoldedByDifference counts such snapshots; the
//     planner's tests compare every such plan with the full-state diff,
//     which reads the DELETED entries. (A writer that dropped a manifest
//     without writing its files as DELETED would break P4 on both paths;
//     the difference would still see the removals, the full diff's remap
//     history not, so such a group is remapped on one and rebuilt on the
//     other, both checked by rows, P11.)
package plan
