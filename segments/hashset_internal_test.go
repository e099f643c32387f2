package segments

import (
	"math/rand/v2"
	"testing"
)

func TestHashSet_Len(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tests := []struct {
		name string
		gen  func(i int) uint64
		n    int
	}{
		{"empty", nil, 0},
		{"zero hash counts once", func(int) uint64 { return 0 }, 100},
		{"few distinct, many adds", func(i int) uint64 { return uint64(i%37) * 0x9E3779B97F4A7C15 }, 10_000},
		{"all distinct past growth", func(int) uint64 { return rng.Uint64() | 1 }, 200_000},
		{"same low bits", func(i int) uint64 { return uint64(i%5000) << 40 }, 20_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newHashSet()
			want := map[uint64]bool{}
			for i := range tt.n {
				h := tt.gen(i)
				s.add(h)
				want[h] = true
			}
			if got := s.len(); got != len(want) {
				t.Fatalf("len = %d, want %d", got, len(want))
			}
		})
	}
}
