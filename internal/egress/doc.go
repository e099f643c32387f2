// Package egress decides which network addresses floe may call, for each
// kind of peer it calls: catalogs, OAuth token endpoints, AWS endpoints,
// Pinot and the deep store.
//
// A [Policy] is built from a [Config] (security.egress) and injected into
// every HTTP transport floe builds for an outbound peer. It is enforced when
// a connection is dialled, on the addresses the host name resolved to, so a
// name that resolves to a refused address (DNS rebinding included) is
// refused, whatever it resolved to when the connection was created. Host
// literals are also checked when a connection is created or validated
// ([Policy.CheckURL]), so the mistake is reported with the field that holds
// it.
//
// # Classes of addresses
//
//	metadata    169.254.169.254, fd00:ec2::254, 100.100.100.200, 168.63.129.16,
//	            metadata.google.internal, metadata.goog
//	link-local  169.254.0.0/16, fe80::/10
//	loopback    127.0.0.0/8, ::1, 0.0.0.0/8, ::, the names localhost and *.localhost
//	private     10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7
//	public      everything else
//
// IPv4-mapped IPv6 addresses and NAT64 addresses (64:ff9b::/96) are judged
// by the IPv4 address they carry.
//
// # Invariants (tests cite these numbers)
//
//   - E1 Metadata and link-local addresses are refused unless an allow entry
//     that is an address or network inside their range names them; a host
//     name entry or a wider network (0.0.0.0/0) never opens them.
//   - E2 Loopback and private addresses are refused unless an allow entry
//     (an address, a network holding it, or the host name that was dialled)
//     admits them; public addresses are allowed unless listedOnly is set.
//   - E3 The check runs on every address a dialled name resolves to, at
//     dial time; only admitted addresses are dialled.
//   - E4 Every dial failure of one kind of peer has the same text, "cannot
//     reach <kind> at <host:port>", whether the port is closed, filtered,
//     the name does not resolve or the peer answered no HTTP: errors do not
//     tell ports apart.
//   - E5 A redirect to another origin (scheme, host or port) is never
//     followed: the request fails naming the target, so credentials sent to
//     one host never reach another.
//   - E6 An error answer of a peer reaches floe's errors only as an excerpt
//     of at most [ExcerptLen] bytes, scrubbed of the secrets the transport
//     was given before it is cut.
package egress
