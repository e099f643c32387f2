package schema

import (
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
)

// TableName names an Iceberg table: catalog, namespace levels and table.
// Catalog may be empty when a connection already fixes the catalog.
type TableName struct {
	Catalog   string
	Namespace []string
	Table     string
}

// ParseTableName parses "catalog.namespace[.namespace...].table"; a part
// that holds anything but letters, digits and underscores is written in
// backticks (“ `My-Catalog`.sales.orders “), a backtick inside backticks
// doubled.
func ParseTableName(s string) (TableName, error) {
	parts, err := splitName(s)
	if err != nil {
		return TableName{}, err
	}
	if len(parts) < 3 {
		return TableName{}, fmt.Errorf("parse table name %q: %w: want catalog.namespace.table", s, ErrInvalidName)
	}
	return TableName{Catalog: parts[0], Namespace: parts[1 : len(parts)-1], Table: parts[len(parts)-1]}, nil
}

// ParseTableIdent parses "namespace[.namespace...].table" (no catalog), the
// form of the CLI's --table flag.
func ParseTableIdent(s string) (TableName, error) {
	parts, err := splitName(s)
	if err != nil {
		return TableName{}, err
	}
	if len(parts) < 2 {
		return TableName{}, fmt.Errorf("parse table name %q: %w: want namespace.table", s, ErrInvalidName)
	}
	return TableName{Namespace: parts[:len(parts)-1], Table: parts[len(parts)-1]}, nil
}

func splitName(s string) ([]string, error) {
	var parts []string
	for i := 0; ; {
		part, next, err := namePart(s, i)
		if err != nil {
			return nil, fmt.Errorf("parse table name %q: %w", s, err)
		}
		parts = append(parts, part)
		if next == len(s) {
			return parts, nil
		}
		i = next + 1 // skip the '.'
	}
}

// namePart reads one part starting at s[i] and returns it with the index of
// the '.' that ends it (or len(s)).
func namePart(s string, i int) (string, int, error) {
	if i < len(s) && s[i] == '`' {
		var b strings.Builder
		for j := i + 1; j < len(s); j++ {
			if s[j] != '`' {
				b.WriteByte(s[j])
				continue
			}
			if j+1 < len(s) && s[j+1] == '`' {
				b.WriteByte('`')
				j++
				continue
			}
			if j+1 < len(s) && s[j+1] != '.' {
				return "", 0, fmt.Errorf("%w: unexpected %q after quoted part at offset %d", ErrInvalidName, s[j+1], j+1)
			}
			if b.Len() == 0 {
				return "", 0, fmt.Errorf("%w: empty part at offset %d", ErrInvalidName, i)
			}
			return b.String(), j + 1, nil
		}
		return "", 0, fmt.Errorf("%w: unterminated backtick at offset %d", ErrInvalidName, i)
	}
	end := strings.IndexByte(s[i:], '.')
	if end < 0 {
		end = len(s) - i
	}
	part := s[i : i+end]
	if part == "" {
		return "", 0, fmt.Errorf("%w: empty part at offset %d", ErrInvalidName, i)
	}
	if !isBare(part) {
		return "", 0, fmt.Errorf("%w: part %q holds characters other than letters, digits and '_': quote it with backticks", ErrInvalidName, part)
	}
	return part, i + end, nil
}

func isBare(p string) bool {
	for _, r := range p {
		if r != '_' && !isASCIILetterOrDigit(r) {
			return false
		}
	}
	return p != ""
}

func isASCIILetterOrDigit(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func quotePart(p string) string {
	if isBare(p) {
		return p
	}
	return "`" + strings.ReplaceAll(p, "`", "``") + "`"
}

// String prints the name in the form ParseTableName (or, without a
// catalog, ParseTableIdent) reads back.
func (n TableName) String() string {
	var parts []string
	if n.Catalog != "" {
		parts = append(parts, quotePart(n.Catalog))
	}
	for _, ns := range n.Namespace {
		parts = append(parts, quotePart(ns))
	}
	return strings.Join(append(parts, quotePart(n.Table)), ".")
}

// Ident returns the iceberg-go table identifier (namespace levels + table).
func (n TableName) Ident() []string {
	return append(append([]string{}, n.Namespace...), n.Table)
}

// PinotName derives the Pinot raw table name: the namespace levels and the
// table (not the catalog), each with every run of characters other than
// ASCII letters and digits replaced by one '_' and '_' trimmed from both
// ends, joined with '_'. When that changed any part, "_" plus 8 hex digits
// of the FNV-1a hash of String() is appended so different Iceberg names
// stay apart. The result never holds "__", '.', or white space.
func (n TableName) PinotName() string {
	changed := false
	var parts []string
	for _, p := range n.Ident() {
		c := sanitizePart(p)
		changed = changed || c != p
		if c != "" {
			parts = append(parts, c)
		}
	}
	name := strings.Join(parts, "_")
	if changed || name == "" {
		h := fnv.New32a()
		h.Write([]byte(n.String()))
		name = strings.TrimPrefix(fmt.Sprintf("%s_%08x", name, h.Sum32()), "_")
	}
	return name
}

func sanitizePart(p string) string {
	var b strings.Builder
	gap := false
	for _, r := range p {
		if isASCIILetterOrDigit(r) {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteRune(r)
			continue
		}
		gap = true
	}
	return b.String()
}

// MaxPinotNameLen is the longest table name floe creates.
const MaxPinotNameLen = 128

// PinotNameRule states the rule ValidatePinotName enforces; every error it
// returns repeats it.
const PinotNameRule = "a Pinot table name is 1-128 ASCII letters, digits, '_' and '-', starts with a letter " +
	"or digit, and holds no \"__\" (Pinot's segment-name separator); '.', white space, control, " +
	"zero-width and right-to-left characters are refused"

// ValidatePinotName checks a Pinot raw table name against PinotNameRule.
// Pinot itself refuses '.' (its database separator) and white space; floe
// also keeps to ASCII so that a name cannot render as another one.
func ValidatePinotName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: Pinot table name %q %s: %s", ErrInvalidName, name, why, PinotNameRule)
	}
	switch {
	case name == "":
		return fmt.Errorf("%w: empty Pinot table name: %s", ErrInvalidName, PinotNameRule)
	case len(name) > MaxPinotNameLen:
		return bad(fmt.Sprintf("is %d bytes long", len(name)))
	case strings.Contains(name, "__"):
		return bad(`holds "__"`)
	case name[0] == '_' || name[0] == '-':
		return bad(fmt.Sprintf("starts with %q", name[0]))
	}
	for _, r := range name {
		if r != '_' && r != '-' && !isASCIILetterOrDigit(r) {
			return bad(fmt.Sprintf("holds %s", describeRune(r)))
		}
	}
	return nil
}

// describeRune names a refused character so that an invisible one shows.
func describeRune(r rune) string {
	switch {
	case r == '.':
		return "'.'"
	case unicode.IsSpace(r):
		return fmt.Sprintf("white space %U", r)
	case unicode.Is(unicode.Bidi_Control, r):
		return fmt.Sprintf("the right-to-left/bidi control %U", r)
	case unicode.Is(unicode.Cf, r):
		return fmt.Sprintf("the invisible format character %U", r)
	case unicode.IsControl(r):
		return fmt.Sprintf("the control character %U", r)
	}
	return fmt.Sprintf("%q (%U)", r, r)
}
