"""Writes Parquet files the way pyarrow (and so PyIceberg and many Spark-era
tools) lays them out, plus the expected value of every cell as JSON lines.

Usage: python write_fixtures.py OUT_DIR

legacy.parquet: data page v1 with small pages (rows of a list may span
pages), dictionary-encoded strings, decimals stored as INT32/INT64/FLBA,
non-compliant list naming, structs and maps.
int96.parquet:  every timestamp stored as INT96, data page v2, zstd.
float16.parquet: a FLOAT16 column (with nulls) next to an id; its expected
values (float16_expected.jsonl) are what pyarrow reads back from the file.

Expected values (per row, one JSON object): integers and floats as numbers,
decimals as "<unscaled>e-<scale>", timestamps as epoch milliseconds rounded
down, dates as days, lists without their null elements (null when nothing
is left), structs and maps as compact JSON text in field order.
"""
import datetime as dt
import decimal
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

N = 3000
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def rows():
    for i in range(N):
        present = i % 7 != 3
        ts = EPOCH + dt.timedelta(milliseconds=1_700_000_000_000 + i * 1001, microseconds=(i * 37) % 1000)
        yield {
            "i32": i * 13 - 20000,
            "i64": (i * 1_000_003) if present else None,
            "f64": (i / 8) if present else None,
            "s": ["red", "green", "blue", "ünïcode"][i % 4] if present else None,
            "dec32": decimal.Decimal(i * 7 - 500).scaleb(-2),
            "dec64": decimal.Decimal(i * -123_457).scaleb(-3),
            "dec128": decimal.Decimal(i * 98_765_432_101_234_567).scaleb(-4) if present else None,
            "ts": ts,
            "d": dt.date(2020, 1, 1) + dt.timedelta(days=i - 1000),
            "tags": [j if j % 3 else None for j in range(i % 5)] if present else None,
            "names": [f"n{(i + j) % 9}" for j in range(i % 4)],
            "st": {"a": f"a{i % 11}", "b": i} if present else None,
            "m": {f"k{i % 3}": i, "z": None} if i % 2 else {},
        }


SCHEMA = pa.schema([
    ("i32", pa.int32()), ("i64", pa.int64()), ("f64", pa.float64()), ("s", pa.string()),
    ("dec32", pa.decimal128(9, 2)), ("dec64", pa.decimal128(18, 3)), ("dec128", pa.decimal128(30, 4)),
    ("ts", pa.timestamp("us", tz="UTC")), ("d", pa.date32()),
    ("tags", pa.list_(pa.int32())), ("names", pa.list_(pa.string())),
    ("st", pa.struct([("a", pa.string()), ("b", pa.int32())])),
    ("m", pa.map_(pa.string(), pa.int32())),
])


def expected(r):
    def dec(d, scale):
        return None if d is None else f"{int(d.scaleb(scale))}e-{scale}"

    def lst(v):
        v = [x for x in (v or []) if x is not None]
        return v or None

    ts_ms = (r["ts"] - EPOCH) // dt.timedelta(milliseconds=1)
    return {
        "i32": r["i32"], "i64": r["i64"], "f64": r["f64"], "s": r["s"],
        "dec32": dec(r["dec32"], 2), "dec64": dec(r["dec64"], 3), "dec128": dec(r["dec128"], 4),
        "ts": ts_ms, "d": (r["d"] - dt.date(1970, 1, 1)).days,
        "tags": lst(r["tags"]), "names": lst(r["names"]),
        "st": None if r["st"] is None else json.dumps(r["st"], separators=(",", ":"), ensure_ascii=False),
        "st_a": None if r["st"] is None else r["st"]["a"],
        "m": json.dumps(r["m"], separators=(",", ":"), ensure_ascii=False),
    }


def main(out):
    data = list(rows())
    table = pa.Table.from_pylist([{k: v for k, v in r.items()} for r in data], schema=SCHEMA)
    table = table.set_column(12, "m", pa.array([list(r["m"].items()) for r in data], type=SCHEMA.field("m").type))
    pq.write_table(table, f"{out}/legacy.parquet", data_page_version="1.0", data_page_size=512,
                   row_group_size=1000, use_dictionary=["s", "names"], store_decimal_as_integer=True,
                   use_compliant_nested_type=False, compression="snappy")
    pq.write_table(table, f"{out}/int96.parquet", data_page_version="2.0", row_group_size=2000,
                   use_deprecated_int96_timestamps=True, compression="zstd")
    with open(f"{out}/expected.jsonl", "w", encoding="utf-8") as f:
        for r in data:
            f.write(json.dumps(expected(r), ensure_ascii=False) + "\n")
    write_float16(out)


def write_float16(out):
    vals = [None if i % 9 == 4 else (i - 500) / 7 for i in range(1000)] + [65504.0, -0.0, 6e-08]
    h = pa.array(vals, type=pa.float32()).cast(pa.float16())
    table = pa.table({"id": pa.array(range(len(vals)), type=pa.int64()), "h": h})
    pq.write_table(table, f"{out}/float16.parquet", row_group_size=400)
    back = pq.read_table(f"{out}/float16.parquet").to_pylist()
    with open(f"{out}/float16_expected.jsonl", "w", encoding="utf-8") as f:
        for r in back:
            f.write(json.dumps({"id": r["id"], "h": None if r["h"] is None else float(r["h"])}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
