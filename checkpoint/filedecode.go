package checkpoint

import (
	"encoding/base64"
	"fmt"
	"strconv"
)

// fileDecoder decodes the FileState values of one file map. A checkpoint
// read decodes one value per data file of the table, so the values are
// parsed by hand when they have the shape encodeFile writes (the keys of
// fileRecord, strings without escapes, integers): no reflection, and the
// strings many files repeat (a coalesced unit's segments and group, the
// partition, the delete fingerprint) are shared instead of allocated per
// file. Anything else (escapes, unknown or differently cased keys, a
// malformed value) goes through decode, which encoding/json handles as
// before, so both paths accept the same values. Not safe for concurrent
// use; one per read.
type fileDecoder struct {
	table   string
	strings map[string]string
}

func newFileDecoder(table string) *fileDecoder {
	return &fileDecoder{table: table, strings: map[string]string{}}
}

// decode returns the FileState of the file at path stored as data.
func (d *fileDecoder) decode(path string, data []byte) (FileState, error) {
	if fs, v, ok := d.parse(data); ok {
		if v < FormatV1 || v > FormatCurrent { // the message is made only when needed
			return FileState{}, checkVersion(d.what(path), v)
		}
		return fs, nil
	}
	var r fileRecord
	if err := decode(d.what(path), data, &r); err != nil {
		return FileState{}, err
	}
	return r.FileState, nil
}

func (d *fileDecoder) what(path string) string {
	return fmt.Sprintf("file state %q of table %q", path, d.table)
}

// intern returns b as a string, the same string for equal bytes.
func (d *fileDecoder) intern(b []byte) string {
	if s, ok := d.strings[string(b)]; ok {
		return s
	}
	s := string(b)
	d.strings[s] = s
	return s
}

// parse is the fast path; ok is false when data is not in encodeFile's
// plain shape (the caller then decodes it with encoding/json).
func (d *fileDecoder) parse(data []byte) (fs FileState, v FormatVersion, ok bool) {
	s := scanner{b: data}
	if !s.byte('{') {
		return fs, 0, false
	}
	if s.byte('}') {
		return fs, 0, s.end()
	}
	for {
		key, ok := s.str()
		if !ok || !s.byte(':') || !d.field(&s, string(key), &fs, &v) {
			return fs, 0, false
		}
		if s.byte(',') {
			continue
		}
		return fs, v, s.byte('}') && s.end()
	}
}

// field parses the value of one key into fs (or v).
func (d *fileDecoder) field(s *scanner, key string, fs *FileState, v *FormatVersion) bool {
	var ok bool
	switch key {
	case "v":
		var n int64
		n, ok = s.int()
		*v = FormatVersion(n)
	case "deleteFingerprint":
		fs.DeleteFingerprint, ok = d.optString(s)
	case "group":
		fs.Group, ok = d.optString(s)
	case "partition":
		fs.Partition, ok = d.optString(s)
	case "rows":
		fs.Rows, ok = s.int()
	case "sizeBytes":
		fs.SizeBytes, ok = s.int()
	case "dataSeq":
		fs.DataSeq, ok = s.int()
	case "segments":
		fs.Segments, ok = d.segments(s)
	case "keyBounds":
		fs.KeyBounds, ok = keyBounds(s)
	}
	return ok
}

func (d *fileDecoder) optString(s *scanner) (string, bool) {
	if s.null() {
		return "", true
	}
	b, ok := s.str()
	if !ok {
		return "", false
	}
	return d.intern(b), true
}

func (d *fileDecoder) segments(s *scanner) ([]string, bool) {
	if s.null() {
		return nil, true
	}
	if !s.byte('[') {
		return nil, false
	}
	out := []string{}
	if s.byte(']') {
		return out, true
	}
	for {
		b, ok := s.str()
		if !ok {
			return nil, false
		}
		out = append(out, d.intern(b))
		if s.byte(',') {
			continue
		}
		return out, s.byte(']')
	}
}

// keyBounds parses {"<field id>":[lower,upper],...}, each bound a base64
// string or null.
func keyBounds(s *scanner) (KeyBounds, bool) {
	if s.null() {
		return nil, true
	}
	if !s.byte('{') {
		return nil, false
	}
	out := KeyBounds{}
	if s.byte('}') {
		return out, true
	}
	for {
		k, ok := s.str()
		if !ok || !s.byte(':') || !s.byte('[') {
			return nil, false
		}
		id, err := strconv.Atoi(string(k))
		if err != nil {
			return nil, false
		}
		var pair [2][]byte
		for i := range pair {
			if i == 1 && !s.byte(',') {
				return nil, false
			}
			if pair[i], ok = bound(s); !ok {
				return nil, false
			}
		}
		if !s.byte(']') {
			return nil, false
		}
		out[id] = pair
		if s.byte(',') {
			continue
		}
		return out, s.byte('}')
	}
}

func bound(s *scanner) ([]byte, bool) {
	if s.null() {
		return nil, true
	}
	b, ok := s.str()
	if !ok {
		return nil, false
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b))) // JSON's []byte: standard base64
	n, err := base64.StdEncoding.Decode(out, b)
	return out[:n], err == nil
}

// scanner reads the JSON tokens the fast path knows, skipping white space.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) skip() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\n' || s.b[s.i] == '\t' || s.b[s.i] == '\r') {
		s.i++
	}
}

// byte consumes c if it comes next.
func (s *scanner) byte(c byte) bool {
	s.skip()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) end() bool {
	s.skip()
	return s.i == len(s.b)
}

func (s *scanner) null() bool {
	s.skip()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// str reads a string of printable ASCII without escapes (ok false
// otherwise: the slow path decodes it, with encoding/json's handling of
// escapes and invalid UTF-8).
func (s *scanner) str() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// int reads an integer as encoding/json writes it (optional minus, digits).
func (s *scanner) int() (int64, bool) {
	s.skip()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == digits || (s.b[digits] == '0' && s.i-digits > 1) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	return n, err == nil
}
