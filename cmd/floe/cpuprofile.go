package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile writes a CPU profile of the command to path until the
// returned stop is called ("" profiles nothing). cmd names the command in
// errors.
func startCPUProfile(cmd, path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: create cpu profile: %w", cmd, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: start cpu profile: %w", cmd, err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
