// Package notify syncs a table as soon as its source announces a commit,
// instead of waiting for the table's schedule.
//
// AWS announces Iceberg commits three ways, and teams route them to an SQS
// queue (directly, or through SNS):
//
//   - AWS Glue sends EventBridge "Glue Data Catalog Table State Change"
//     events (typeOfChange UpdateTable when metadata_location moves);
//   - Amazon S3 Tables' UpdateTableMetadataLocation calls reach EventBridge
//     through CloudTrail ("AWS API Call via CloudTrail", source
//     aws.s3tables);
//   - Amazon S3 sends Object Created events for each new metadata/*.metadata.json
//     file, as S3 notification JSON or EventBridge "Object Created".
//
// [Parse] reads all of them, raw or in an SNS envelope. A [Consumer]
// long-polls one queue and hands the events to the process's [Hub], which
// maps each to registered tables — by catalog, namespace and table for
// catalog events (Glue, S3 Tables), by the table location of the metadata
// file (from the table's checkpoint) for storage events — debounces them
// per table and asks the watcher for a run with trigger "notify"
// (watcher.Watcher.Notify). The webhook POST /api/v1/tables/{name}/notify,
// for catalogs without AWS events, goes through the same Hub.
//
// Notifications are best-effort: the table's schedule stays the backstop.
// A paused or disabled table ignores them; the lease keeps one run of a
// table in flight across replicas, and the watcher follows a run in flight
// with one more when a notification arrived during it.
//
// # Invariants (tests cite them)
//
//   - N1 A message is deleted only once it is handled: its events matched
//     and their tables' windows opened, or it is unrelated, or (unless the
//     queue keeps them for its dead-letter queue) malformed. A message whose
//     tables could not be read is released and delivered again; SQS's
//     visibility timeout gives each message to one replica at a time.
//   - N2 An event triggers exactly the tables whose source it names: a Glue
//     or S3 Tables event the tables of a connection of that kind (and, for
//     S3 Tables, that table bucket; for Glue, that region and catalog id
//     when the connection sets them) with that namespace and table; a
//     storage event the tables whose checkpoint lies under that location.
//     An event that names none, or cannot be read, triggers nothing and is
//     counted; no message crashes a consumer.
//   - N3 Notifications of one table less than Options.Debounce apart start
//     one run, at most Options.MaxDelay after the first.
//   - N4 A duplicate delivery is harmless: its run finds the checkpoint at
//     the announced snapshot and records nothing.
package notify
