package watcher

import (
	"maps"
	"testing"

	"github.com/floehq/floe/watcher/plan"
)

// A unit whose names Pinot hides (an ended replacement's From list, a
// reverted one's To list) takes the first generation none of whose names
// are hidden; others keep their key; a unit in an open replacement sends
// the run through a replacement of its own.
func TestSegmentBases_SkipHiddenNames(t *testing.T) {
	hidden := map[string]bool{"t_aaa_0": true, "t_bbb_1": true, "t_bbb_g1_0": true, "t_ccc_g1_0": true}
	units := []plan.Unit{{Key: "t_aaa"}, {Key: "t_bbb"}, {Key: "t_ccc"}, {Key: "t_ddd"}}
	got := segmentBases(units, hidden)
	want := map[string]string{"t_aaa": "t_aaa_g1", "t_bbb": "t_bbb_g2"}
	if !maps.Equal(got, want) {
		t.Fatalf("bases = %v, want %v (t_ccc's generation 0 names are free)", got, want)
	}
	req := BuildRequest{Unit: units[1], SegmentBase: got["t_bbb"]}
	if n := req.SegmentName(3); n != "t_bbb_g2_3" {
		t.Fatalf("segment name %q", n)
	}
	if touchesOpen(units, got, map[string]bool{"t_aaa_0": true}) {
		t.Fatal("t_aaa builds generation 1: the open generation-0 name is not its concern")
	}
	if !touchesOpen(units, got, map[string]bool{"t_ddd_0": true}) {
		t.Fatal("t_ddd_0 is in an open replacement: the run must replace")
	}
}
