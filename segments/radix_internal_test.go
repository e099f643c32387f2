package segments

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tests := []struct {
		name string
		gen  func(i int) uint64
		n    int
	}{
		{"empty", func(int) uint64 { return 0 }, 0},
		{"short", func(int) uint64 { return rng.Uint64() }, 100},
		{"random", func(int) uint64 { return rng.Uint64() }, 10_000},
		{"shared high bytes", func(int) uint64 { return 0xABCD<<48 | rng.Uint64N(1<<20) }, 10_000},
		{"duplicates", func(int) uint64 { return rng.Uint64N(50) << 40 }, 10_000},
		{"descending", func(i int) uint64 { return uint64(1_000_000 - i) }, 5_000},
		{"all equal", func(int) uint64 { return 42 }, 1_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := make([]uint64, tt.n)
			for i := range s {
				s[i] = tt.gen(i)
			}
			want := slices.Clone(s)
			slices.Sort(want)
			radixSort(s, nil)
			if !slices.Equal(s, want) {
				t.Fatal("radixSort order differs from slices.Sort")
			}
		})
	}
}
