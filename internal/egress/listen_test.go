package egress_test

import (
	"testing"

	"github.com/floehq/floe/internal/egress"
)

func TestIsLoopbackAddr(t *testing.T) {
	cases := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8080", true},
		{"127.9.9.9:1", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{"0.0.0.0:8080", false},
		{"[::]:8080", false},
		{":8080", false},
		{"10.0.0.1:8080", false},
		{"floe.example:8080", false},
		{"127.0.0.1", false}, // no port: not a listen address
	}
	for _, tc := range cases {
		if got := egress.IsLoopbackAddr(tc.addr); got != tc.want {
			t.Errorf("IsLoopbackAddr(%q) = %t, want %t", tc.addr, got, tc.want)
		}
	}
}
