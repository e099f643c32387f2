package segments

import (
	"bytes"
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// bytesDict collects distinct variable-width values (STRING/JSON UTF-8,
// BYTES, BIG_DECIMAL keys) without a heap allocation per value. Its hash
// table holds no pointers: each slot packs a 24-bit hash tag and the
// value's arena position, and the arena entry holds the id next to the
// bytes, so a lookup touches the slot and one arena spot (the garbage
// collector never scans the table).
type bytesDict struct {
	tab    []uint64 // 0 = empty, else tag<<posBits | arena position
	vals   []string // by id; point into ar
	ar     arena
	maxLen int
	minLen int
	// high: some value holds a byte >= 0xEE (a char >= U+E000), where
	// UTF-8 byte order and UTF-16 order can differ.
	high bool
	// sorted: vals are already in final order (a rebuilt dictionary) and
	// the ids handed out are final.
	sorted bool
	sink   uint64 // keeps warm's loads
}

const (
	posBits   = 40 // arena position: block<<blockBits | offset
	blockBits = 24 // offset within a block
	posMask   = 1<<posBits - 1
)

func newBytesDict() *bytesDict { return newBytesDictSize(1024) }

// newBytesDictSize sizes the dictionary for about n distinct values.
func newBytesDictSize(n int) *bytesDict {
	size := 1024
	for size < 2*n {
		size *= 2
	}
	return &bytesDict{tab: make([]uint64, size), vals: make([]string, 0, n), minLen: math.MaxInt}
}

// id returns the value's id, adding it when new.
func (d *bytesDict) id(b []byte) int32 { return d.idHash(b, xxh3.Hash(b)) }

// shardOf picks one of n (<= 1024) shards from bits of the value's hash
// that neither the table index nor the tag use.
func shardOf(h uint64, n int) int { return int(h>>30&1023) % n }

// idHash is id with the value's xxh3 hash h already computed.
func (d *bytesDict) idHash(b []byte, h uint64) int32 {
	tag := h>>posBits | 1 // never 0, so a used slot is never 0
	mask := uint64(len(d.tab) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := d.tab[i]
		if s == 0 {
			return d.insert(i, tag, b)
		}
		if s>>posBits == tag {
			if id, ok := d.ar.match(s&posMask, b); ok {
				return id
			}
		}
	}
}

func (d *bytesDict) insert(slot, tag uint64, b []byte) int32 {
	id := int32(len(d.vals))
	pos, s := d.ar.add(id, b)
	d.tab[slot] = tag<<posBits | pos
	d.vals = append(d.vals, s)
	d.maxLen = max(d.maxLen, len(b))
	d.minLen = min(d.minLen, len(b))
	if !d.high {
		for _, c := range b {
			if c >= 0xEE {
				d.high = true
				break
			}
		}
	}
	if 2*len(d.vals) > len(d.tab) {
		d.grow()
	}
	return id
}

// warm touches the table slots and arena entries of a batch of hashes, so
// their cache misses overlap instead of queuing one lookup at a time.
func (d *bytesDict) warm(hs []uint64) {
	mask := uint64(len(d.tab) - 1)
	var sink uint64
	for _, h := range hs {
		sink += d.tab[h&mask]
	}
	for _, h := range hs {
		if s := d.tab[h&mask]; s != 0 {
			pos := s & posMask
			sink += uint64(d.ar.blocks[pos>>blockBits][pos&(1<<blockBits-1)])
		}
	}
	d.sink += sink
}

// grow doubles the table, rehashing each value from the arena.
func (d *bytesDict) grow() {
	old := d.tab
	d.tab = make([]uint64, 2*len(old))
	mask := uint64(len(d.tab) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := xxh3.Hash(d.ar.value(s&posMask)) & mask
		for d.tab[i] != 0 {
			i = (i + 1) & mask
		}
		d.tab[i] = s
	}
}

// arena stores dictionary entries (4-byte id, uvarint length, bytes) in
// blocks that never move, so strings pointing into it stay valid while it
// grows. size is the total length of the values.
type arena struct {
	blocks [][]byte
	cur    []byte
	size   int64
}

const arenaBlock = 1 << 20

// add appends an entry and returns its position and a view of its bytes.
func (a *arena) add(id int32, b []byte) (uint64, string) {
	need := 4 + binary.MaxVarintLen64 + len(b)
	if need > cap(a.cur)-len(a.cur) {
		n := arenaBlock
		if need > n/4 {
			n = need // a block of its own: offset 0 fits any size
		}
		a.cur = make([]byte, 0, n)
		a.blocks = append(a.blocks, a.cur)
	}
	off := len(a.cur)
	pos := uint64(len(a.blocks)-1)<<blockBits | uint64(off)
	a.cur = binary.LittleEndian.AppendUint32(a.cur, uint32(id))
	a.cur = binary.AppendUvarint(a.cur, uint64(len(b)))
	start := len(a.cur)
	a.cur = append(a.cur, b...)
	a.blocks[len(a.blocks)-1] = a.cur
	a.size += int64(len(b))
	if len(b) == 0 {
		return pos, ""
	}
	return pos, unsafe.String(&a.cur[start], len(b))
}

// entry is the id and value stored at pos.
func (a *arena) entry(pos uint64) (int32, []byte) {
	blk := a.blocks[pos>>blockBits]
	e := blk[pos&(1<<blockBits-1):]
	l, n := binary.Uvarint(e[4:])
	return int32(binary.LittleEndian.Uint32(e)), e[4+n : 4+n+int(l)]
}

func (a *arena) value(pos uint64) []byte {
	_, v := a.entry(pos)
	return v
}

// match returns the id at pos when its value is b.
func (a *arena) match(pos uint64, b []byte) (int32, bool) {
	id, v := a.entry(pos)
	return id, bytes.Equal(v, b)
}
