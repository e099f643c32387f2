package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Kind is a kind of peer floe calls.
type Kind string

// The kinds of peers, named as their settings are (security.egress.<kind>).
const (
	Catalog   Kind = "catalog"
	OAuth     Kind = "oauth"
	AWS       Kind = "aws"
	Pinot     Kind = "pinot"
	DeepStore Kind = "deepStore"
)

// Kinds lists every kind.
func Kinds() []Kind { return []Kind{Catalog, OAuth, AWS, Pinot, DeepStore} }

// noun is how errors name a kind of peer.
func (k Kind) noun() string {
	switch k {
	case OAuth:
		return "OAuth token endpoint"
	case AWS:
		return "AWS endpoint"
	case DeepStore:
		return "deep store"
	}
	return string(k)
}

// Rule is what one kind of peer may reach beyond public addresses.
type Rule struct {
	// Allow lists addresses (10.0.0.5, ::1), networks (10.0.0.0/8) and
	// host names (catalog.internal, *.corp.example) that may be reached
	// although their address is loopback or private; metadata and
	// link-local addresses only by an address or network inside their range.
	Allow []string `yaml:"allow"`
	// ListedOnly refuses public addresses too unless Allow lists them.
	ListedOnly bool `yaml:"listedOnly"`
}

// Config is the egress policy as configured (security.egress). Allow and
// ListedOnly apply to every kind; each kind's Rule adds to them.
type Config struct {
	Allow      []string `yaml:"allow"`
	ListedOnly bool     `yaml:"listedOnly"`
	Catalog    Rule     `yaml:"catalog"`
	OAuth      Rule     `yaml:"oauth"`
	AWS        Rule     `yaml:"aws"`
	Pinot      Rule     `yaml:"pinot"`
	DeepStore  Rule     `yaml:"deepStore"`
}

// rule returns the kind's own rule.
func (c Config) rule(k Kind) Rule {
	switch k {
	case Catalog:
		return c.Catalog
	case OAuth:
		return c.OAuth
	case AWS:
		return c.AWS
	case Pinot:
		return c.Pinot
	case DeepStore:
		return c.DeepStore
	}
	return Rule{}
}

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// StaticResolver answers names from a fixed table (a name it lacks does
// not resolve): for fixed host entries, and for tests that play a DNS
// server rebinding a name to another address.
type StaticResolver map[string][]netip.Addr

// LookupNetIP implements Resolver.
func (r StaticResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if ips, ok := r[host]; ok {
		return ips, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// FieldError is a configuration problem; Field is relative to
// security.egress ("allow[2]", "catalog.allow[0]").
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// ErrRefused is wrapped by every refusal of the policy.
var ErrRefused = errors.New("refused by the egress policy")

// RefusedError is an address the policy refuses for a kind of peer.
type RefusedError struct {
	Kind  Kind
	Host  string // as dialled or written
	Class string // metadata, link-local, loopback, private, public
}

func (e *RefusedError) Error() string {
	what := "a " + e.Class + " address"
	if e.Class == classMetadata {
		what = "a cloud metadata address"
	}
	verb := "is"
	if _, err := netip.ParseAddr(strings.Trim(e.Host, "[]")); err != nil && !isMetadataName(e.Host) {
		verb = "resolves to"
	}
	return fmt.Sprintf("%s %s %s %s, which floe does not call unless security.egress.%s.allow (or security.egress.allow) admits it: %s",
		e.Kind.noun(), e.Host, verb, what, e.Kind, ErrRefused)
}

// Unwrap makes errors.Is(err, ErrRefused) hold.
func (e *RefusedError) Unwrap() error { return ErrRefused }

// allowList is one kind's compiled allow entries.
type allowList struct {
	prefixes   []netip.Prefix
	names      []string // exact, lower case
	suffixes   []string // ".corp.example" for "*.corp.example"
	listedOnly bool
}

// Policy decides which addresses each kind of peer may be reached at.
// The zero Policy is not usable; build one with [New] or [Default]. A nil
// *Policy checks nothing (library use without a policy), but its
// transports still refuse cross-origin redirects and keep errors uniform.
type Policy struct {
	kinds    map[Kind]allowList
	resolver Resolver
}

// Default is the policy of an empty Config: public addresses only.
func Default() *Policy {
	p, _ := New(Config{}, nil)
	return p
}

// New compiles cfg. resolver looks names up at dial time (nil:
// net.DefaultResolver). Errors name the entry at fault.
func New(cfg Config, resolver Resolver) (*Policy, error) {
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	p := &Policy{kinds: make(map[Kind]allowList), resolver: resolver}
	var global allowList
	if err := global.add("allow", cfg.Allow); err != nil {
		return nil, err
	}
	for _, k := range Kinds() {
		r := cfg.rule(k)
		l := allowList{prefixes: append([]netip.Prefix(nil), global.prefixes...),
			names: append([]string(nil), global.names...), suffixes: append([]string(nil), global.suffixes...),
			listedOnly: cfg.ListedOnly || r.ListedOnly}
		if err := l.add(string(k)+".allow", r.Allow); err != nil {
			return nil, err
		}
		p.kinds[k] = l
	}
	return p, nil
}

// add compiles entries into l.
func (l *allowList) add(field string, entries []string) error {
	for i, raw := range entries {
		e := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(raw), "."))
		name := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case e == "":
			return &FieldError{name, "empty entry"}
		case strings.Contains(e, "/"):
			pfx, err := netip.ParsePrefix(e)
			if err != nil {
				return &FieldError{name, fmt.Sprintf("%q is not a network (want e.g. 10.0.0.0/8): %v", raw, err)}
			}
			l.prefixes = append(l.prefixes, pfx.Masked())
		case isIPLiteral(e):
			ip, err := netip.ParseAddr(strings.Trim(e, "[]"))
			if err != nil {
				return &FieldError{name, fmt.Sprintf("%q is not an address: %v", raw, err)}
			}
			ip = ip.Unmap()
			l.prefixes = append(l.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
		case strings.HasPrefix(e, "*."):
			if !validName(e[2:]) {
				return &FieldError{name, fmt.Sprintf("%q is not a host name pattern (want *.example.com)", raw)}
			}
			l.suffixes = append(l.suffixes, e[1:])
		default:
			if !validName(e) {
				return &FieldError{name, fmt.Sprintf("%q is not an address, network or host name (no ports or schemes)", raw)}
			}
			l.names = append(l.names, e)
		}
	}
	return nil
}

// isIPLiteral reports whether e looks like an address rather than a name.
func isIPLiteral(e string) bool {
	if strings.Contains(e, ":") {
		return true
	}
	_, err := netip.ParseAddr(e)
	return err == nil
}

// validName accepts DNS host names (letters, digits, '-', '_', dots).
func validName(s string) bool {
	if s == "" || len(s) > 253 || strings.HasPrefix(s, ".") || strings.Contains(s, "..") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return false
		}
	}
	return true
}

// namesHost reports whether the list admits host by name.
func (l allowList) namesHost(host string) bool {
	host = normName(host)
	if host == "" {
		return false
	}
	for _, n := range l.names {
		if host == n {
			return true
		}
	}
	for _, s := range l.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

// opensLinkLocal reports whether an entry admits some metadata or
// link-local address.
func (l allowList) opensLinkLocal() bool {
	for _, pfx := range l.prefixes {
		c, rng := classify(pfx.Addr())
		if (c == classMetadata || c == classLinkLocal) && insideAny(pfx, rng) {
			return true
		}
	}
	return false
}

func normName(host string) string { return strings.ToLower(strings.TrimSuffix(host, ".")) }

// Admit decides whether kind may reach ip, dialled as host (a name or the
// address itself; "" when unknown).
func (p *Policy) Admit(kind Kind, host string, ip netip.Addr) error {
	if p == nil {
		return nil
	}
	l, ok := p.kinds[kind]
	if !ok {
		return fmt.Errorf("egress: unknown kind of peer %q", kind)
	}
	ip = effective(ip)
	class, rng := classify(ip)
	switch class {
	case classMetadata, classLinkLocal:
		for _, pfx := range l.prefixes {
			if pfx.Contains(ip) && insideAny(pfx, rng) {
				return nil
			}
		}
	default:
		for _, pfx := range l.prefixes {
			if pfx.Contains(ip) {
				return nil
			}
		}
		if l.namesHost(host) {
			return nil
		}
		if class == classPublic && !l.listedOnly {
			return nil
		}
	}
	if host == "" {
		host = ip.String()
	}
	return &RefusedError{Kind: kind, Host: host, Class: class}
}

// insideAny reports whether pfx lies inside one of ranges.
func insideAny(pfx netip.Prefix, ranges []netip.Prefix) bool {
	for _, r := range ranges {
		if r.Bits() <= pfx.Bits() && r.Contains(pfx.Addr()) {
			return true
		}
	}
	return false
}

// CheckHost checks a host as written in a URL or setting (no port), before
// anything is dialled: an address literal is judged as it is, localhost
// names as loopback and the metadata names as metadata; other names are
// judged at dial time, on what they resolve to.
func (p *Policy) CheckHost(kind Kind, host string) error {
	if p == nil || host == "" {
		return nil
	}
	h := strings.Trim(host, "[]")
	if i := strings.IndexByte(h, '%'); i >= 0 { // zone
		h = h[:i]
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return p.Admit(kind, host, ip)
	}
	n := normName(host)
	switch {
	case n == "localhost" || strings.HasSuffix(n, ".localhost"):
		return p.Admit(kind, host, netip.AddrFrom4([4]byte{127, 0, 0, 1}))
	case isMetadataName(n):
		if p.kinds[kind].opensLinkLocal() {
			return nil // judged at dial time, on the address
		}
		return &RefusedError{Kind: kind, Host: host, Class: classMetadata}
	}
	if l := p.kinds[kind]; l.listedOnly && !l.namesHost(n) && len(l.prefixes) == 0 {
		return &RefusedError{Kind: kind, Host: host, Class: classPublic}
	}
	return nil
}

// Lists reports whether kind's allow entries name host explicitly: by
// name, or as an address inside a listed network. A nil policy lists
// nothing.
func (p *Policy) Lists(kind Kind, host string) bool {
	if p == nil {
		return false
	}
	l := p.kinds[kind]
	if l.namesHost(host) {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return false
	}
	ip = effective(ip)
	for _, pfx := range l.prefixes {
		if pfx.Contains(ip) {
			return true
		}
	}
	return false
}
