#!/usr/bin/env python3
"""make-big-perfdata.py IN OUT N — a file-mode perf.data whose data section is
IN's repeated N times (sample times shifted so each copy follows the last),
with IN's header, attrs and feature sections: a large input for the
benchmarks, built from a real recording."""
import struct
import sys

src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = open(src, "rb").read()
magic, hsize, attr_size, a_off, a_size, d_off, d_size = struct.unpack_from("<8sQQQQQQ", b, 0)
if magic != b"PERFILE2" or hsize != 104:
    sys.exit("make-big-perfdata: %s is not a file-mode perf.data" % src)
feats = struct.unpack_from("<4Q", b, 72)
nfeat = sum(bin(f).count("1") for f in feats)
f_off = d_off + d_size
table = [struct.unpack_from("<QQ", b, f_off + 16 * i) for i in range(nfeat)]
data = b[d_off:d_off + d_size]

# where the time sits: in samples (from the start) and in sample_id_all
# trailers (from the end), from the first attr's sample_type
attr = b[a_off:a_off + attr_size]
st, = struct.unpack_from("<Q", attr, 24)
flags, = struct.unpack_from("<Q", attr, 40)
IP, TID, TIME, ID, CPU, STREAM, IDENT = 1, 2, 4, 64, 128, 512, 1 << 16
if not st & TIME:
    sys.exit("make-big-perfdata: the samples have no time")
s_time = 8 + 8 * bool(st & IDENT) + 8 * bool(st & IP) + 8 * bool(st & TID)
t_from_end = 8 * (bool(st & IDENT) + bool(st & CPU) + bool(st & STREAM) + bool(st & ID)) + 8
sample_id_all = bool(flags & (1 << 18))

def times(buf):
    """(offset of the time field) of every record that has one"""
    off = 0
    while off < len(buf):
        typ, misc, size = struct.unpack_from("<IHH", buf, off)
        if size == 0:
            break
        if typ == 9:
            yield off + s_time
        elif typ < 64 and sample_id_all and size >= 8 + t_from_end:
            yield off + size - t_from_end
        off += size

offsets = list(times(data))
vals = [struct.unpack_from("<Q", data, o)[0] for o in offsets]
real = [v for v in vals if v not in (0, 2**64 - 1)]
span = (max(real) - min(real) + 1) if real else 0
with open(dst, "wb") as out:
    out.write(b[:d_off])
    for k in range(n):
        copy = bytearray(data)
        for o, v in zip(offsets, vals):
            if v not in (0, 2**64 - 1):
                struct.pack_into("<Q", copy, o, v + k * span)
        out.write(copy)
    new_f_off = d_off + d_size * n
    shift = new_f_off - f_off
    for off, size in table:
        out.write(struct.pack("<QQ", off + shift, size))
    out.write(b[f_off + 16 * nfeat:])
    out.seek(48)
    out.write(struct.pack("<Q", d_size * n))
