#!/usr/bin/env python3
"""Writes reference.safetensors with an independent writer (json + struct only).

The conventions match Ember's writer (nn/serialize/safetensors.cc), so that
tests/serialize/safetensors_test.cc can check that Ember's output for the same
tensors is byte-identical: compact JSON (no spaces), "__metadata__" first with
its keys sorted, then the tensors in the order below, data in the same order
without gaps, header padded with spaces to a multiple of 8.

Run from this directory: python3 make_reference.py
"""
import json
import struct

# (name, dtype, shape, struct format of one element, values)
TENSORS = [
    ("f64", "F64", [2, 3], "<d", [0.5, -1.25, 3.0, 1e300, -0.0, 2.5]),
    ("f32", "F32", [3], "<f", [1.5, -2.0, 3.25]),
    ("f16", "F16", [2, 2], "<e", [1.0, -2.5, 0.5, 65504.0]),
    ("bf16", "BF16", [3], None, [1.0, -3.5, 256.0]),
    ("i64", "I64", [2], "<q", [-9007199254740993, 9223372036854775807]),
    ("i32", "I32", [2, 1], "<i", [-2147483648, 7]),
    ("i16", "I16", [3], "<h", [-32768, 0, 32767]),
    ("i8", "I8", [4], "<b", [-128, -1, 0, 127]),
    ("u8", "U8", [2], "<B", [0, 255]),
    ("bool", "BOOL", [3], "<?", [True, False, True]),
    ("scalar", "F32", [], "<f", [42.0]),
    ("empty", "F32", [0, 4], "<f", []),
]

METADATA = {"format": "pt", "note": "quote \" backslash \\ tab\t end"}


def encode(fmt, values):
    if fmt is None:  # bfloat16: the high half of the float32 (values are exact)
        return b"".join(struct.pack("<H", struct.unpack("<I", struct.pack("<f", v))[0] >> 16)
                        for v in values)
    return b"".join(struct.pack(fmt, v) for v in values)


def main():
    header = {"__metadata__": dict(sorted(METADATA.items()))}
    data = b""
    for name, dtype, shape, fmt, values in TENSORS:
        blob = encode(fmt, values)
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(blob)]}
        data += blob
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open("reference.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    main()
