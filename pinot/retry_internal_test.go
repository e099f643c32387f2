package pinot

import (
	"testing"
	"time"
)

// Full jitter: every wait lies in [0, min(MaxBackoff, InitialBackoff·2^(n-1))).
func TestRetryPolicy_Backoff(t *testing.T) {
	p := RetryPolicy{Attempts: 10, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	for n, ceil := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 9: time.Second} {
		var most time.Duration
		for range 2000 {
			w := p.backoff(n)
			if w < 0 || w >= ceil {
				t.Fatalf("backoff(%d) = %s, want in [0, %s)", n, w, ceil)
			}
			most = max(most, w)
		}
		if most < ceil/2 {
			t.Fatalf("backoff(%d) never above %s in 2000 draws: no jitter over the full range", n, most)
		}
	}
}
