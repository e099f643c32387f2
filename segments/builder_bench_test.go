package segments_test

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

// repeatSource returns pre-built batches: it measures the builder, not the
// source.
type repeatSource struct {
	batches []*segments.Batch
	n, i    int
}

func (s *repeatSource) Next(context.Context) (*segments.Batch, error) {
	if s.i >= s.n {
		return nil, io.EOF
	}
	b := s.batches[s.i%len(s.batches)]
	s.i++
	return b, nil
}
func (s *repeatSource) Close() error { return nil }

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchSchema() *spec.Schema {
	return &spec.Schema{Name: "bench", EnableColumnNullHandle: true, Fields: []spec.FieldSpec{
		{Name: "id", DataType: spec.Long, FieldType: spec.Metric, SingleValue: true},
		{Name: "price", DataType: spec.Double, FieldType: spec.Metric, SingleValue: true},
		{Name: "qty", DataType: spec.Int, FieldType: spec.Metric, SingleValue: true},
		{Name: "city", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true},
		{Name: "country", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true},
		{Name: "uid", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true},
		{Name: "ts", DataType: spec.Timestamp, FieldType: spec.DateTime, SingleValue: true, Format: "1:MILLISECONDS:TIMESTAMP", Granularity: "1:MILLISECONDS"},
		{Name: "tags", DataType: spec.String, FieldType: spec.Dimension},
	}}
}

// benchBatches builds distinct batches of size rows so values differ
// across the whole segment (uid stays unique).
func benchBatches(numBatches, size int) []*segments.Batch {
	out := make([]*segments.Batch, numBatches)
	for bi := range out {
		b := &segments.Batch{Rows: size, Columns: make([]segments.Vector, 8)}
		c := b.Columns
		for r := 0; r < size; r++ {
			g := bi*size + r
			c[0].Longs = append(c[0].Longs, int64(g))
			c[1].Doubles = append(c[1].Doubles, float64(g%100000)*0.01)
			c[2].Ints = append(c[2].Ints, int32(g%100))
			c[3].Bytes = append(c[3].Bytes, []byte(fmt.Sprintf("city-%d", g%5000)))
			c[4].Bytes = append(c[4].Bytes, []byte(fmt.Sprintf("country-%d", g%200)))
			c[5].Bytes = append(c[5].Bytes, []byte(fmt.Sprintf("%016x-%08x", uint64(g)*0x9E3779B97F4A7C15, g)))
			c[6].Longs = append(c[6].Longs, 1_700_000_000_000+int64(g)*10)
			if r == 0 {
				c[7].Offsets = append(c[7].Offsets, 0)
			}
			for k := 0; k < g%4; k++ {
				c[7].Bytes = append(c[7].Bytes, []byte(fmt.Sprintf("tag%d", (g+k)%64)))
			}
			c[7].Offsets = append(c[7].Offsets, int32(len(c[7].Bytes)))
		}
		out[bi] = b
	}
	return out
}

// BenchmarkBuild builds a 1,048,576-row, 8-column segment from in-memory
// batches per iteration.
func BenchmarkBuild(b *testing.B) {
	const size, n = 8192, 128
	batches := benchBatches(n, size)
	cfg := segments.Config{Schema: benchSchema(), TableName: "bench", SegmentName: "bench_0", TimeColumn: "ts",
		CreationTime: time.UnixMilli(1)}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		res, err := segments.Build(context.Background(), &repeatSource{batches: batches, n: n}, cfg, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Rows), "rows/op")
	}
	b.ReportMetric(float64(size*n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	// The test machines are shared; rows per CPU-second is the stable number.
	b.ReportMetric(float64(size*n)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heapsys-MiB")
}
