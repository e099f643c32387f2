package egress

import "net"

// IsLoopbackAddr reports whether a host:port that floe listens on is
// reachable from this machine only: localhost or a loopback IP. Unlike
// the loopback class of the policy, the unspecified address (0.0.0.0, ::)
// is not: a listener there is reachable from everywhere.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
