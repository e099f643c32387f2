package watcher

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher/plan"
)

// lineage reads what Pinot's segment lineage says about the table's names
// (nothing when the uploader cannot tell).
func (r *runner) lineage(ctx context.Context) (pinot.Lineage, error) {
	lr, ok := r.w.deps.Uploader.(pinot.LineageReader)
	if !ok {
		return pinot.Lineage{}, nil
	}
	l, err := lr.SegmentLineage(ctx, r.table.Name)
	if err != nil {
		return pinot.Lineage{}, fmt.Errorf("read Pinot segment lineage: %w", err)
	}
	return l, nil
}

// segmentBases picks the name each unit's segments start with. A unit's
// names are deterministic (I2, I3: a retry reuses them), except that Pinot
// hides any segment named in an ended replacement's From list or a
// reverted one's To list for hours, then deletes it: when such a
// replacement holds one of a unit's names (a rollback brings a file back,
// a crashed swap was reverted), the unit takes the next generation whose
// names none holds (key_g1, key_g2, ...). The choice depends only on
// Pinot's lineage, so retries agree.
func segmentBases(units []plan.Unit, hidden map[string]bool) map[string]string {
	if len(hidden) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, u := range units {
		for gen := 0; ; gen++ {
			base := generationBase(u.Key, gen)
			if !holdsNames(hidden, base, u.Key) {
				if gen > 0 {
					out[u.Key] = base
				}
				break
			}
		}
	}
	return out
}

// touchesOpen reports whether a unit's names are in an open replacement's
// To list (a swap a dead run left open): the run must go through a
// replacement of its own, which takes the open one over.
func touchesOpen(units []plan.Unit, bases map[string]string, open map[string]bool) bool {
	for _, u := range units {
		base := u.Key
		if b, ok := bases[u.Key]; ok {
			base = b
		}
		if holdsNames(open, base, u.Key) {
			return true
		}
	}
	return false
}

// generationBase is the segment base of a unit's gen-th name generation.
func generationBase(key string, gen int) string {
	if gen == 0 {
		return key
	}
	return key + "_g" + strconv.Itoa(gen)
}

// holdsNames reports whether names holds a segment name of base (base_0,
// base_1, ...); for the key's own base, names of later generations
// (key_g1_0) do not count.
func holdsNames(names map[string]bool, base, key string) bool {
	for name := range names {
		if !strings.HasPrefix(name, base+"_") {
			continue
		}
		if base == key && strings.HasPrefix(name, key+"_g") {
			continue
		}
		return true
	}
	return false
}
