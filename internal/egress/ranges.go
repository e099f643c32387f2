package egress

import (
	"net/netip"
	"strings"
)

// Address classes, as errors name them.
const (
	classMetadata  = "metadata"
	classLinkLocal = "link-local"
	classLoopback  = "loopback"
	classPrivate   = "private"
	classPublic    = "public"
)

// class is one class of addresses and the networks it covers, most
// specific class first.
type class struct {
	name   string
	ranges []netip.Prefix
}

// classes are the refused classes, in the order they are matched (the
// metadata addresses lie inside link-local and private ranges).
func classes() []class {
	return []class{
		{classMetadata, prefixes("169.254.169.254/32", "169.254.170.2/32", "fd00:ec2::254/128",
			"100.100.100.200/32", "168.63.129.16/32")},
		{classLinkLocal, prefixes("169.254.0.0/16", "fe80::/10")},
		{classLoopback, prefixes("127.0.0.0/8", "::1/128", "0.0.0.0/8", "::/128")},
		{classPrivate, prefixes("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")},
	}
}

func prefixes(s ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

// classify returns ip's class and the networks of that class.
func classify(ip netip.Addr) (string, []netip.Prefix) {
	ip = effective(ip)
	for _, c := range classes() {
		for _, r := range c.ranges {
			if r.Contains(ip) {
				return c.name, c.ranges
			}
		}
	}
	return classPublic, nil
}

// effective is the address a connection to ip reaches: IPv4-mapped and
// NAT64 addresses are judged by the IPv4 address they carry.
func effective(ip netip.Addr) netip.Addr {
	ip = ip.Unmap().WithZone("")
	// The well-known NAT64 prefix: its addresses carry an IPv4 address
	// in their last four bytes.
	if ip.Is6() && netip.MustParsePrefix("64:ff9b::/96").Contains(ip) {
		b := ip.As16()
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	return ip
}

// isMetadataName reports whether a host name is a cloud metadata service.
func isMetadataName(n string) bool {
	switch strings.ToLower(strings.TrimSuffix(n, ".")) {
	case "metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal":
		return true
	}
	return false
}
