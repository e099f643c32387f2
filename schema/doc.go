// Package schema maps an Iceberg table schema to a Pinot schema and OFFLINE
// table config, decides field types, applies user overrides, names tables,
// and says what an Iceberg schema change means for the Pinot table.
//
// It is the single source of truth for type mapping: Infer returns, per
// Pinot column, the Iceberg field (by id and path) that feeds it, its Pinot
// data type, single/multi value, and whether it is converted by value or
// written as JSON (Column). The segment converter applies exactly these
// (Iceberg type, Pinot data type) pairs; RuleFor is the table in code.
//
// # Type table
//
// Default Pinot type first; "also" lists what Override.DataType may choose.
// SV = single value, MV = multi value. Field type is the default one.
//
//	Iceberg              Pinot (default; also)          SV/MV  field type  notes
//	boolean              BOOLEAN                         SV    DIMENSION
//	int                  INT; also LONG                  SV    DIMENSION   LONG makes a later int→long promotion free
//	long                 LONG                            SV    DIMENSION
//	float                FLOAT; also DOUBLE              SV    METRIC      DOUBLE makes a later float→double promotion free
//	double               DOUBLE                          SV    METRIC
//	decimal(p,s)         BIG_DECIMAL                     SV    METRIC      exact; Pinot 1.5 strips trailing zeros (1.50 → 1.5)
//	date                 INT days (1:DAYS:EPOCH);        SV    DATE_TIME   exact either way
//	                     also TIMESTAMP (UTC midnight)
//	time                 LONG µs since midnight          SV    DIMENSION   exact
//	timestamp            TIMESTAMP ms; also LONG µs      SV    DATE_TIME   LOSSY by default: µs floored to ms;
//	timestamptz            (1:MICROSECONDS:EPOCH)                          LONG keeps every µs. tz: UTC instants
//	timestamp_ns         TIMESTAMP ms; also LONG ns      SV    DATE_TIME   LOSSY by default: ns floored to ms;
//	timestamptz_ns         (1:NANOSECONDS:EPOCH)                           LONG keeps every ns
//	string               STRING                          SV    DIMENSION   maxLength DefaultMaxLength (no cut at 512)
//	uuid                 STRING                          SV    DIMENSION   canonical lowercase 8-4-4-4-12 text
//	fixed[L], binary     BYTES                           SV    DIMENSION
//	geometry, geography  BYTES (WKB)                     SV    DIMENSION   query with ST_GeomFromWKB(col)
//	list<E>, E primitive MV of E's type (and its "also") MV    DIMENSION   Pinot keeps no null elements and no empty
//	                                                                       list (an empty list reads back as null)
//	list<decimal>        MV STRING                       MV    DIMENSION   exact plain decimal text; Pinot has no
//	                                                                       multi-value BIG_DECIMAL
//	list<struct|list|map|variant|unknown>  JSON          SV    DIMENSION
//	map<K,V>             JSON                            SV    DIMENSION
//	struct               JSON, or flattened              SV    DIMENSION   Override.Flatten: one column per child,
//	                                                                       named "parent.child", each by this table
//	variant              JSON                            SV    DIMENSION
//	unknown              no column                        -        -       always null; a later promotion adds it
//
// # Field types
//
// Defaults: date and timestamp types → DATE_TIME; float, double, decimal →
// METRIC; everything else → DIMENSION. An override may pick any field type
// the data type allows: INT and LONG any of DIMENSION, METRIC, DATE_TIME;
// FLOAT, DOUBLE, BIG_DECIMAL DIMENSION or METRIC; TIMESTAMP only DATE_TIME;
// STRING, BOOLEAN, JSON and BYTES only DIMENSION; multi-value only
// DIMENSION. Anything else fails with ErrIllegalOverride naming the column
// and what is allowed. If a data-type override makes the default field
// type illegal, the column falls back to the first allowed one.
//
// DATE_TIME columns get format and granularity from their unit: TIMESTAMP
// "1:MILLISECONDS:TIMESTAMP"/"1:MILLISECONDS"; others "1:<UNIT>:EPOCH" /
// "1:<UNIT>" where UNIT is the unit of the stored number (DAYS for date,
// MICROSECONDS or NANOSECONDS for timestamps kept as LONG, MICROSECONDS for
// time). Plain int and long columns made DATE_TIME default to DAYS and
// MILLISECONDS; "col=DATE_TIME:SECONDS" picks another unit.
//
// Time column: Options.TimeColumn if set (it must be DATE_TIME), none with
// Options.NoTimeColumn, else the first DATE_TIME column ranked by: not null
// before nullable, then timestamp types before date before others, then
// schema order.
//
// Null handling: a field is notNull when it and every struct above it are
// required. Schemas have enableColumnBasedNullHandling on; table configs
// have nullHandlingEnabled on.
//
// # Names
//
// Pinot column names are the Iceberg names, nested ones joined with '.'.
// Names with white space or a leading '$' are refused (ErrInvalidName), as
// are two fields that map to one name. Iceberg table names print and parse
// as catalog.namespace.table (ParseTableName) or namespace.table
// (ParseTableIdent); parts holding anything but ASCII letters, digits and
// '_' are backtick-quoted, a backtick inside doubled. The Pinot raw table
// name is TableName.PinotName: namespace levels and table, sanitized and
// joined with '_', plus an 8-hex-digit hash when sanitizing changed a part;
// never "__", '.', or white space.
//
// # Evolution policy (Evolve)
//
// At the start of every run the watcher compares the table's current
// schema (what every Iceberg reader of the table reads its current
// snapshot with) with the schema the Pinot table was last brought in line
// with (the schema the checkpoint records; for a first run, or a table
// dropped and created again, the newest schema that names every Pinot
// column). A change committed without data (Spark's ALTER TABLE … DROP or
// RENAME COLUMN writes a metadata file and no snapshot) is applied by the
// run the watcher's next lag check asks for (watcher.lagInterval, 30 s by
// default), not at the next data commit. Fields are matched by id: every Pinot column is bound to
// the Iceberg field id it reads (checkpoint.Table.FieldIDs, recorded by
// the first run; a column without a binding binds by name). The Pinot
// schema's own choices are kept: a column whose field kept its type stays
// exactly as it is (it may be a schema the user wrote), and for a field
// whose type changed, the column's data type, field type, time unit and
// flattened parents are what the user created it with (overrides
// included), as long as the field's new type allows them. A field that
// existed at the last sync but has no Pinot column (the user left it out)
// stays out.
//
//   - None: nothing Pinot sees changed (docs, decimal widening, a promotion
//     to the Pinot type the column already has, e.g. int→long on a column
//     created LONG, an optional child added to a JSON struct, an int→long
//     child inside JSON), or a field was renamed: the Pinot column keeps
//     its name and reads the field by id (Pinot cannot rename a column);
//     the run's schemaChange and the table's fieldIds say so. A column
//     whose field is gone since an earlier run stays and holds null.
//   - AddColumns: new optional fields without an initial default, fields
//     made optional (notNull dropped), unknown promoted to a real type.
//     floe pushes Change.Schema (backward compatible, so Pinot 0.11 and
//     later take it) and asks Pinot to reload the table's segments; old
//     segments are not rebuilt. On reload a Pinot server adds the column
//     to each old segment as a default column: from Pinot 0.12 on, with
//     null handling (floe's tables have it), with a null value vector, so
//     old rows answer NULL as Iceberg does; Pinot 0.11 gives them the
//     column's default null value ("null", 0, Integer.MIN_VALUE, ...) and
//     IS NULL does not match them. A reload runs in the background on the
//     servers: until it finishes, queries that name the new column may
//     miss old segments. Segments built from then on hold the column. A
//     local-directory sink stores the new schema.json; a reader loads the
//     old segments with it as Pinot's loader does.
//   - Rebuild: a new column with an initial default or required; a dropped
//     nullable column (Pinot cannot drop columns: it stays, holds null, and
//     every segment is rebuilt so no old value remains); a column now fed
//     by another field id (a field dropped and one of its name added); a
//     change inside a JSON column that changes its text (nested drop,
//     rename, float→double, added with a default). floe pushes the schema,
//     records it, and rebuilds every segment of the table under new names
//     (the unit key plus "_s<schema id>"), swapped in one atomic
//     replacement: a query sees the old segments or the rebuilt ones,
//     never a mix. The run builds the whole table before the swap.
//   - Fail: a Pinot data type, single/multi value, field type or format
//     change (int→long on an INT column, float→double on a FLOAT column,
//     list<int>→list<long>, any type change an incompatible schema update
//     allows), a restructuring (a field moved into or out of a struct),
//     dropping a notNull column, a new field taking the name of a column
//     that reads a renamed field. The run fails and changes nothing;
//     Change.Err names the table, column and field and says how to
//     proceed: rename the field back or restore the structure, or delete
//     the table in floe and the Pinot table and its schema and create the
//     table again (floe infers the schema from the current Iceberg schema
//     and loads the current snapshot; create it with a wider override,
//     e.g. col=LONG, to make a later promotion free). For a widening
//     (int→long, float→double) the error names that override for the
//     column, and the Pinot rule behind it: a schema update may only add
//     columns. Every later run fails the same way until then.
//
// A change that was half applied (schema pushed, run killed before its
// commit) is found again by the next run, which compares with the same
// checkpointed schema: pushes and reloads are idempotent, and a rebuild
// stays due until a run commits the new schema.
package schema
