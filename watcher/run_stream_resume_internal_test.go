package watcher

import (
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher/plan"
)

// I9, C10: a resumed replacement takes a unit as built only when every
// planned segment was uploaded whole through the fenced path and holds the
// unit's rows; anything short of that (a half-uploaded unit above all) is
// built again, and the reason names what failed.
func TestReuseCheck_Unit(t *testing.T) {
	lone := plan.Unit{Key: "t_a", Files: []plan.File{{Path: "s3://lake/a.parquet", Rows: 25}}}
	withDeletes := plan.Unit{Key: "t_d", Files: []plan.File{{Path: "s3://lake/d.parquet", Rows: 25, DeleteFingerprint: "pos:1"}}}
	group := plan.Unit{Key: "t_gx", Files: []plan.File{{Path: "s3://lake/b.parquet", Rows: 4}, {Path: "s3://lake/c.parquet", Rows: 6}}}
	groupDeletes := plan.Unit{Key: "t_gy", Files: []plan.File{{Path: "s3://lake/e.parquet", Rows: 4},
		{Path: "s3://lake/f.parquet", Rows: 6, Tasks: []table.FileScanTask{{DeleteFiles: []iceberg.DataFile{nil}}}}}}
	seg := func(name string, docs int64, custom ...string) pinot.SegmentInfo {
		m := map[string]string{}
		for i := 0; i+1 < len(custom); i += 2 {
			m[custom[i]] = custom[i+1]
		}
		return pinot.SegmentInfo{Name: name, TotalDocs: docs, CRC: "42", Custom: m}
	}
	src := func(u plan.Unit) []string { return []string{customSourceFile, u.Files[0].Path} }
	grp := func(u plan.Unit) []string { return []string{customUnit, u.Key, customSourceFiles, "2"} }
	type tc struct {
		name   string
		unit   plan.Unit
		names  []string
		infos  []pinot.SegmentInfo
		tokens map[string]int64
		served []string
		why    string // "" reused
		rows   map[string]int64
	}
	cases := []tc{
		{name: "whole lone file", unit: lone, names: []string{"t_a_0", "t_a_1", "t_a_2"},
			infos: []pinot.SegmentInfo{seg("t_a_0", 9, src(lone)...), seg("t_a_1", 9, src(lone)...), seg("t_a_2", 7, src(lone)...)},
			rows:  map[string]int64{"s3://lake/a.parquet": 25}},
		{name: "half uploaded", unit: lone, names: []string{"t_a_0", "t_a_1", "t_a_2"},
			infos: []pinot.SegmentInfo{seg("t_a_0", 9, src(lone)...), seg("t_a_1", 9, src(lone)...)}, why: "t_a_2 was not uploaded"},
		{name: "never recorded in the ledger", unit: lone, names: []string{"t_a_0"}, infos: []pinot.SegmentInfo{seg("t_a_0", 25, src(lone)...)},
			tokens: map[string]int64{}, why: "no ledger record"},
		{name: "recorded by a newer lease", unit: lone, names: []string{"t_a_0"}, infos: []pinot.SegmentInfo{seg("t_a_0", 25, src(lone)...)},
			tokens: map[string]int64{"t_a_0": 9}, why: "no ledger record"},
		{name: "no crc", unit: lone, names: []string{"t_a_0"}, infos: []pinot.SegmentInfo{{Name: "t_a_0", TotalDocs: 25,
			Custom: map[string]string{customSourceFile: "s3://lake/a.parquet"}}}, why: "has no CRC"},
		{name: "built from another file", unit: lone, names: []string{"t_a_0"},
			infos: []pinot.SegmentInfo{seg("t_a_0", 25, customSourceFile, "s3://lake/z.parquet")}, why: `built from "s3://lake/z.parquet"`},
		{name: "rows short of the record count", unit: lone, names: []string{"t_a_0"},
			infos: []pinot.SegmentInfo{seg("t_a_0", 24, src(lone)...)}, why: "hold 24 rows, the unit's files 25"},
		{name: "a part below its size", unit: lone, names: []string{"t_a_0", "t_a_1", "t_a_2"},
			infos: []pinot.SegmentInfo{seg("t_a_0", 8, src(lone)...), seg("t_a_1", 9, src(lone)...), seg("t_a_2", 8, src(lone)...)},
			why:   "not the 9"},
		{name: "parts cut at the cap, not evenly (an older floe)", unit: lone, names: []string{"t_a_0", "t_a_1", "t_a_2"},
			infos: []pinot.SegmentInfo{seg("t_a_0", 10, src(lone)...), seg("t_a_1", 10, src(lone)...), seg("t_a_2", 5, src(lone)...)},
			why:   "not the 9"},
		{name: "an empty part", unit: withDeletes, names: []string{"t_d_0"},
			infos: []pinot.SegmentInfo{seg("t_d_0", 0, src(withDeletes)...)}, why: "holds 0 rows"},
		{name: "served already", unit: lone, names: []string{"t_a_0"}, infos: []pinot.SegmentInfo{seg("t_a_0", 25, src(lone)...)},
			served: []string{"t_a_0"}, why: "served already"},
		{name: "lone file with deletes", unit: withDeletes, names: []string{"t_d_0", "t_d_1"},
			infos: []pinot.SegmentInfo{seg("t_d_0", 9, src(withDeletes)...), seg("t_d_1", 4, src(withDeletes)...)},
			rows:  map[string]int64{"s3://lake/d.parquet": 13}},
		{name: "lone file with deletes over its records", unit: withDeletes, names: []string{"t_d_0", "t_d_1", "t_d_2"},
			infos: []pinot.SegmentInfo{seg("t_d_0", 9, src(withDeletes)...), seg("t_d_1", 9, src(withDeletes)...),
				seg("t_d_2", 8, src(withDeletes)...)}, why: "hold 26 rows"},
		{name: "coalesced files", unit: group, names: []string{"t_gx_0"}, infos: []pinot.SegmentInfo{seg("t_gx_0", 10, grp(group)...)},
			rows: map[string]int64{"s3://lake/b.parquet": 4, "s3://lake/c.parquet": 6}},
		{name: "coalesced files of another unit", unit: group, names: []string{"t_gx_0"},
			infos: []pinot.SegmentInfo{seg("t_gx_0", 10, customUnit, "t_gz", customSourceFiles, "2")}, why: `built for unit "t_gz"`},
		{name: "coalesced files with deletes", unit: groupDeletes, names: []string{"t_gy_0"},
			infos: []pinot.SegmentInfo{seg("t_gy_0", 8, grp(groupDeletes)...)}, why: "rows per file unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check := reuseCheck{infos: map[string]pinot.SegmentInfo{}, tokens: c.tokens, mine: 5, served: map[string]bool{}, max: 10}
			for _, info := range c.infos {
				check.infos[info.Name] = info
			}
			if check.tokens == nil {
				check.tokens = map[string]int64{}
				for _, n := range c.names {
					check.tokens[n] = 4 // the dead run's lease
				}
			}
			for _, s := range c.served {
				check.served[s] = true
			}
			bu, why := check.unit(c.unit, c.names)
			if c.why != "" {
				if why == "" || !strings.Contains(why, c.why) {
					t.Fatalf("reason %q, want one saying %q", why, c.why)
				}
				return
			}
			if why != "" {
				t.Fatalf("unit not reused: %s", why)
			}
			if strings.Join(bu.segments, ",") != strings.Join(c.names, ",") || len(bu.fileRows) != len(c.rows) {
				t.Fatalf("reused unit %+v, want segments %v and file rows %v", bu, c.names, c.rows)
			}
			for p, n := range c.rows {
				if bu.fileRows[p] != n {
					t.Fatalf("file rows %v, want %v", bu.fileRows, c.rows)
				}
			}
		})
	}
}
