package plan

import (
	"encoding/binary"
	"hash/fnv"
	"slices"
	"testing"
)

// P12: the key fingerprint is 64-bit FNV-1a of the values, each after its
// uvarint length, folded to 32 bits; checked against the standard
// library's FNV so that the format cannot drift.
func TestKeyFingerprint_isLengthPrefixedFNV1a(t *testing.T) {
	for _, row := range [][]string{{""}, {"a"}, {"ab", "c"}, {"a", "bc"}, {string(make([]byte, 300)), "x"}} {
		h := fnv.New64a()
		for _, v := range row {
			h.Write(binary.AppendUvarint(nil, uint64(len(v))))
			h.Write([]byte(v))
		}
		s := h.Sum64()
		if got, want := keyFingerprint(row), uint32(s>>32)^uint32(s); got != want {
			t.Errorf("keyFingerprint(%q) = %#x, want %#x", row, got, want)
		}
	}
	if keyFingerprint([]string{"ab", "c"}) == keyFingerprint([]string{"a", "bc"}) {
		t.Error("keys with the same bytes split differently share a fingerprint")
	}
}

// P12: a key index file reads back only as the index it was written as:
// whole, of its name, of its version.
func TestKeyIndexFile_roundTripAndDamage(t *testing.T) {
	k := &fileKeys{fps: []uint32{1, 7, 1 << 31, 0xffffffff}}
	name := keyIndexName("s3://lake/data/f.parquet", []int{1, 4}, map[int]keyClass{1: intClass, 4: bytesClass})
	b := encodeKeyIndex(name, k)
	got, err := decodeKeyIndex(b, name)
	if err != nil || !slices.Equal(got.fps, k.fps) {
		t.Fatalf("round trip: %v %v", got, err)
	}
	if got.mayHold([]string{"x"}) != slices.Contains(k.fps, keyFingerprint([]string{"x"})) {
		t.Fatal("mayHold disagrees with the fingerprints")
	}
	if _, err := decodeKeyIndex(b, name+"x"); err == nil {
		t.Error("an index read under another name")
	}
	for i := range b {
		bad := slices.Clone(b)
		bad[i] ^= 0x01
		if _, err := decodeKeyIndex(bad, name); err == nil {
			t.Fatalf("a flipped bit at byte %d of %d went unnoticed", i, len(b))
		}
	}
	for n := range len(b) {
		if _, err := decodeKeyIndex(b[:n], name); err == nil {
			t.Fatalf("an index cut to %d of %d bytes read", n, len(b))
		}
	}
}
