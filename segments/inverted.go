package segments

import (
	"encoding/binary"
	"io"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// writeInverted writes <col>.bitmap.inv: (cardinality+1) BE uint32 absolute
// offsets, then one portable RoaringBitmap per dictionary id holding the
// docs that contain it (each doc once). counts is nil for SV columns.
func writeInverted(w io.Writer, ids, counts []int32, cardinality int) error {
	// Bucket docs by id (counting sort); docs come out ascending per id.
	start := make([]int64, cardinality+1)
	forEachDocID(ids, counts, func(doc, id int32) { start[id+1]++ })
	for i := 1; i <= cardinality; i++ {
		start[i] += start[i-1]
	}
	docs := make([]uint32, start[cardinality])
	fill := append([]int64(nil), start[:cardinality]...)
	forEachDocID(ids, counts, func(doc, id int32) {
		docs[fill[id]] = uint32(doc)
		fill[id]++
	})
	blobs := make([][]byte, cardinality)
	for id := 0; id < cardinality; id++ {
		bm := roaring.New()
		bm.AddMany(docs[start[id]:start[id+1]])
		bm.RunOptimize()
		b, err := bm.ToBytes()
		if err != nil {
			return err
		}
		blobs[id] = b
	}
	hdr := make([]byte, 0, 4*(cardinality+1))
	off := uint32(4 * (cardinality + 1))
	for _, b := range blobs {
		hdr = binary.BigEndian.AppendUint32(hdr, off)
		off += uint32(len(b))
	}
	hdr = binary.BigEndian.AppendUint32(hdr, off)
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	for _, b := range blobs {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// forEachDocID calls fn once per (doc, distinct id in that doc).
func forEachDocID(ids, counts []int32, fn func(doc, id int32)) {
	if counts == nil {
		for doc, id := range ids {
			fn(int32(doc), id)
		}
		return
	}
	pos := 0
	var scratch []int32
	for doc, c := range counts {
		row := ids[pos : pos+int(c)]
		pos += int(c)
		if len(row) > 32 { // long rows: sort a copy, then skip repeats
			scratch = append(scratch[:0], row...)
			slices.Sort(scratch)
			for i, id := range scratch {
				if i == 0 || id != scratch[i-1] {
					fn(int32(doc), id)
				}
			}
			continue
		}
		for i, id := range row {
			dup := false
			for _, prev := range row[:i] {
				if prev == id {
					dup = true
					break
				}
			}
			if !dup {
				fn(int32(doc), id)
			}
		}
	}
}
