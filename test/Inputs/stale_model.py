"""Copies a model file, changing one metadata field: a model as an older or
newer build of MQSS-Selector would have made it.

    stale_model.py SRC DST KEY NEW_VALUE

A model file is a magic line, a line of JSON metadata, then the weights
(include/mqss/Policy/Model.h); the JSON line is rewritten, the weights are
copied unchanged.
"""
import json
import sys

src, dst, key, value = sys.argv[1:5]
raw = open(src, "rb").read()
magic, header, weights = raw.split(b"\n", 2)
metadata = json.loads(header)
assert key in metadata, "no metadata field %r" % key
metadata[key] = value
header = json.dumps(metadata, separators=(",", ":"), sort_keys=True).encode()
open(dst, "wb").write(magic + b"\n" + header + b"\n" + weights)
