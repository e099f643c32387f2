package watcher

import (
	"strconv"
	"testing"

	"github.com/floehq/floe/checkpoint"
)

// The run log keeps at most checkpoint.MaxRunLogLines: the newest lines,
// after one that counts the dropped ones.
func TestRunLog_Bounded(t *testing.T) {
	var b runLog
	for i := range 250 {
		b.add(infoLine("line "+strconv.Itoa(i), nil))
	}
	got := b.snapshot()
	if len(got) != checkpoint.MaxRunLogLines {
		t.Fatalf("%d lines kept, want %d", len(got), checkpoint.MaxRunLogLines)
	}
	if got[0].Level != "WARN" || got[0].Msg != "151 earlier lines of this run were not kept" {
		t.Fatalf("first line %+v", got[0])
	}
	if got[1].Msg != "line 151" || got[len(got)-1].Msg != "line 249" {
		t.Fatalf("kept %q .. %q", got[1].Msg, got[len(got)-1].Msg)
	}
}
