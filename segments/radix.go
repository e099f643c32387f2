package segments

// radixSort sorts s ascending with an LSD radix sort, one byte a pass,
// skipping the bytes every key shares. buf is scratch space of at least
// len(s) (allocated when shorter).
func radixSort(s, buf []uint64) {
	if len(s) < 256 {
		insertionSort(s)
		return
	}
	if len(buf) < len(s) {
		buf = make([]uint64, len(s))
	}
	buf = buf[:len(s)]
	var counts [8][256]int
	for _, v := range s {
		for b := range 8 {
			counts[b][byte(v>>(8*b))]++
		}
	}
	src, dst := s, buf
	for b := range 8 {
		c := &counts[b]
		if c[byte(src[0]>>(8*b))] == len(src) {
			continue // every key has this byte
		}
		var offs [256]int
		sum := 0
		for i, n := range c {
			offs[i], sum = sum, sum+n
		}
		shift := uint(8 * b)
		for _, v := range src {
			k := byte(v >> shift)
			dst[offs[k]] = v
			offs[k]++
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

func insertionSort(s []uint64) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
