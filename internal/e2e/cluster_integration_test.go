//go:build integration

package e2e

import (
	"testing"

	"github.com/floehq/floe/internal/testpeer"
)

// I4 and I9 against a real Pinot cluster: the fencing scenarios (the lease
// holder frozen, or cut off from Redis) and the streamed replacement
// scenarios (the holder SIGKILLed, a builder frozen) of
// TestFencing_StalledHolderNeverChangesPinot and
// TestStream_ReplacementSurvivesKillAndFreeze, with lineage replaces,
// uploads and deletes going to the controller, the replacement a segment
// lineage entry there, and the broker's answers checked. The four share
// one cluster (each its own table, Redis and replicas): a cluster takes
// 15-20 s to start and 10 s to stop.
func TestPinotCluster_FencingAndStreamedReplacement(t *testing.T) {
	pc := testpeer.StartPinot(t)
	for _, s := range []stall{freeze, partition} {
		t.Run("fencing "+s.String(), func(t *testing.T) { fencingScenario(t, s, pc, 3, nil) })
	}
	for _, event := range []string{"kill holder", "freeze builder"} {
		t.Run("stream "+event, func(t *testing.T) { streamScenario(t, event, pc) })
	}
}
