package parquet

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/convert"
)

// pqLeafReader reads one primitive leaf column of one row group page by
// page and fills batches of whole rows. Pages stay alive until release,
// because batch vectors point into them.
type pqLeafReader struct {
	b      *pqBinding
	maxDef int
	listed bool // the leaf repeats (maxRep 1): rows are lists
	conv   *convert.Converter
	slot   convert.Slot

	pages  parquet.Pages
	held   []parquet.Page
	check  *indexCheck // verifies short dictionary index streams
	pageNo int         // data pages read from the current chunk

	page    parquet.Page
	def     []byte
	rep     []byte
	levels  int // number of levels (or values, for a required column) in page
	li, vi  int // next level, next dense value
	vals    pqValues
	dictIdx []int32 // dictionary-encoded page: indexes per dense value

	dict     parquet.Dictionary
	dictConv convert.Converter
	dictVec  segments.Vector
	dictVals pqValues
	dictLen  int

	nulls []bool
	wide  []int64
}

func newLeafReader(b *pqBinding) (*pqLeafReader, error) {
	conv, err := convert.New(b.src, b.field)
	if err != nil {
		return nil, err
	}
	return &pqLeafReader{
		b: b, maxDef: b.leaf.MaxDefinitionLevel(), listed: b.leaf.MaxRepetitionLevel() == 1,
		conv: conv, dictConv: *conv, slot: convert.SlotOf(b.field.DataType),
	}, nil
}

// startRowGroup switches to the column chunk of a new row group.
func (r *pqLeafReader) startRowGroup(rg parquet.RowGroup, check *indexCheck) {
	if r.pages != nil {
		r.pages.Close()
	}
	r.pages = rg.ColumnChunks()[r.b.leaf.Index()].Pages()
	r.page, r.li, r.levels = nil, 0, 0
	r.check, r.pageNo = check, 0
}

// release hands back the pages the previous batch pointed into.
func (r *pqLeafReader) release() {
	for _, p := range r.held {
		if p != r.page {
			parquet.Release(p)
		}
	}
	r.held = r.held[:0]
	if r.page != nil {
		r.held = append(r.held, r.page)
	}
}

func (r *pqLeafReader) close() {
	if r.pages != nil {
		r.pages.Close()
		r.pages = nil
	}
}

// nextPage reads and decodes the next page; io.EOF at the chunk's end.
func (r *pqLeafReader) nextPage() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: decode page: %v", segments.ErrCorruptSource, p)
		}
	}()
	page, err := r.pages.ReadPage()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		return fmt.Errorf("%w: read page: %v", segments.ErrCorruptSource, err)
	}
	r.held = append(r.held, page)
	r.page, r.li, r.vi = page, 0, 0
	k := r.pageNo
	r.pageNo++
	r.rep = page.RepetitionLevels()
	r.def = nil
	if r.maxDef > 0 {
		r.def = page.DefinitionLevels()
	}
	r.levels = int(page.NumValues())
	if r.def != nil && len(r.def) != r.levels || r.listed && len(r.rep) != r.levels {
		return fmt.Errorf("%w: page levels do not match its value count", segments.ErrCorruptSource)
	}
	if d := page.Dictionary(); d != nil {
		if err := r.useDictionary(d); err != nil {
			return err
		}
		data := page.Data()
		r.dictIdx = data.Int32()
		if err := r.checkDense(len(r.dictIdx)); err != nil {
			return err
		}
		if n := len(r.dictIdx); r.dictLen > 1 && n > 0 && r.dictIdx[n-1] == 0 {
			return r.check.check(k, r.presentLevels())
		}
		return nil
	}
	r.dictIdx = nil
	if err := r.vals.load(page); err != nil {
		return err
	}
	if err := r.checkDense(r.vals.n); err != nil {
		return err
	}
	return r.checkPlainBody(k, page.Type())
}

// presentLevels counts the page's values that are not null.
func (r *pqLeafReader) presentLevels() int {
	if r.def == nil {
		return r.levels
	}
	want := 0
	for _, d := range r.def {
		if int(d) == r.maxDef {
			want++
		}
	}
	return want
}

// checkDense verifies the page holds a value for every present level.
func (r *pqLeafReader) checkDense(n int) error {
	if want := r.presentLevels(); n < want {
		return fmt.Errorf("%w: page has %d values for %d present levels", segments.ErrCorruptSource, n, want)
	}
	return nil
}

// useDictionary converts a new dictionary's values once.
func (r *pqLeafReader) useDictionary(d parquet.Dictionary) error {
	if d == r.dict {
		return nil
	}
	r.dict = d
	r.dictVec.Reset()
	r.dictConv.Arena = nil
	if err := r.dictVals.load(d.Page()); err != nil {
		return err
	}
	r.dictLen = r.dictVals.n
	r.dictVals.convert(&r.dictConv, &r.dictVec, 0, r.dictVals.n, &r.wide)
	return nil
}

// appendDense appends dense values [start, start+count) of the page.
func (r *pqLeafReader) appendDense(v *segments.Vector, start, count int) error {
	if count == 0 {
		return nil
	}
	if r.dictIdx != nil {
		return convert.GatherDict(v, &r.dictVec, r.slot, r.dictLen, r.dictIdx[start:start+count])
	}
	r.vals.convert(r.conv, v, start, count, &r.wide)
	return nil
}

// ensurePage makes sure a page with unread levels is loaded.
func (r *pqLeafReader) ensurePage() error {
	for r.page == nil || r.li >= r.levels {
		if err := r.nextPage(); err != nil {
			return err
		}
	}
	return nil
}

// fill appends n rows to v.
func (r *pqLeafReader) fill(v *segments.Vector, n int) error {
	v.Reset()
	r.conv.Reset()
	r.nulls = r.nulls[:0]
	var err error
	if r.listed {
		err = r.fillLists(v, n)
	} else {
		err = r.fillScalars(v, n)
	}
	if errors.Is(err, io.EOF) {
		err = fmt.Errorf("%w: column chunk ended before the row group's last row", segments.ErrCorruptSource)
	}
	return err
}

// fillScalars fills rows of a non-repeated leaf. A multi-value Pinot
// column gets one value per present row.
func (r *pqLeafReader) fillScalars(v *segments.Vector, n int) error {
	multi := !r.b.field.SingleValue
	if multi {
		v.Offsets = append(v.Offsets, 0)
	}
	anyNull := false
	for n > 0 {
		if err := r.ensurePage(); err != nil {
			return err
		}
		k := min(n, r.levels-r.li)
		if r.def == nil {
			if err := r.appendDense(v, r.vi, k); err != nil {
				return err
			}
			for i := 0; i < k; i++ {
				r.nulls = append(r.nulls, false)
				if multi {
					v.Offsets = append(v.Offsets, v.Offsets[len(v.Offsets)-1]+1)
				}
			}
			r.vi += k
		} else {
			nulls, err := r.scalarRuns(v, k, multi)
			if err != nil {
				return err
			}
			anyNull = anyNull || nulls
		}
		r.li += k
		n -= k
	}
	if anyNull {
		v.Nulls = r.nulls
	}
	return nil
}

// scalarRuns converts k levels of an optional column in runs of present
// and null rows.
func (r *pqLeafReader) scalarRuns(v *segments.Vector, k int, multi bool) (bool, error) {
	def, maxDef := r.def[r.li:r.li+k], byte(r.maxDef)
	anyNull := false
	for i := 0; i < k; {
		j := i
		present := def[i] == maxDef
		for j < k && (def[j] == maxDef) == present {
			j++
		}
		run := j - i
		if present {
			if err := r.appendDense(v, r.vi, run); err != nil {
				return false, err
			}
			r.vi += run
		} else if !multi {
			convert.AppendZeros(v, r.slot, run)
		}
		for ; i < j; i++ {
			r.nulls = append(r.nulls, !present)
			if multi {
				last := v.Offsets[len(v.Offsets)-1]
				if present {
					last++
				}
				v.Offsets = append(v.Offsets, last)
			}
		}
		anyNull = anyNull || !present
	}
	return anyNull, nil
}

// fillLists fills n rows of a repeated leaf. A row starts at repetition
// level 0 and may continue on the next page; rows without values are null.
func (r *pqLeafReader) fillLists(v *segments.Vector, n int) error {
	v.Offsets = append(v.Offsets, 0)
	total, rows, open, anyNull := int32(0), 0, false, false
	closeRow := func() {
		empty := total == v.Offsets[len(v.Offsets)-1]
		v.Offsets = append(v.Offsets, total)
		r.nulls = append(r.nulls, empty)
		anyNull = anyNull || empty
		rows++
		open = false
	}
	for rows < n {
		err := r.ensurePage()
		if errors.Is(err, io.EOF) && open {
			closeRow()
			break
		}
		if err != nil {
			return err
		}
		start, present := r.vi, 0
		for ; r.li < r.levels; r.li++ {
			if !open && rows < n && r.rep[r.li] != 0 {
				return fmt.Errorf("%w: repetition level %d where a row must start (level 0)", segments.ErrCorruptSource, r.rep[r.li])
			}
			if r.rep[r.li] == 0 {
				if open {
					closeRow()
				}
				if rows == n {
					break
				}
				open = true
			}
			if int(r.def[r.li]) == r.maxDef {
				present++
				total++
			}
		}
		if err := r.appendDense(v, start, present); err != nil {
			return err
		}
		r.vi += present
	}
	if rows < n {
		return io.EOF
	}
	if anyNull {
		v.Nulls = r.nulls
	}
	return nil
}
