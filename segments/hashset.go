package segments

// hashSet counts distinct 64-bit hashes: a pointer-free open-addressing
// table, fed in batches whose slots are touched first so their cache
// misses overlap.
type hashSet struct {
	tab     []uint64 // 0 = empty; the hash 0 is tracked by zero
	n       int
	zero    bool
	pending []uint64
	sink    uint64 // keeps the batch's loads
}

const hashSetBatch = 64

func newHashSet() *hashSet {
	return &hashSet{tab: make([]uint64, 1<<16), pending: make([]uint64, 0, hashSetBatch)}
}

// add records h (applied in batches).
func (s *hashSet) add(h uint64) {
	s.pending = append(s.pending, h)
	if len(s.pending) == hashSetBatch {
		s.flush()
	}
}

func (s *hashSet) flush() {
	mask := uint64(len(s.tab) - 1)
	var sink uint64
	for _, h := range s.pending {
		sink += s.tab[h&mask]
	}
	s.sink += sink
	for _, h := range s.pending {
		s.insert(h)
	}
	s.pending = s.pending[:0]
}

func (s *hashSet) insert(h uint64) {
	if h == 0 {
		if !s.zero {
			s.zero, s.n = true, s.n+1
		}
		return
	}
	mask := uint64(len(s.tab) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.tab[i] {
		case h:
			return
		case 0:
			s.tab[i] = h
			s.n++
			if 2*s.n > len(s.tab) {
				s.grow()
			}
			return
		}
	}
}

func (s *hashSet) grow() {
	old := s.tab
	s.tab = make([]uint64, 2*len(old))
	mask := uint64(len(s.tab) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for s.tab[i] != 0 {
			i = (i + 1) & mask
		}
		s.tab[i] = h
	}
}

// len is the number of distinct hashes added.
func (s *hashSet) len() int {
	s.flush()
	return s.n
}
