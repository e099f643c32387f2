package plan_test

import (
	"slices"
	"testing"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// P2: an equality delete rebuilds only the files whose key bounds hold
// one of its keys, both ways (P1); keys outside every file's bounds
// rebuild nothing; a key inside a file's bounds that the file does not
// hold still rebuilds it (bounds cannot tell). Keyed tables record the
// bounds in the checkpoint; the others look the files up in manifests.
func TestPlanner_Plan_EqualityDeleteTargetsFiles(t *testing.T) {
	for _, cfg := range []lakeConfig{{version: 2}, {version: 2, keyed: true}, {version: 2, partitioned: true, keyed: true}} {
		t.Run(cfg.String(), func(t *testing.T) {
			l := newLake(t, cfg)
			p := plan.New(plan.Options{})
			for range 5 {
				l.appendRows(20) // ids [0,20), [20,40), ... [80,100): disjoint per file (per partition file)
			}
			first := plans(t, p, l.load(), checkpoint.Checkpoint{})
			cp := commit(checkpoint.Checkpoint{}, l.load(), first, nil)
			owner := ownersOf(t, l, cp)

			l.eqDelete([]int64{500, 1000}) // beyond every file
			got := plans(t, p, l.load(), cp)
			if len(got.Build) != 0 || got.Replacing || len(got.Keep) != len(cp.Files) {
				t.Fatalf("P2: keys outside every file's bounds rebuilt %d units (replacing %v)", len(got.Build), got.Replacing)
			}
			cp = commit(cp, l.load(), got, nil)
			for path, fs := range cp.Files {
				if _, ok := fs.KeyBounds[1]; !ok {
					t.Fatalf("P2: after a plan that compared keys, file %s records no bounds of id (refresh %d files)",
						path, len(got.Refresh))
				}
			}

			l.eqDelete([]int64{25, 67})
			got = plans(t, p, l.load(), cp)
			if !got.Incremental {
				t.Fatalf("P4: an equality delete on files with recorded key bounds did not fold: %s", got.Fallback)
			}
			want := []string{owner[25], owner[67]}
			if !slices.Equal(builtPaths(got), sortedSet(want)) || !got.Replacing {
				t.Fatalf("P2: deleting ids 25 and 67 rebuilt %v, want the files holding them %v", builtPaths(got), want)
			}
			for _, u := range got.Build {
				for _, f := range u.Files {
					if n := len(f.Tasks[0].EqualityDeleteFiles); n != 1 {
						t.Fatalf("P2: file %s is read with %d equality delete files, want only the one that hits it", f.Path, n)
					}
				}
			}
			cp = commit(cp, l.load(), got, nil)
			checkRows(t, l.load())

			l.eqDelete([]int64{25}) // inside the bounds of a file that no longer holds it
			got = plans(t, p, l.load(), cp)
			if !slices.Equal(builtPaths(got), []string{owner[25]}) {
				t.Fatalf("P2: a key inside one file's bounds rebuilt %v, want %s", builtPaths(got), owner[25])
			}
			if !got.Incremental {
				t.Fatalf("P4: an equality delete on files with recorded key bounds did not fold: %s", got.Fallback)
			}
			checkRows(t, l.load())
		})
	}
}

// ownersOf maps every id to the live data file holding it.
func ownersOf(t *testing.T, l *lake, cp checkpoint.Checkpoint) map[int64]string {
	t.Helper()
	tasks, err := l.load().Scan().PlanFiles(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]string{}
	for _, tk := range tasks {
		if _, ok := cp.Files[tk.File.FilePath()]; !ok {
			t.Fatalf("file %s is not in the checkpoint", tk.File.FilePath())
		}
		for _, id := range fileIDs(t, l.load(), tk.File) {
			out[id] = tk.File.FilePath()
		}
	}
	return out
}

func builtPaths(p *plan.Plan) []string {
	var out []string
	for _, u := range p.Build {
		for _, f := range u.Files {
			out = append(out, f.Path)
		}
	}
	slices.Sort(out)
	return out
}

func sortedSet(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}
