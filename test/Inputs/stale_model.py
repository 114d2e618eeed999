"""Copies a model file, changing one metadata field to a value of the same
length: a model as an older or newer build of MQSS-Selector would have made it.

    stale_model.py SRC DST KEY NEW_VALUE

Model files are torch zip archives with stored (uncompressed) entries; the
metadata JSON sits in data.pkl. The bytes are patched in place and the
entry's CRC-32 fixed in its local header and in the central directory, so
the archive layout (and its alignment) stays exactly as torch wrote it.
"""
import struct
import sys
import zipfile
import zlib

src, dst, key, value = sys.argv[1:5]
raw = bytearray(open(src, "rb").read())
with zipfile.ZipFile(src) as archive:
    info = next(i for i in archive.infolist() if i.filename.endswith("data.pkl"))
    assert info.compress_type == zipfile.ZIP_STORED, "expected a stored entry"
    name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len
    data = bytes(raw[start:start + info.file_size])
    needle = ('"%s":"' % key).encode()
    at = data.index(needle) + len(needle)
    end = data.index(b'"', at)
    if end - at != len(value):
        sys.exit("new value must have the length of the old one (%d)" % (end - at))
    patched = data[:at] + value.encode() + data[end:]
    raw[start:start + info.file_size] = patched
    crc = zlib.crc32(patched) & 0xFFFFFFFF
    struct.pack_into("<I", raw, info.header_offset + 14, crc)
    # The central directory record of the entry, found by its name.
    pos = 0
    while True:
        pos = raw.index(b"PK\x01\x02", pos)
        n = struct.unpack("<H", raw[pos + 28:pos + 30])[0]
        if raw[pos + 46:pos + 46 + n] == info.filename.encode():
            struct.pack_into("<I", raw, pos + 16, crc)
            break
        pos += 4
open(dst, "wb").write(bytes(raw))
