package checkpoint

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The fast path of fileDecoder reads exactly what encoding/json reads:
// every value encodeFile writes decodes to the same FileState by both, and
// values in other shapes (escapes, non-ASCII, other key case, unknown
// keys, nulls, white space) fall back and still decode like encoding/json.
func TestFileDecoder_MatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := newFileDecoder("orders")
	for i := range 2000 {
		fs := randomFileState(rng)
		raw, err := encodeFile(fs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.decode(fmt.Sprint("f", i), raw)
		if err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		want := jsonFileState(t, raw)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decode %s:\n got %#v\nwant %#v", raw, got, want)
		}
		if _, _, fast := d.parse(raw); !fast && isPlain(fs) {
			t.Fatalf("plain value %s took the slow path", raw)
		}
	}
}

func TestFileDecoder_OtherShapes(t *testing.T) {
	for _, raw := range []string{
		`{"v":2,"segments":["a\"b","c\u00e9"],"rows":3,"group":"g\\h","partition":"p=é"}`,
		`{"V":1,"Segments":["s"],"ROWS":7}`,
		`{"v":1,"segments":null,"rows":0,"keyBounds":null,"extra":{"x":[1,2]}}`,
		` { "v" : 2 , "segments" : [ "s_0" , "s_1" ] , "rows" : 10 , "keyBounds" : { "1" : [ "AQ==" , null ] } } `,
		`{"v":2,"segments":[],"rows":-1,"keyBounds":{}}`,
		`{"v":2,"segments":["s"],"keyBounds":{"3":["",""],"4":[null,"AAAAAAAAAAA="]}}`,
	} {
		got, err := newFileDecoder("t").decode("f", []byte(raw))
		if err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		if want := jsonFileState(t, []byte(raw)); !reflect.DeepEqual(got, want) {
			t.Fatalf("decode %s:\n got %#v\nwant %#v", raw, got, want)
		}
	}
}

// Values encoding/json refuses are refused, naming the file and table;
// versions outside 1..FormatCurrent are refused on both paths.
func TestFileDecoder_Refuses(t *testing.T) {
	for _, raw := range []string{
		`{"v":2,"rows":1.5}`, `{"v":2,"rows":01}`, `{"v":2,"segments":"s"}`, `{"v":2`, `{"v":2}x`,
		`{"v":2,"keyBounds":{"x":[null,null]}}`, `{"v":2,"keyBounds":{"1":["!!",null]}}`,
		`{"rows":1}`, `{"v":99,"rows":1}`, `{"v":"2"}`,
	} {
		_, err := newFileDecoder("orders").decode("s3://b/f.parquet", []byte(raw))
		if err == nil {
			t.Fatalf("decode %s: no error", raw)
		}
		if !strings.Contains(err.Error(), `"s3://b/f.parquet"`) || !strings.Contains(err.Error(), `"orders"`) {
			t.Fatalf("decode %s: error %q names neither the file nor the table", raw, err)
		}
	}
}

// Equal strings of different files share one allocation.
func TestFileDecoder_Interns(t *testing.T) {
	d := newFileDecoder("t")
	a, _ := d.decode("a", []byte(`{"v":2,"segments":["seg_0"],"group":"g1","rows":1}`))
	b, _ := d.decode("b", []byte(`{"v":2,"segments":["seg_0"],"group":"g1","rows":2}`))
	if a.Group != b.Group || a.Segments[0] != b.Segments[0] {
		t.Fatalf("decoded %#v and %#v", a, b)
	}
	if len(d.strings) != 2 {
		t.Fatalf("interned %d strings, want 2 (seg_0, g1)", len(d.strings))
	}
}

func jsonFileState(t *testing.T, raw []byte) FileState {
	t.Helper()
	var r fileRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("encoding/json %s: %v", raw, err)
	}
	return r.FileState
}

func isPlain(fs FileState) bool {
	for _, s := range append([]string{fs.DeleteFingerprint, fs.Group, fs.Partition}, fs.Segments...) {
		b, _ := json.Marshal(s)
		if string(b) != `"`+s+`"` || strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }) {
			return false
		}
	}
	return true
}

func randomFileState(rng *rand.Rand) FileState {
	word := func() string {
		const alphabet = "abcxyz_=/.-0189 <&\"\\é\t"
		n := rng.IntN(12)
		var b strings.Builder
		for range n {
			b.WriteString(string([]rune(alphabet)[rng.IntN(len([]rune(alphabet)))]))
		}
		return b.String()
	}
	fs := FileState{Rows: rng.Int64N(1 << 40), SizeBytes: rng.Int64N(1 << 30), DataSeq: rng.Int64N(100)}
	if rng.IntN(3) == 0 {
		fs.Rows = -fs.Rows
	}
	if rng.IntN(2) == 0 {
		fs.DeleteFingerprint = word()
	}
	if rng.IntN(2) == 0 {
		fs.Group = word()
	}
	if rng.IntN(2) == 0 {
		fs.Partition = word()
	}
	if rng.IntN(4) > 0 {
		fs.Segments = []string{}
		for range rng.IntN(4) {
			fs.Segments = append(fs.Segments, word())
		}
	}
	if rng.IntN(2) == 0 {
		fs.KeyBounds = KeyBounds{}
		for range rng.IntN(3) {
			var pair [2][]byte
			for i := range pair {
				if rng.IntN(4) > 0 {
					pair[i] = make([]byte, rng.IntN(9))
					for j := range pair[i] {
						pair[i][j] = byte(rng.IntN(256))
					}
				}
			}
			fs.KeyBounds[rng.IntN(1000)-10] = pair
		}
	}
	return fs
}
