package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/redis/go-redis/v9"
)

// The file index of a table on Redis (C14; layout in doc.go): the Bolt
// index's parts, one key each. The client that holds the lease computes
// what a commit changes in it and stages that beside the file map; the
// commit's script applies both under the lease check, so the index moves
// with the map and the header in one atomic step.

var _ FileIndex = (*Redis)(nil)

func (k redisKeys) indexStamp(n string) string { return k.key("fidx-stamp", n) }
func (k redisKeys) indexSegs(n string) string  { return k.key("fidx-segs", n) }
func (k redisKeys) indexUnits(n string) string { return k.key("fidx-units", n) }
func (k redisKeys) indexSmall(n string) string { return k.key("fidx-small", n) }

// index names the keys of table n's index, in the order the commit
// scripts take them: stamp, segs, units, small.
func (k redisKeys) index(n string) []string {
	return []string{k.indexStamp(n), k.indexSegs(n), k.indexUnits(n), k.indexSmall(n)}
}

// indexStaging names the staging keys of a commit's index change.
type indexStaging struct {
	segs, units, small, unitDels, smallOut string
}

func (k redisKeys) indexStaging(table, nonce string) indexStaging {
	return indexStaging{
		segs:     k.staging(table, nonce+":fidx-segs"),
		units:    k.staging(table, nonce+":fidx-units"),
		small:    k.staging(table, nonce+":fidx-small"),
		unitDels: k.staging(table, nonce+":fidx-unitdel"),
		smallOut: k.staging(table, nonce+":fidx-smallout"),
	}
}

// redisIndexWrite is what a commit writes to a table's index: a whole
// index (fresh: reference counts, units, small keys) that replaces the
// stored one, or edits of it (reference count increments, units to write
// and to delete, small keys to take out and to put in).
type redisIndexWrite struct {
	fresh    bool
	counts   FileCounts // of the map after the commit
	segs     map[string]int
	units    map[string][]byte // unit key → unitState JSON
	unitDels []string
	smallIn  []string
	smallOut []string
}

// freshIndexWrite is the whole index of files: each unit built once from
// its members (no edit maps: a whole commit indexes every entry).
func freshIndexWrite(files map[string]FileState) (*redisIndexWrite, error) {
	w := &redisIndexWrite{fresh: true, counts: CountFiles(files), segs: make(map[string]int, len(files))}
	units := make(map[unitRef]*unitState, len(files))
	for p, fs := range files {
		for _, s := range fs.Segments {
			w.segs[s]++
		}
		ref := unitOf(p, fs)
		u := units[ref]
		if u == nil {
			u = &unitState{versioned: versioned{V: FormatCurrent}}
			units[ref] = u
		}
		u.Paths = append(u.Paths, p)
		u.count(fs.SizeBytes, 1)
	}
	w.units = make(map[string][]byte, len(units))
	for ref, u := range units {
		slices.Sort(u.Paths)
		raw, err := encode("file index unit", u)
		if err != nil {
			return nil, err
		}
		w.units[string(unitKey(ref))] = raw
		if u.Unsized == 0 {
			w.smallIn = append(w.smallIn, string(smallKey(ref, u.Bytes)))
		}
	}
	return w, nil
}

// encodeHeaderAndStamp encodes a commit's header and the stamp of the
// index written with it, for a map whose counts are counts.
func encodeHeaderAndStamp(h checkpointHeader, counts FileCounts) (hdr, stamp []byte, err error) {
	if hdr, err = encode("checkpoint", h); err != nil {
		return nil, nil, err
	}
	stamp, err = encode("file index stamp", newIndexStamp(h, counts))
	return hdr, stamp, err
}

// indexWrite applies x to the stored units old (unit key → unit; absent:
// none) and returns the change, for a map whose counts become counts.
func indexWrite(x *indexDelta, old map[string]*unitState, counts FileCounts, fresh bool) (*redisIndexWrite, error) {
	w := &redisIndexWrite{fresh: fresh, counts: counts, segs: make(map[string]int, len(x.segs)),
		units: make(map[string][]byte, len(x.units))}
	for name, n := range x.segs {
		if n != 0 {
			w.segs[name] = n
		}
	}
	for ref, e := range x.units {
		key := string(unitKey(ref))
		c := changeUnit(ref, old[key], e)
		if c.unit == nil {
			w.unitDels = append(w.unitDels, key)
		} else {
			raw, err := encode("file index unit", c.unit)
			if err != nil {
				return nil, err
			}
			w.units[key] = raw
		}
		if c.smallOut != nil {
			w.smallOut = append(w.smallOut, string(c.smallOut))
		}
		if c.smallIn != nil {
			w.smallIn = append(w.smallIn, string(c.smallIn))
		}
	}
	return w, nil
}

// stage writes w into the staging keys st.
func (w *redisIndexWrite) stage(b *stageBatch, st indexStaging) error {
	segs := make([]any, 0, 2*len(w.segs))
	for name, n := range w.segs {
		segs = append(segs, name, n)
	}
	units := make([]any, 0, 2*len(w.units))
	for key, raw := range w.units {
		units = append(units, key, raw)
	}
	if err := b.hash(st.segs, segs); err != nil {
		return err
	}
	if err := b.hash(st.units, units); err != nil {
		return err
	}
	if err := b.zset(st.small, w.smallIn); err != nil {
		return err
	}
	if err := b.set(st.unitDels, w.unitDels); err != nil {
		return err
	}
	return b.set(st.smallOut, w.smallOut)
}

// sizes are the entry counts of the staging keys, in the order of
// indexStaging's fields, for the script to check that staging is whole.
func (w *redisIndexWrite) sizes() []any {
	return []any{len(w.segs), len(w.units), len(w.smallIn), len(w.unitDels), len(w.smallOut)}
}

func (st indexStaging) keys() []string {
	return []string{st.segs, st.units, st.small, st.unitDels, st.smallOut}
}

// redisIndexBase is a table's header and index stamp as one read found
// them (raw: "" for none), which a delta commit's script checks are still
// stored before it edits the index computed from them.
type redisIndexBase struct {
	header, stamp string
	found         bool // the table has a checkpoint
	h             checkpointHeader
	s             indexStamp
	inStep        bool // the stamp is the one the header's commit wrote
}

// indexTx reads the table's header and index stamp, and whatever more
// queues, in one MULTI.
func (r *Redis) indexTx(ctx context.Context, table string, more func(p redis.Pipeliner)) (redisIndexBase, error) {
	var (
		hdr, stamp *redis.StringCmd
		files      *redis.IntCmd
	)
	cmds, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		hdr = p.Get(ctx, r.keys.checkpoint(table))
		stamp = p.Get(ctx, r.keys.indexStamp(table))
		files = p.HLen(ctx, r.keys.files(table))
		if more != nil {
			more(p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return redisIndexBase{}, err
	}
	for _, c := range cmds {
		if err := c.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return redisIndexBase{}, err
		}
	}
	return parseIndexBase(table, hdr.Val(), stamp.Val(), files.Val())
}

// parseIndexBase reads a table's header and index stamp; files is the
// length of its file map, which an index in step counts too.
func parseIndexBase(table, hdr, stamp string, files int64) (redisIndexBase, error) {
	b := redisIndexBase{header: hdr, stamp: stamp, found: hdr != ""}
	if b.found {
		if err := decode("checkpoint of table "+quote(table), []byte(hdr), &b.h); err != nil {
			return b, err
		}
	}
	if stamp != "" {
		if err := decode("file index stamp of table "+quote(table), []byte(stamp), &b.s); err != nil {
			return b, err
		}
		b.inStep = b.found && b.s.matches(b.h) && int64(b.s.Counts.Files) == files
	}
	return b, nil
}

// check fails with ErrNotFound without a checkpoint, ErrIndexStale when
// the index is out of step.
func (b redisIndexBase) check(table string) error {
	if !b.found {
		return fmt.Errorf("checkpoint of table %s: %w", quote(table), ErrNotFound)
	}
	if !b.inStep {
		return fmt.Errorf("file index of table %s: %w", quote(table), ErrIndexStale)
	}
	return nil
}

// deltaIndex returns the index change of d, the delta commit of the
// table, and the base it computed it from: the edits of the entries d
// touches when the stored index is in step, else the whole index of the
// map d makes (a rebuild). As on Bolt, a delta that takes out at least
// half of the map rebuilds too: indexing the entries that stay costs less
// than taking the others out (a compaction's remap); a delta of many
// deletions reads the entries it touches only once it knows it edits.
func (r *Redis) deltaIndex(ctx context.Context, table string, d CheckpointDelta, dels []string) (redisIndexBase, *redisIndexWrite, error) {
	paths := slices.AppendSeq(slices.Clone(dels), maps.Keys(d.Set))
	eager := len(dels) < stagingChunk
	var got []*redis.SliceCmd
	base, err := r.indexTx(ctx, table, func(p redis.Pipeliner) {
		if eager {
			got = hmget(ctx, p, r.keys.files(table), paths)
		}
	})
	if err != nil {
		return base, nil, err
	}
	if !base.inStep || (len(dels) > 0 && 2*len(dels) >= base.s.Counts.Files) {
		return r.rebuiltIndex(ctx, table, d, dels)
	}
	if !eager {
		if _, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			got = hmget(ctx, p, r.keys.files(table), paths)
			return nil
		}); err != nil {
			return base, nil, err
		}
	}
	old, err := decodeFiles(table, paths, got)
	if err != nil {
		return base, nil, err
	}
	x := newIndexDelta()
	for p, fs := range old {
		x.file(p, fs, -1)
	}
	for p, fs := range d.Set {
		x.file(p, fs, 1)
	}
	units, err := r.storedUnits(ctx, table, x)
	if err != nil {
		return base, nil, err
	}
	counts := base.s.Counts
	counts.plus(x.counts)
	w, err := indexWrite(x, units, counts, false)
	return base, w, err
}

// rebuiltIndex reads the table's whole map with its base and returns the
// index of the map the delta d makes of it.
func (r *Redis) rebuiltIndex(ctx context.Context, table string, d CheckpointDelta, dels []string) (redisIndexBase, *redisIndexWrite, error) {
	var all *redis.MapStringStringCmd
	base, err := r.indexTx(ctx, table, func(p redis.Pipeliner) { all = p.HGetAll(ctx, r.keys.files(table)) })
	if err != nil {
		return base, nil, err
	}
	files := make(map[string]FileState, len(all.Val())+len(d.Set))
	dec := newFileDecoder(table)
	for p, raw := range all.Val() {
		fs, err := dec.decode(p, []byte(raw))
		if err != nil {
			return base, nil, err
		}
		files[p] = fs
	}
	for _, p := range dels {
		delete(files, p)
	}
	maps.Copy(files, d.Set)
	w, err := freshIndexWrite(files)
	return base, w, err
}

// storedUnits reads the units x edits (unit key → unit; absent: none).
func (r *Redis) storedUnits(ctx context.Context, table string, x *indexDelta) (map[string]*unitState, error) {
	keys := make([]string, 0, len(x.units))
	for ref := range x.units {
		keys = append(keys, string(unitKey(ref)))
	}
	var got []*redis.SliceCmd
	if _, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		got = hmget(ctx, p, r.keys.indexUnits(table), keys)
		return nil
	}); err != nil {
		return nil, err
	}
	out := make(map[string]*unitState, len(keys))
	err := eachValue(keys, got, func(key, raw string) error {
		u := &unitState{}
		if err := decode("file index unit of table "+quote(table), []byte(raw), u); err != nil {
			return err
		}
		out[key] = u
		return nil
	})
	return out, err
}

// hmget queues HMGETs of fields of key, stagingChunk fields each.
func hmget(ctx context.Context, p redis.Pipeliner, key string, fields []string) []*redis.SliceCmd {
	var cmds []*redis.SliceCmd
	for chunk := range slices.Chunk(fields, stagingChunk) {
		cmds = append(cmds, p.HMGet(ctx, key, chunk...))
	}
	return cmds
}

// eachValue calls fn with each field of fields that the HMGETs got (as
// hmget queued them) found.
func eachValue(fields []string, got []*redis.SliceCmd, fn func(field, val string) error) error {
	i := 0
	for _, c := range got {
		for _, v := range c.Val() {
			if s, ok := v.(string); ok {
				if err := fn(fields[i], s); err != nil {
					return err
				}
			}
			i++
		}
	}
	return nil
}

func decodeFiles(table string, paths []string, got []*redis.SliceCmd) (map[string]FileState, error) {
	out := make(map[string]FileState, len(paths))
	dec := newFileDecoder(table)
	err := eachValue(paths, got, func(p, raw string) error {
		fs, err := dec.decode(p, []byte(raw))
		out[p] = fs
		return err
	})
	return out, err
}

// IndexedCheckpoint returns the table's checkpoint without its files and
// the counts of its index: header and stamp in one MULTI, never the map.
func (r *Redis) IndexedCheckpoint(ctx context.Context, table string) (Checkpoint, FileCounts, bool, error) {
	op := "get indexed checkpoint of table " + quote(table)
	base, err := r.indexTx(ctx, table, nil)
	if err != nil {
		return Checkpoint{}, FileCounts{}, false, redisErr(op, err)
	}
	if !base.found {
		return Checkpoint{}, FileCounts{}, false, fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	cp := base.h.checkpoint(nil)
	cp.Files = nil
	if !base.inStep {
		return cp, FileCounts{}, false, nil
	}
	return cp, base.s.Counts, true, nil
}

// LookupFiles returns the entries of paths the table's file map holds.
func (r *Redis) LookupFiles(ctx context.Context, table string, paths []string) (map[string]FileState, error) {
	op := "look up files of table " + quote(table)
	if len(paths) == 0 {
		return map[string]FileState{}, nil
	}
	var got []*redis.SliceCmd
	if _, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		got = hmget(ctx, p, r.keys.files(table), paths)
		return nil
	}); err != nil {
		return nil, redisErr(op, err)
	}
	out, err := decodeFiles(table, paths, got)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return out, nil
}

// smallUnitsLua: KEYS checkpoint, index stamp, small, units, files; ARGV
// per partition: the range's min and max (ZRANGEBYLEX) and the length of
// the partition's prefix. Returns header, stamp (false: none), the file
// map's length, then per partition a list of size key, unit JSON pairs:
// one atomic read.
const smallUnitsLua = `
local out = {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2]), redis.call('HLEN', KEYS[5])}
for i = 1, #ARGV, 3 do
  local plen, part = tonumber(ARGV[i + 2]), {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', KEYS[3], ARGV[i], ARGV[i + 1])) do
    table.insert(part, m)
    table.insert(part, redis.call('HGET', KEYS[4], string.sub(m, 1, plen) .. string.sub(m, plen + 9)))
  end
  table.insert(out, part)
end
return out
`

// SmallUnits returns the small units of the partitions parts: per
// partition, the range of the size-ordered set below below bytes and the
// units it names, read by one script.
func (r *Redis) SmallUnits(ctx context.Context, table string, parts []string, below int64) ([]StoredUnit, error) {
	op := "small units of table " + quote(table)
	parts = slices.Compact(slices.Sorted(slices.Values(parts)))
	if below <= 0 {
		parts = nil // no unit whose members all record a size is that small
	}
	args := make([]any, 0, 3*len(parts))
	for _, part := range parts {
		pp := partPrefix(part)
		args = append(args, "["+string(pp), "("+string(sizePrefix(part, below)), len(pp))
	}
	keys := []string{r.keys.checkpoint(table), r.keys.indexStamp(table), r.keys.indexSmall(table), r.keys.indexUnits(table),
		r.keys.files(table)}
	vals, err := r.scripts.smallUnits.Run(ctx, r.client, keys, args...).Slice()
	if err != nil {
		return nil, redisErr(op, err)
	}
	out, err := parseSmallUnits(table, parts, vals)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	sortUnits(out)
	return out, nil
}

func parseSmallUnits(table string, parts []string, vals []any) ([]StoredUnit, error) {
	if len(vals) != 3+len(parts) {
		return nil, fmt.Errorf("unexpected script reply of %d values", len(vals))
	}
	hdr, _ := vals[0].(string)
	stamp, _ := vals[1].(string)
	files, _ := vals[2].(int64)
	base, err := parseIndexBase(table, hdr, stamp, files)
	if err != nil {
		return nil, err
	}
	if err := base.check(table); err != nil {
		return nil, err
	}
	var out []StoredUnit
	for i, part := range parts {
		pairs, _ := vals[3+i].([]any)
		for j := 0; j+1 < len(pairs); j += 2 {
			u, err := smallUnitOf(part, pairs[j], pairs[j+1])
			if err != nil {
				return nil, err
			}
			out = append(out, u)
		}
	}
	return out, nil
}

// smallUnitOf decodes the unit raw that the size key k of part names.
func smallUnitOf(part string, k, raw any) (StoredUnit, error) {
	ks, _ := k.(string)
	_, name, ok := splitSmallKey(part, []byte(ks))
	if !ok {
		return StoredUnit{}, fmt.Errorf("file index: malformed size key %q", ks)
	}
	ref, err := refOfName(part, name)
	if err != nil {
		return StoredUnit{}, err
	}
	s, ok := raw.(string)
	if !ok {
		return StoredUnit{}, fmt.Errorf("file index: unit %q of partition %q has a size key but no members", name, part)
	}
	return storedUnit(ref, []byte(s))
}

// UnreferencedSegments returns the names no entry of the table's file map
// lists: HMGET of the reference counts, in one MULTI with the header and
// stamp.
func (r *Redis) UnreferencedSegments(ctx context.Context, table string, names []string) ([]string, error) {
	op := "unreferenced segments of table " + quote(table)
	var got []*redis.SliceCmd
	base, err := r.indexTx(ctx, table, func(p redis.Pipeliner) { got = hmget(ctx, p, r.keys.indexSegs(table), names) })
	if err != nil {
		return nil, redisErr(op, err)
	}
	if err := base.check(table); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	referenced := map[string]bool{}
	_ = eachValue(names, got, func(n, _ string) error {
		referenced[n] = true
		return nil
	})
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !referenced[n] {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
