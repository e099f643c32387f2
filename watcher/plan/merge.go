package plan

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/floehq/floe/checkpoint"
)

// smallUnit is a unit of the checkpoint whose data files are all small and
// add up to less than CoalesceBelowBytes: a streaming writer's few files of
// one run, coalesced within that run only, or an earlier merge of such
// units (P10).
type smallUnit struct {
	key   string
	paths []string
	bytes int64
}

// merge packs small units of the checkpoint again (P10). A run builds only
// the files it must, so a writer that adds a few small files per snapshot
// leaves one small unit per run. Small units are ranked in size tiers
// (tier t holds units of MergeSmallUnits^t up to MergeSmallUnits^(t+1)
// bytes); when one tier of a partition holds MergeSmallUnits units, the
// run rebuilds their files, coalesce packs them into a unit about one tier
// up (apart from the run's new files, so a file that can no longer be read
// fails the merge only), and the plan replaces the old segments. Only the
// partitions the run builds files of are looked at: a partition without
// new data has no new small unit, and a run that only adds to a few
// partitions of a large checkpoint does not walk the others' units. Merging like
// sizes only keeps the re-reading logarithmic: a file is rebuilt about
// once per tier it climbs, not at every merge. Tiers are taken by
// partition, then tier, their units by key, up to TargetSegmentBytes of
// data files in all, and only while the rest of the run builds at most
// TargetSegmentBytes: a large append stays an append (batched, shared)
// and the merge waits for a smaller run. Units that lost or changed a
// member are not considered: regroup has rebuilt them. find lists the
// small units and reads the entries of those a merge takes (smallSource).
func (p *Planner) merge(c *comparison, lv *live, cp checkpoint.Checkpoint, src smallSource) error {
	if p.opts.MergeSmallUnits < 2 || p.opts.CoalesceBelowBytes <= 0 || len(c.pool) == 0 ||
		poolBytes(c.pool) > p.opts.TargetSegmentBytes {
		return nil
	}
	tiers, err := p.smallTiers(c, poolPartitions(c.pool), src.find)
	if err != nil {
		return err
	}
	budget := p.opts.TargetSegmentBytes
	for _, key := range slices.SortedFunc(maps.Keys(tiers), compareTierKeys) {
		units := tiers[key]
		if len(units) < p.opts.MergeSmallUnits {
			continue
		}
		var take []*smallUnit
		if take, budget = within(units, budget); len(take) < 2 {
			break
		}
		if src.load != nil {
			if err := src.load(take); err != nil {
				return err
			}
		}
		for _, u := range take {
			c.mergeUnit(u, lv, cp)
		}
	}
	return nil
}

// smallSource is where a merge finds the checkpoint's small units: find
// lists, per partition of parts, those no file of the run leaves or
// regroups; load, when set, reads the entries of the units the merge
// takes into the checkpoint's map (a plan from an unread map).
type smallSource struct {
	find func(c *comparison, parts map[string]bool) (map[string][]*smallUnit, error)
	load func(units []*smallUnit) error
}

// smallSource is how the job finds small units: in the store's index when
// it plans from an unread map (lazySmallUnits, lazyMembers), in the
// UnitIndex of cp when it has one, else by a pass over cp's files.
func (j *job) smallSource(ctx context.Context, cp checkpoint.Checkpoint) smallSource {
	if j.lazy != nil {
		return smallSource{
			find: func(c *comparison, parts map[string]bool) (map[string][]*smallUnit, error) {
				return j.lazySmallUnits(ctx, c, parts)
			},
			load: func(units []*smallUnit) error { return j.lazyMembers(ctx, cp, units) },
		}
	}
	return smallSource{find: func(c *comparison, parts map[string]bool) (map[string][]*smallUnit, error) {
		if j.units != nil {
			return j.units.smallUnits(c, cp, parts), nil
		}
		return j.p.smallUnits(c, cp, parts), nil
	}}
}

// within returns the units, by key, that fit in budget bytes, and the
// budget left.
func within(units []*smallUnit, budget int64) ([]*smallUnit, int64) {
	slices.SortFunc(units, func(a, b *smallUnit) int { return strings.Compare(a.key, b.key) })
	var take []*smallUnit
	for _, u := range units {
		if u.bytes > budget {
			break
		}
		take, budget = append(take, u), budget-u.bytes
	}
	return take, budget
}

// mergeUnit puts the files of a checkpointed unit in the pool, marked as
// merging (packed apart from the run's new files).
func (c *comparison) mergeUnit(u *smallUnit, lv *live, cp checkpoint.Checkpoint) {
	for _, path := range u.paths {
		c.rebuildKept(path, cp.Files[path], lv)
		c.merging[path] = true
	}
}

// tierKey names the small units of one size tier of one partition.
type tierKey struct {
	partition string
	tier      int
}

func compareTierKeys(a, b tierKey) int {
	if c := strings.Compare(a.partition, b.partition); c != 0 {
		return c
	}
	return a.tier - b.tier
}

// Tier is the size tier of a unit of bytes data file bytes when merges
// take base units: floor(log_base(bytes)).
func Tier(bytes int64, base int) int {
	t := 0
	for n := bytes; n >= int64(base); n /= int64(base) {
		t++
	}
	return t
}

// smallTiers groups the checkpoint's small units of the partitions parts
// that the run leaves alone by partition and size tier.
func (p *Planner) smallTiers(c *comparison, parts map[string]bool, find func(*comparison, map[string]bool) (map[string][]*smallUnit, error)) (map[tierKey][]*smallUnit, error) {
	out := map[tierKey][]*smallUnit{}
	small, err := find(c, parts)
	if err != nil {
		return nil, err
	}
	for part, units := range small {
		for _, u := range units {
			k := tierKey{partition: part, tier: Tier(u.bytes, p.opts.MergeSmallUnits)}
			out[k] = append(out[k], u)
		}
	}
	return out, nil
}

// smallUnits lists, per partition of parts, the checkpoint's units that
// are small and untouched by this run, found by a pass over cp's files
// (checkpoint.MapFiles, the reads a store's index answers). A file without
// a recorded size (written before sizes were) makes its unit not small.
func (p *Planner) smallUnits(c *comparison, cp checkpoint.Checkpoint, parts map[string]bool) map[string][]*smallUnit {
	return untouched(c, checkpoint.MapFiles(cp.Files).SmallUnits(slices.Sorted(maps.Keys(parts)), p.opts.CoalesceBelowBytes))
}

// untouched turns small units of a file map into the merge's, per
// partition, leaving out those a file of the run leaves or regroups.
func untouched(c *comparison, stored []checkpoint.StoredUnit) map[string][]*smallUnit {
	out := map[string][]*smallUnit{}
	for _, u := range stored {
		key := u.Group
		if key == "" {
			key = unitKey(u.Paths[0], checkpoint.FileState{})
		}
		if c.broken[key] || slices.ContainsFunc(u.Paths, func(p string) bool { return c.leave[p] }) {
			continue
		}
		out[u.Partition] = append(out[u.Partition], &smallUnit{key: key, paths: u.Paths, bytes: u.Bytes})
	}
	return out
}

// poolPartitions is the set of partitions of the files a run builds.
func poolPartitions(pool []candidate) map[string]bool {
	out := map[string]bool{}
	for _, c := range pool {
		out[c.f.partition] = true
	}
	return out
}

// poolBytes is the data file bytes of the files a run builds.
func poolBytes(pool []candidate) int64 {
	var n int64
	for _, c := range pool {
		n += c.f.size
	}
	return n
}
