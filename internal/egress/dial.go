package egress

import (
	"context"
	"errors"
	"net"
	"net/netip"
)

// ErrUnreachable is wrapped by every failure to reach a peer.
var ErrUnreachable = errors.New("peer unreachable")

// DialError is any failure to reach a peer: a name that does not resolve,
// a closed or filtered port, a refused connection, an answer that is not
// HTTP. Its text is the same for all of them (E4): it names the kind of
// peer and the address as dialled, never the cause. Only a cancellation
// of the caller's own context shows through Unwrap (so callers still tell
// a cancelled run from a failed one).
type DialError struct {
	Kind Kind
	Addr string // host:port as dialled
	ctx  error  // context.Canceled when the caller gave up, else nil
}

func (e *DialError) Error() string { return "cannot reach " + e.Kind.noun() + " at " + e.Addr }

// Unwrap returns ErrUnreachable and, when the caller cancelled, its
// context's error.
func (e *DialError) Unwrap() []error {
	if e.ctx != nil {
		return []error{ErrUnreachable, e.ctx}
	}
	return []error{ErrUnreachable}
}

// unreachable is the one error of a failed dial.
func unreachable(ctx context.Context, kind Kind, addr string) error {
	e := &DialError{Kind: kind, Addr: addr}
	if errors.Is(ctx.Err(), context.Canceled) {
		e.ctx = context.Canceled
	}
	return e
}

// DialContext returns a dial function for kind that resolves the address
// with the policy's resolver, checks every address it resolves to (E3),
// and dials the admitted ones in turn with d. A refusal is a
// *[RefusedError]; every other failure is the same *[DialError] (E4).
// A nil policy resolves and dials with d, errors kept uniform.
func (p *Policy) DialContext(kind Kind, d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if d == nil {
		d = &net.Dialer{}
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, unreachable(ctx, kind, addr)
		}
		ips, err := p.lookup(ctx, host)
		if err != nil || len(ips) == 0 {
			return nil, unreachable(ctx, kind, addr)
		}
		var admitted []netip.Addr
		var refusal error
		for _, ip := range ips {
			if err := p.Admit(kind, host, ip); err != nil {
				refusal = err
				continue
			}
			admitted = append(admitted, ip)
		}
		if len(admitted) == 0 {
			return nil, refusal
		}
		for _, ip := range admitted {
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
			if err == nil {
				return conn, nil
			}
		}
		return nil, unreachable(ctx, kind, addr)
	}
}

// lookup returns host's addresses: a literal as it is, a name through the
// policy's resolver (the default resolver for a nil policy).
func (p *Policy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	var r Resolver = net.DefaultResolver
	if p != nil {
		r = p.resolver
	}
	return r.LookupNetIP(ctx, "ip", host)
}
