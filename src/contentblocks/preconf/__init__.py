"""Converters for serialisation formats, each configured for contentblocks the way ``cattrs.preconf`` does it.

Each module (``json``, ``orjson``, ``msgpack``, ``cbor2``) exposes ``make_converter(**options)``, a new
converter of that format with every contentblocks hook installed, and ``configure_converter(converter,
**options)``, which installs the hooks on an existing converter of that format. Text formats carry binary
fields as base64; msgpack and CBOR carry them as native bytes. The converters made here turn the format's own
parse errors into :class:`contentblocks.ValidationError`.
"""
