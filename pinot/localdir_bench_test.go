package pinot_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
)

// BenchmarkLocalDir_Upload is the cost of one upload to a table that
// already serves served segments: what a sync pays per segment it pushes
// to the local-directory sink, as the table grows.
func BenchmarkLocalDir_Upload(b *testing.B) {
	for _, served := range []int{100, 10000} {
		b.Run(fmt.Sprint(served), func(b *testing.B) {
			ctx := context.Background()
			d := pinot.NewLocalDir(b.TempDir())
			if err := d.EnsureTable(ctx, &spec.Schema{Name: "t"}, &spec.TableConfig{TableName: "t", TableType: "OFFLINE"}); err != nil {
				b.Fatal(err)
			}
			tar := filepath.Join(b.TempDir(), "seg.tar.gz")
			if err := os.WriteFile(tar, []byte("tarball"), 0o644); err != nil {
				b.Fatal(err)
			}
			var from []string
			for i := range served {
				from = append(from, fmt.Sprintf("t_%040d_0", i))
			}
			// One replacement serves them all (an empty From list), as a
			// first sync of a large table does.
			id, err := d.StartReplace(ctx, "t", nil, from)
			if err != nil {
				b.Fatal(err)
			}
			for _, n := range from {
				if err := d.Upload(ctx, "t", pinot.Segment{Name: n, TarPath: tar}); err != nil {
					b.Fatal(err)
				}
			}
			if err := d.EndReplace(ctx, "t", id); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			before := cpuTime(b)
			for i := range b.N {
				if err := d.Upload(ctx, "t", pinot.Segment{Name: fmt.Sprintf("new_%d", i), TarPath: tar}); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time, not wall time: the machines benchmarks run on are shared.
			b.ReportMetric(float64(cpuTime(b)-before)/float64(b.N)/1e3, "cpu-µs/op")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
