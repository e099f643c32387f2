package checkpoint_test

import (
	"testing"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/checkpoint/checkpointtest"
)

func TestMemory_Conformance(t *testing.T) {
	checkpointtest.Run(t, func(t *testing.T) checkpoint.Store {
		s := checkpoint.NewMemory()
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}

func TestMemory_WorkQueue(t *testing.T) {
	checkpointtest.RunWorkQueue(t, func(t *testing.T) (checkpoint.Store, checkpoint.WorkQueue) {
		s := checkpoint.NewMemory()
		t.Cleanup(func() { _ = s.Close() })
		return s, s
	})
}
