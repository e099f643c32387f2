// Package cpuprofile is the CPU profile a command writes while it runs
// (`floe sync -cpuprofile`, `floe convert --cpuprofile`, the benchmarks).
package cpuprofile

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// Start writes a CPU profile of the process to path until the returned
// stop is called ("" profiles nothing).
func Start(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("start cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
