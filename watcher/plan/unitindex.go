package plan

import (
	"maps"
	"slices"

	"github.com/floehq/floe/checkpoint"
)

// UnitIndex lists a checkpoint's small units per partition: the units a
// merge may pack again (P10). A Planner that is given one (PlanIndexed)
// looks only at the small units of the partitions a run builds files of,
// instead of walking every file of the checkpoint to find them; the caller
// keeps it in step with the checkpoint's file map (Apply, for every entry
// a commit sets or removes). A unit is the files of one group key, or a
// file on its own, within one partition; it is small when every member
// has a recorded size and the members add up to less than the Planner's
// CoalesceBelowBytes. Not safe for concurrent use.
type UnitIndex struct {
	below int64
	units map[unitID]*indexedUnit
	// small holds, per partition, the units that are small now.
	small map[string]map[unitID]*indexedUnit
}

type unitID struct{ partition, key string }

type indexedUnit struct {
	id      unitID
	members map[string]int64 // path → size
	bytes   int64
	unsized int // members without a recorded size
}

// UnitIndex indexes files for the Planner's merges; nil when it merges
// nothing (MergeSmallUnits or CoalesceBelowBytes off).
func (p *Planner) UnitIndex(files map[string]checkpoint.FileState) *UnitIndex {
	if p.opts.MergeSmallUnits < 2 || p.opts.CoalesceBelowBytes <= 0 {
		return nil
	}
	return newUnitIndex(p.opts.CoalesceBelowBytes, files)
}

func newUnitIndex(below int64, files map[string]checkpoint.FileState) *UnitIndex {
	x := &UnitIndex{below: below, units: map[unitID]*indexedUnit{},
		small: map[string]map[unitID]*indexedUnit{}}
	for path, fs := range files {
		x.Apply(path, checkpoint.FileState{}, false, fs, true)
	}
	return x
}

// Reset indexes files anew (a commit that replaced most of the map).
func (x *UnitIndex) Reset(files map[string]checkpoint.FileState) {
	*x = *newUnitIndex(x.below, files)
}

// unitKey is the key of the unit a file belongs to: its group, or the
// file itself ("\x00" is never part of a group key).
func unitKey(path string, fs checkpoint.FileState) string {
	if fs.Group != "" {
		return fs.Group
	}
	return "\x00" + path
}

// Apply records that the file map's entry for path changed from old (had
// false: none) to now (has false: removed).
func (x *UnitIndex) Apply(path string, old checkpoint.FileState, had bool, now checkpoint.FileState, has bool) {
	if had {
		x.update(unitID{old.Partition, unitKey(path, old)}, func(u *indexedUnit) {
			size, ok := u.members[path]
			if !ok {
				return
			}
			delete(u.members, path)
			u.count(size, -1)
		})
	}
	if has {
		x.update(unitID{now.Partition, unitKey(path, now)}, func(u *indexedUnit) {
			if size, ok := u.members[path]; ok {
				u.count(size, -1)
			}
			u.members[path] = now.SizeBytes
			u.count(now.SizeBytes, 1)
		})
	}
}

func (u *indexedUnit) count(size int64, n int) {
	if size <= 0 {
		u.unsized += n
		return
	}
	u.bytes += int64(n) * size
}

// update changes one unit and files it again as small or not.
func (x *UnitIndex) update(id unitID, change func(*indexedUnit)) {
	u := x.units[id]
	if u == nil {
		u = &indexedUnit{id: id, members: map[string]int64{}}
		x.units[id] = u
	}
	change(u)
	part := x.small[id.partition]
	switch {
	case len(u.members) == 0:
		delete(x.units, id)
		delete(part, id)
	case u.unsized == 0 && u.bytes < x.below:
		if part == nil {
			part = map[unitID]*indexedUnit{}
			x.small[id.partition] = part
		}
		part[id] = u
	default:
		delete(part, id)
	}
	if len(part) == 0 {
		delete(x.small, id.partition)
	}
}

// smallUnits is Planner.smallUnits read from the index: per partition of
// parts, the small units that no file of the run leaves or regroups.
func (x *UnitIndex) smallUnits(c *comparison, cp checkpoint.Checkpoint, parts map[string]bool) map[string][]*smallUnit {
	touched := map[unitID]bool{}
	for path := range c.leave {
		if fs, ok := cp.Files[path]; ok {
			touched[unitID{fs.Partition, unitKey(path, fs)}] = true
		}
	}
	out := map[string][]*smallUnit{}
	for part := range parts {
		for id, u := range x.small[part] {
			if touched[id] || c.broken[id.key] {
				continue
			}
			paths := slices.Sorted(maps.Keys(u.members))
			out[part] = append(out[part], &smallUnit{key: id.key, paths: paths, bytes: u.bytes})
		}
	}
	return out
}
