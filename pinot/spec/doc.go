// Package spec is floe's model of Apache Pinot's schema and table config:
// plain JSON types (FieldSpec, DataType, Schema, TableConfig) with the
// rules Pinot applies to them (stored types, fixed widths, default null
// values). It imports the standard library only, so the segment writer
// and schema inference link no HTTP or cloud client; the pinot package
// sends these types to a controller.
package spec
