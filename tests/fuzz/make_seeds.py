#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz (small, valid-ish inputs that reach
deep into each reader). Run from the repository root:

    python3 tests/fuzz/make_seeds.py

Crashes found by fuzzing are added to the corpora by hand (named crash-*),
not by this script; it only rewrites the seed-* files.
"""
import gzip
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(HERE, target + "_corpus")
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def gz(data):
    return gzip.compress(data, mtime=0)


# ---- schema parser
for i, s in enumerate([
    "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
    "foo::bar(int[2] x=[1, 2], float y=-1.5e3, str s='a\\'b', Tensor? t=None, bool? b=True) -> ...",
    "aten::split(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "ns::f(Device? d=None, ScalarType? dtype=None, Layout? l=None, Generator? g=None, ...) -> ()",
    "aten::add.Tensor",
]):
    put("schema_parser_fuzz", str(i), s)

# ---- JSON (safetensors headers)
for i, s in enumerate([
    '{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}',
    '[1,-2,3.5,1e3,-0.25E-2,true,false,null,"x\\u00e9\\ud83d\\ude00\\n"]',
    '{"a":{"b":{"c":[[[]]]}},"d":""}',
    '{"k":1,"k2":2,"k3":{"k":3}}',
    '-0',
    '"\\/\\b\\f\\r\\t\\"\\\\"',
]):
    put("json_fuzz", str(i), s)


# ---- safetensors
def safetensors(tensors, metadata=None):
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    data = b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


put("safetensors_fuzz", "f32", safetensors(
    [("w", "F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4))], {"epoch": "1"}))
put("safetensors_fuzz", "mixed", safetensors([
    ("a", "I64", [], struct.pack("<q", 7)),
    ("b", "BF16", [3], b"\x80\x3f\x00\x40\x40\x40"),
    ("c", "BOOL", [2, 1], b"\x01\x00"),
    ("e", "U8", [0, 4], b""),
    ("f", "F64", [1], struct.pack("<d", 0.5)),
]))
put("safetensors_fuzz", "empty", safetensors([]))


# ---- IDX (first byte: even = images with limit (b/2)%4, odd = labels of b/2 images)
def idx_images(count, rows=28, cols=28):
    body = bytes((n * 7 + i) % 256 for n in range(count) for i in range(rows * cols))
    return struct.pack(">IIII", 2051, count, rows, cols) + body


def idx_labels(count):
    return struct.pack(">II", 2049, count) + bytes(n % 10 for n in range(count))


put("idx_fuzz", "images2", b"\x00" + idx_images(2))
put("idx_fuzz", "images2_limit1", b"\x02" + idx_images(2))
put("idx_fuzz", "images0", b"\x00" + idx_images(0))
put("idx_fuzz", "images2_gz", b"\x00" + gz(idx_images(2)))
put("idx_fuzz", "labels3", bytes([2 * 3 + 1]) + idx_labels(3))
put("idx_fuzz", "labels3_gz", bytes([2 * 3 + 1]) + gz(idx_labels(3)))
put("idx_fuzz", "labels2_two_members", bytes([2 * 2 + 1]) + gz(idx_labels(2)[:5]) +
    gz(idx_labels(2)[5:]))

# idx_gzip_fuzz compresses the input; the last byte (mod 4) picks a damage.
put("idx_gzip_fuzz", "images1", b"\x00" + idx_images(1) + b"\x00")
put("idx_gzip_fuzz", "images1_cut", b"\x00" + idx_images(1) + b"\x01")
put("idx_gzip_fuzz", "labels4", bytes([2 * 4 + 1]) + idx_labels(4) + b"\x00")
put("idx_gzip_fuzz", "labels4_garbage", bytes([2 * 4 + 1]) + idx_labels(4) + b"\x02")
put("idx_gzip_fuzz", "labels4_members", bytes([2 * 4 + 1]) + idx_labels(4) + b"\x03")


# ---- CIFAR-10 (first byte: limit mod 4)
def cifar(count):
    return b"".join(bytes([n % 10]) + bytes((n + i) % 256 for i in range(3072))
                    for n in range(count))


put("cifar_fuzz", "two", b"\x00" + cifar(2))
put("cifar_fuzz", "two_limit1", b"\x01" + cifar(2))
put("cifar_fuzz", "empty", b"\x00")


# ---- plugin descriptor: a minimal ELF64 shared object with section headers
# null, .shstrtab and .ember_plugin (a layout-1 descriptor).
def elf(descriptor, machine=62, etype=3):
    shstrtab = b"\x00.shstrtab\x00.ember_plugin\x00"
    ehsize, shentsize = 64, 64
    off_str = ehsize
    off_desc = off_str + len(shstrtab)
    off_desc += (8 - off_desc % 8) % 8
    off_sh = off_desc + len(descriptor)
    off_sh += (8 - off_sh % 8) % 8
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\x00" * 8
    eh = ident + struct.pack("<HHIQQQIHHHHHH", etype, machine, 1, 0, 0, off_sh, 0, ehsize,
                             0, 0, shentsize, 3, 1)
    body = bytearray(eh)
    body += shstrtab
    body += b"\x00" * (off_desc - len(body))
    body += descriptor
    body += b"\x00" * (off_sh - len(body))

    def sh(name, typ, off, size):
        return struct.pack("<IIQQQQIIQQ", name, typ, 0, 0, off, size, 0, 0, 1, 0)
    body += sh(0, 0, 0, 0)
    body += sh(1, 3, off_str, len(shstrtab))
    body += sh(11, 1, off_desc, len(descriptor))
    return bytes(body)


def descriptor(name=b"fuzz", fingerprint=b"0123456789abcdef", layout=1, abi=1):
    return (struct.pack("<QII", 0x474C505245424D45, layout, abi) + name.ljust(64, b"\x00") +
            fingerprint.ljust(128, b"\x00"))


put("plugin_descriptor_fuzz", "plugin", elf(descriptor()))
put("plugin_descriptor_fuzz", "layout2", elf(descriptor(layout=2)))
put("plugin_descriptor_fuzz", "exec", elf(descriptor(), etype=2))
put("plugin_descriptor_fuzz", "two", elf(descriptor() + descriptor()))
