// Package parquettest writes Parquet fixtures for tests with parquet-go.
package parquettest

import (
	"os"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// WriteFile writes rows to a Parquet file at path (struct tags give the
// schema) and returns path; any error fails the test.
func WriteFile[T any](t testing.TB, path string, rows []T, opts ...parquet.WriterOption) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
