package segments_test

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf16"

	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/read"
)

// TestBuild_ReadBackInvariants reads a built segment back and checks the
// invariants a reader relies on: S5 isSorted only where the ids never
// decrease, S6 every multi-value row holds a value, S7 dictionaries are
// strictly ascending in Pinot's order, S9 metadata.properties and index_map
// are ASCII.
func TestBuild_ReadBackInvariants(t *testing.T) {
	res := buildTiny(t, tinyConfig())
	for _, f := range []string{"metadata.properties", "index_map"} {
		b, err := os.ReadFile(filepath.Join(res.Dir, "v3", f))
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(b, func(c byte) bool { return c >= 0x80 }); i >= 0 {
			t.Errorf("%s byte %d is %#x, not ASCII (S9)", f, i, b[i])
		}
	}
	seg, err := read.Open(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := seg.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sorted, mv := 0, 0
	for _, d := range cols {
		c := d.Column
		for i := 1; i < len(d.Dictionary); i++ {
			if pinotCompare(d.Dictionary[i-1], d.Dictionary[i]) >= 0 {
				t.Errorf("column %s: dictionary entries %d and %d (%v, %v) not strictly ascending (S7)", c.Name, i-1, i, d.Dictionary[i-1], d.Dictionary[i])
			}
		}
		if !c.SingleValue {
			mv++
			for doc, v := range d.Values {
				if len(v.([]any)) == 0 {
					t.Errorf("column %s: doc %d holds no value (S6)", c.Name, doc)
				}
			}
		}
		if c.Sorted {
			sorted++
			if !c.HasDictionary || !c.SingleValue {
				t.Errorf("column %s is sorted but not a dictionary single-value column (S5)", c.Name)
			}
			for doc := 1; doc < len(d.Values); doc++ {
				if pinotCompare(d.Values[doc-1], d.Values[doc]) > 0 {
					t.Errorf("column %s is sorted but doc %d comes before a smaller doc %d (S5)", c.Name, doc-1, doc)
				}
			}
		}
	}
	if sorted == 0 || mv == 0 {
		t.Fatalf("the tiny segment has %d sorted and %d multi-value columns: the test checks nothing", sorted, mv)
	}
}

// pinotCompare orders two stored values as Pinot's dictionaries do:
// numbers by value, strings by UTF-16 code units (Java's String order),
// bytes unsigned, decimals by value.
func pinotCompare(a, b any) int {
	switch x := a.(type) {
	case int32:
		return cmpOrdered(x, b.(int32))
	case int64:
		return cmpOrdered(x, b.(int64))
	case float32:
		return javaCompare(float64(x), float64(b.(float32)))
	case float64:
		return javaCompare(x, b.(float64))
	case string:
		return slices.Compare(utf16.Encode([]rune(x)), utf16.Encode([]rune(b.(string))))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case segments.Decimal:
		y := b.(segments.Decimal)
		return decimalRat(x).Cmp(decimalRat(y))
	}
	panic(fmt.Sprintf("no order for %T", a))
}

// javaCompare is Java's Double.compare: -0.0 before 0.0, NaN after
// everything.
func javaCompare(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	if a == 0 && b == 0 {
		return cmpOrdered(boolInt(!math.Signbit(a)), boolInt(!math.Signbit(b)))
	}
	return cmpOrdered(a, b)
}

func boolInt(v bool) int32 {
	if v {
		return 1
	}
	return 0
}

func cmpOrdered[T int32 | int64 | float32 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func decimalRat(d segments.Decimal) *big.Rat {
	r := new(big.Rat).SetInt(d.Unscaled)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(d.Scale, -d.Scale))), nil)
	if d.Scale >= 0 {
		return r.Quo(r, new(big.Rat).SetInt(scale))
	}
	return r.Mul(r, new(big.Rat).SetInt(scale))
}
