//go:build integration

package e2e

import (
	"os"
	"strconv"
)

// seedFromEnv returns E2E_SEED when set (to replay a failure), else seed.
func seedFromEnv(seed uint64) uint64 {
	if v, err := strconv.ParseUint(os.Getenv("E2E_SEED"), 10, 64); err == nil {
		return v
	}
	return seed
}
