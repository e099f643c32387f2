// Command segbench measures floe's Parquet → Pinot segment conversion
// against Apache Pinot's own segment creation and against decoding alone.
//
//	segbench gen    -o FILE -rows N        write the benchmark Parquet file
//	segbench decode -schema S FILE         drain floe's Parquet source (no build)
//	segbench sync   -lake D -o OUT         what a sync does: iceberg-go Arrow scan → segment → tarball
//	segbench sync   -lake D -decode-only   drain the Arrow scan alone
//	segbench gzip   -impl std|klauspost T  compress a segment tar (tarball cost before/after)
//	segbench run    -dir D -floe BIN ...   run them all, print ratios, write the report
//	segbench deletes -dir D                a sync of the file with a deletion vector: floe vs iceberg-go applying it
//
// scripts/bench-segments.sh drives it; see docs/benchmarks.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/floehq/floe/tools/bench/cli"
)

func main() { cli.Main(context.Background(), "segbench", dispatch) }

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: segbench gen|decode|sync|gzip|run|deletes [flags]")
	}
	switch args[0] {
	case "gen":
		return cmdGen(args[1:], stdout, stderr)
	case "decode":
		return cmdDecode(ctx, args[1:], stdout, stderr)
	case "sync":
		return cmdSync(ctx, args[1:], stdout, stderr)
	case "gzip":
		return cmdGzip(args[1:], stdout, stderr)
	case "run":
		return cmdRun(ctx, args[1:], stdout, stderr)
	case "deletes":
		return cmdDeletes(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("unknown command %q", args[0])
}
