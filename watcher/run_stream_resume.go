package watcher

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher/plan"
)

// Custom map keys floe's segments carry (watcher/build.go sourceFiles;
// format: never change).
const (
	customSourceFile  = "floe.sourceFile"
	customUnit        = "floe.unit"
	customSourceFiles = "floe.sourceFiles"
)

// uploadedUnits are the units of a resumed replacement whose segments the
// dead run that opened it uploaded completely and correctly (I9): the run
// takes them as built and builds only the others. tokens are the ledger's
// tokens of the replacement's To names as the run found them, before it
// recorded them itself. Without a SegmentInspector, or when Pinot cannot
// say what it holds (logged), nothing is reused: every unit is built.
func (r *runner) uploadedUnits(ctx context.Context, t target, s streamPlan, tokens map[string]int64) (map[string]builtUnit, error) {
	in, ok := r.w.deps.Uploader.(pinot.SegmentInspector)
	if !ok {
		return nil, nil
	}
	infos, err := in.UploadedSegments(ctx, r.table.Name, s.to)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		r.w.log.Warn("cannot read the segments of the open replacement; building every unit",
			slog.String(attrTable, r.table.Name), slog.String("error", err.Error()))
		return nil, nil
	}
	check := reuseCheck{infos: infos, tokens: tokens, mine: r.keeper.current().Token, served: t.served,
		max: r.maxRowsPerSegment()}
	out := map[string]builtUnit{}
	for _, u := range t.plan.Build {
		bu, why := check.unit(u, s.names[u.Key])
		if why != "" {
			r.w.log.Debug("unit of the open replacement built again", slog.String(attrTable, r.table.Name),
				slog.String("unit", u.Key), slog.String("reason", why))
			continue
		}
		out[u.Key] = bu
	}
	return out, nil
}

// reuseCheck decides whether a unit's planned segments, as Pinot holds
// them, are what building the unit gives. Names are deterministic (the
// unit's key hashes its files' paths and delete fingerprints, I3), so what
// is left to prove is that the upload completed, went through the fenced
// path, and holds the unit's rows.
type reuseCheck struct {
	infos  map[string]pinot.SegmentInfo
	tokens map[string]int64 // ledger tokens of the To names
	mine   int64            // the run's own token
	served map[string]bool  // names Pinot served when the run began
	max    int64            // max rows per segment
}

// unit returns the unit as built from the segments Pinot holds, or why it
// must be built again.
func (c reuseCheck) unit(u plan.Unit, names []string) (builtUnit, string) {
	if len(names) == 0 {
		return builtUnit{}, "no planned segment"
	}
	var docs []int64
	for _, name := range names {
		if c.served[name] {
			return builtUnit{}, "segment " + name + " is served already" // not the replacement's to prove
		}
		info, ok := c.infos[name]
		switch {
		case !ok:
			return builtUnit{}, "segment " + name + " was not uploaded"
		case c.tokens[name] == 0 || c.tokens[name] > c.mine:
			return builtUnit{}, "segment " + name + " has no ledger record of an older lease (C10)"
		case info.CRC == "":
			return builtUnit{}, "segment " + name + " has no CRC"
		}
		if why := sourceMismatch(u, info); why != "" {
			return builtUnit{}, "segment " + name + ": " + why
		}
		docs = append(docs, info.TotalDocs)
	}
	rows, why := partRows(docs, partSize(u, c.max))
	if why != "" {
		return builtUnit{}, why
	}
	fileRows, why := unitFileRows(u, rows)
	if why != "" {
		return builtUnit{}, why
	}
	return builtUnit{unit: u, segments: names, rows: rows, fileRows: fileRows}, ""
}

// sourceMismatch says how a segment's custom map fails to name the unit's
// files ("" when it names them).
func sourceMismatch(u plan.Unit, info pinot.SegmentInfo) string {
	if len(u.Files) == 1 {
		if got := info.Custom[customSourceFile]; got != u.Files[0].Path {
			return fmt.Sprintf("built from %q, the unit's file is %q", got, u.Files[0].Path)
		}
		return ""
	}
	if info.Custom[customUnit] != u.Key || info.Custom[customSourceFiles] != strconv.Itoa(len(u.Files)) {
		return fmt.Sprintf("built for unit %q of %s files, want %q of %d", info.Custom[customUnit],
			info.Custom[customSourceFiles], u.Key, len(u.Files))
	}
	return ""
}

// partRows checks the parts' row counts as a build cuts them (every part
// but the last holds exactly size rows, partSize; none is empty; parts an
// older floe cut otherwise are not reused) and sums them.
func partRows(docs []int64, size int64) (int64, string) {
	var rows int64
	for i, n := range docs {
		switch {
		case n <= 0:
			return 0, fmt.Sprintf("segment %d holds %d rows", i, n)
		case size > 0 && i < len(docs)-1 && n != size:
			return 0, fmt.Sprintf("segment %d holds %d rows, not the %d a build puts in every part but the last", i, n, size)
		}
		rows += n
	}
	return rows, ""
}

// unitFileRows is what each file of the unit gave when its segments hold
// rows in all: a file no delete applies to gives its record count exactly
// (so the sum must match); a lone file with deletes gives what its
// segments hold, at most its record count. The rows of coalesced files
// with deletes cannot be told apart from the segments: build them.
func unitFileRows(u plan.Unit, rows int64) (map[string]int64, string) {
	var records int64
	deletes := false
	for _, f := range u.Files {
		records += f.Rows
		deletes = deletes || hasDeletes(f)
	}
	switch {
	case !deletes && rows != records:
		return nil, fmt.Sprintf("segments hold %d rows, the unit's files %d", rows, records)
	case deletes && rows > records:
		return nil, fmt.Sprintf("segments hold %d rows, more than the unit's files' %d", rows, records)
	case deletes && len(u.Files) > 1:
		return nil, "coalesced files with deletes: rows per file unknown"
	}
	out := make(map[string]int64, len(u.Files))
	for _, f := range u.Files {
		out[f.Path] = f.Rows
	}
	if deletes {
		out[u.Files[0].Path] = rows
	}
	return out, ""
}
