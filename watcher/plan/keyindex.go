package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// fileKeys is a data file's key index (P12): the sorted 32-bit
// fingerprints of its rows' values of an equality delete group's compared
// fields. A row with a null in one of them is left out (only a delete
// with a null key, which compares nothing, can delete it).
type fileKeys struct {
	fps []uint32
}

// FNV-1a, 64 bits.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// keyFingerprint hashes a key's comparable values (each length-prefixed,
// so ("ab","c") and ("a","bc") differ) with 64-bit FNV-1a and folds the
// hash to 32 bits. Format: never change (key index files hold it).
func keyFingerprint(row []string) uint32 {
	h := uint64(fnvOffset)
	for _, v := range row {
		for n := uint64(len(v)); ; n >>= 7 { // uvarint length
			b := byte(n & 0x7f)
			if n >= 0x80 {
				b |= 0x80
			}
			h = (h ^ uint64(b)) * fnvPrime
			if n < 0x80 {
				break
			}
		}
		for i := 0; i < len(v); i++ {
			h = (h ^ uint64(v[i])) * fnvPrime
		}
	}
	return uint32(h>>32) ^ uint32(h)
}

// mayHold reports whether the file may hold a row with the key: false is
// certain, true may be a fingerprint collision (P12).
func (k *fileKeys) mayHold(row []string) bool {
	_, ok := slices.BinarySearch(k.fps, keyFingerprint(row))
	return ok
}

// size estimates the memory the index holds.
func (k *fileKeys) size() int64 { return 48 + 4*int64(cap(k.fps)) }

// KeyIndexStats counts a plan's use of the key index (P12).
type KeyIndexStats struct {
	// Files is the number of data files whose key index was consulted
	// (a key of a delete lay within their bounds).
	Files int `json:"files"`
	// Built counts the indexes read from data files during the plan;
	// the others came from the planner's cache or the key index
	// directory.
	Built int `json:"built"`
	// RuledOut counts the (data file, equality delete file) pairs whose
	// bounds matched but whose keys the file does not hold: the delete
	// is not the file's (it neither rebuilds the file nor is read with it).
	RuledOut int `json:"ruledOut"`
	// Unavailable counts the files whose index could not be built (a
	// column without a field id or of an unexpected type, a read error):
	// their bounds decide, as without the index.
	Unavailable int `json:"unavailable"`
}

// keyProbe finds data files' key indexes for one plan: each once, from
// the plan's memo, the planner's cache, the key index directory or the
// data file itself.
type keyProbe struct {
	ctx  context.Context
	j    *job
	memo map[string]*fileKeys // nil value: unavailable
	// ruled holds the (data file, delete file) pairs ruled out, each
	// counted once however often the plan asks (KeyIndexStats.RuledOut).
	ruled map[[2]string]bool
	stats KeyIndexStats
}

// ruleOut records that the file at path does not hold d's keys.
func (p *keyProbe) ruleOut(path string, d *liveDelete) {
	k := [2]string{path, d.path}
	if !p.ruled[k] {
		p.ruled[k] = true
		p.stats.RuledOut++
	}
}

// Stats returns the probe's counters (zero for no probe).
func (p *keyProbe) Stats() KeyIndexStats {
	if p == nil {
		return KeyIndexStats{}
	}
	return p.stats
}

// newKeyProbe is nil (no index) when the planner's options turn it off or
// no key is compared.
func (j *job) newKeyProbe(ctx context.Context, classes map[int]keyClass) *keyProbe {
	if j.p.opts.NoKeyIndex || classes == nil {
		return nil
	}
	return &keyProbe{ctx: ctx, j: j, memo: map[string]*fileKeys{}, ruled: map[[2]string]bool{}}
}

// keyIndexName names a data file's index of fields (decoded with their
// classes) in the cache and, hashed, in the key index directory.
func keyIndexName(path string, fields []int, classes map[int]keyClass) string {
	var b strings.Builder
	b.WriteString("keyindex:")
	b.WriteString(path)
	for _, id := range fields {
		fmt.Fprintf(&b, "#%d=%d", id, classes[id])
	}
	return b.String()
}

// keysOf returns the key index of a data file for fields, nil when it
// cannot be had (the caller then keeps to the bounds).
func (p *keyProbe) keysOf(path string, fields []int) *fileKeys {
	name := keyIndexName(path, fields, p.j.classes)
	if k, ok := p.memo[name]; ok {
		return k
	}
	p.stats.Files++
	k := p.load(name, path, fields)
	if k == nil {
		p.stats.Unavailable++
	}
	p.memo[name] = k
	return k
}

func (p *keyProbe) load(name, path string, fields []int) *fileKeys {
	cache := p.j.p.cache
	if v, ok := cache.get(name); ok {
		return v.(*fileKeys)
	}
	dir := p.j.p.opts.KeyIndexDir
	file := keyIndexFile(dir, name)
	if k, err := readKeyIndex(file, name); err == nil {
		cache.put(name, k, k.size()+int64(len(name)))
		return k
	}
	k, err := buildFileKeys(p.ctx, p.j, path, fields)
	if err != nil {
		return nil
	}
	p.stats.Built++
	cache.put(name, k, k.size()+int64(len(name)))
	if dir != "" {
		// A failed write costs a rebuild next time, nothing else.
		_ = writeKeyIndex(file, name, k)
	}
	return k
}

// keyIndexFile is the file in dir that holds the index called name.
func keyIndexFile(dir, name string) string {
	if dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".fki")
}

// buildFileKeys reads a data file's columns of fields (by field id) and
// fingerprints its rows' keys.
func buildFileKeys(ctx context.Context, j *job, path string, fields []int) (*fileKeys, error) {
	kf, err := j.openKeyFile(path, fields)
	if err != nil {
		return nil, err
	}
	defer kf.Close()
	pf, fr, cols := kf.pf, kf.fr, kf.cols
	k := &fileKeys{fps: make([]uint32, 0, pf.NumRows())}
	row := make([]string, len(fields))
	for g := range pf.NumRowGroups() {
		tbl, err := fr.ReadRowGroups(ctx, cols, []int{g})
		if err != nil {
			return nil, err
		}
		err = k.add(tbl, fields, j.classes, row)
		tbl.Release()
		if err != nil {
			return nil, fmt.Errorf("data file %s: %w", path, err)
		}
	}
	slices.Sort(k.fps)
	k.fps = slices.Compact(k.fps)
	return k, nil
}

// add fingerprints the rows of tbl, whose columns are fields in order.
func (k *fileKeys) add(tbl arrow.Table, fields []int, classes map[int]keyClass, row []string) error {
	chunks := make([]arrow.Array, len(fields))
	idx := make([]int, len(fields))
	pos := make([]int, len(fields))
	for r := int64(0); r < tbl.NumRows(); r++ {
		null := false
		for c, id := range fields {
			for chunks[c] == nil || pos[c] >= chunks[c].Len() {
				chunks[c], pos[c] = tbl.Column(c).Data().Chunk(idx[c]), 0
				idx[c]++
			}
			arr, i := chunks[c], pos[c]
			pos[c]++
			if arr.IsNull(i) {
				null = true
				continue
			}
			v, ok := keyValue(arr, i, classes[id])
			if !ok {
				return fmt.Errorf("column of field id %d holds %s, not a key of its type", id, arr.DataType())
			}
			row[c] = v
		}
		if !null {
			k.fps = append(k.fps, keyFingerprint(row))
		}
	}
	return nil
}
