package plan

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// value is a partition value with its type, as partition keys and encoded
// units hold it. T names the Go type iceberg-go decodes the value into; V
// is its text.
type value struct {
	T string `json:"t"`
	V string `json:"v,omitempty"`
}

// Value types. Never rename: they are part of partition keys stored in
// checkpoints and of encoded units.
const (
	tNull      = "null"
	tBool      = "bool"
	tInt       = "int"  // int32
	tLong      = "long" // int64
	tFloat     = "float"
	tDouble    = "double"
	tString    = "string"
	tBinary    = "binary" // hex
	tDate      = "date"
	tTime      = "time"
	tTimestamp = "timestamp"
	tTimeNs    = "timestamp_ns"
	tDecimal   = "decimal" // unscaled integer "e" scale, e.g. 12345e2
	tUUID      = "uuid"
)

// encodeValue renders a partition value decoded by iceberg-go.
func encodeValue(v any) (value, error) {
	switch x := v.(type) {
	case nil:
		return value{T: tNull}, nil
	case bool:
		return value{tBool, strconv.FormatBool(x)}, nil
	case int32:
		return value{tInt, strconv.FormatInt(int64(x), 10)}, nil
	case int64:
		return value{tLong, strconv.FormatInt(x, 10)}, nil
	case int:
		return value{tLong, strconv.FormatInt(int64(x), 10)}, nil
	case float32:
		return value{tFloat, strconv.FormatFloat(float64(x), 'g', -1, 32)}, nil
	case float64:
		return value{tDouble, strconv.FormatFloat(x, 'g', -1, 64)}, nil
	case string:
		return value{tString, x}, nil
	case []byte:
		return value{tBinary, hex.EncodeToString(x)}, nil
	case iceberg.Date:
		return value{tDate, strconv.FormatInt(int64(x), 10)}, nil
	case iceberg.Time:
		return value{tTime, strconv.FormatInt(int64(x), 10)}, nil
	case iceberg.Timestamp:
		return value{tTimestamp, strconv.FormatInt(int64(x), 10)}, nil
	case iceberg.TimestampNano:
		return value{tTimeNs, strconv.FormatInt(int64(x), 10)}, nil
	case iceberg.DecimalLiteral:
		return value{tDecimal, fmt.Sprintf("%se%d", x.Val.BigInt().String(), x.Scale)}, nil
	case iceberg.Decimal:
		return value{tDecimal, fmt.Sprintf("%se%d", x.Val.BigInt().String(), x.Scale)}, nil
	case uuid.UUID:
		return value{tUUID, x.String()}, nil
	}
	return value{}, fmt.Errorf("partition value %v of type %T is not supported", v, v)
}

// decodeValue is the inverse of encodeValue.
func decodeValue(v value) (any, error) {
	var (
		out any
		err error
	)
	switch v.T {
	case tNull:
		return nil, nil
	case tBool:
		out, err = strconv.ParseBool(v.V)
	case tInt:
		var n int64
		n, err = strconv.ParseInt(v.V, 10, 32)
		out = int32(n)
	case tLong:
		out, err = strconv.ParseInt(v.V, 10, 64)
	case tFloat:
		var f float64
		f, err = strconv.ParseFloat(v.V, 32)
		out = float32(f)
	case tDouble:
		out, err = strconv.ParseFloat(v.V, 64)
	case tString:
		out = v.V
	case tBinary:
		out, err = hex.DecodeString(v.V)
	case tDate:
		var n int64
		n, err = strconv.ParseInt(v.V, 10, 32)
		out = iceberg.Date(n)
	case tTime, tTimestamp, tTimeNs:
		out, err = decodeTemporal(v)
	case tDecimal:
		out, err = decodeDecimal(v.V)
	case tUUID:
		out, err = uuid.Parse(v.V)
	default:
		return nil, fmt.Errorf("partition value type %q is not supported", v.T)
	}
	if err != nil {
		return nil, fmt.Errorf("decode %s partition value %q: %w", v.T, v.V, err)
	}
	return out, nil
}

func decodeTemporal(v value) (any, error) {
	n, err := strconv.ParseInt(v.V, 10, 64)
	switch v.T {
	case tTime:
		return iceberg.Time(n), err
	case tTimestamp:
		return iceberg.Timestamp(n), err
	}
	return iceberg.TimestampNano(n), err
}

func decodeDecimal(s string) (any, error) {
	unscaled, scale, ok := strings.Cut(s, "e")
	if !ok {
		return nil, fmt.Errorf("no scale")
	}
	n, ok := new(big.Int).SetString(unscaled, 10)
	if !ok {
		return nil, fmt.Errorf("bad unscaled value")
	}
	sc, err := strconv.Atoi(scale)
	if err != nil {
		return nil, err
	}
	return iceberg.DecimalLiteral{Val: decimal128.FromBigInt(n), Scale: sc}, nil
}

// encodePartitionKey is the canonical key of a partition of a partitioned
// spec: "<spec id>/<field id>=<type>:<quoted value>,..." in spec order.
// Format: never change (keys are stored in checkpoints).
func encodePartitionKey(spec iceberg.PartitionSpec, partition map[int]any) (string, error) {
	var b strings.Builder
	b.WriteString(strconv.Itoa(spec.ID()))
	b.WriteByte('/')
	for i, f := range spec.Fields() {
		v, err := encodeValue(partition[f.FieldID])
		if err != nil {
			return "", fmt.Errorf("partition field %s: %w", f.Name, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d=%s:%s", f.FieldID, v.T, strconv.Quote(v.V))
	}
	return b.String(), nil
}
