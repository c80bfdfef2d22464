"""``input_image`` and ``input_file`` parts and the file blocks they are, both ways.

An ``input_image`` with an ``http(s)`` URL is a URL file (``image/*``), with a data URL inline bytes, with a
``file_id`` a reference (provider ``openai``). An ``input_file`` with ``file_data`` (a data URL, or bare base64
flagged ``openai/file_data: "base64"``), ``file_url`` or ``file_id`` likewise; its media type is the data URL's,
or ``application/octet-stream``. Writing, image media types become ``input_image`` (unless the part was an
``input_file``, ``openai/part``) and the others ``input_file``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._model._classes import BytesSource, FileBlock, ReferenceSource, UrlSource
from .._documents import report_document_fields
from .._extras import PayloadWriter, take_extras
from .._media import lower_media_type
from .._shapes import fits
from .._toolkit import OCTET, b64decode, b64encode, build, data_url, fail, is_filename, key_path, read_data_url
from ._fields import NS, WIRE, flags


def read_file(part: Mapping[str, Any], path: str) -> FileBlock:
    """The file block of an ``input_image`` or ``input_file`` part (``part`` has no ``null`` members)."""
    meta: dict[str, Any] = {}
    if part["type"] == "input_image":
        meta.update(take_extras(part, {"type", "image_url", "file_id"}, NS))
        url, file_id = part.get("image_url"), part.get("file_id")
        if type(url) is str and url[:5].lower() == "data:":
            block = read_data_url(url, f"{path}.image_url")
            media_type, source = block.media_type, block.source
        elif type(url) is str:
            media_type, source = "image/*", UrlSource(url=url)
        elif type(file_id) is str:
            media_type, source = "image/*", ReferenceSource(id=file_id, provider=NS)
        else:
            raise fail(path, "an input_image needs image_url or file_id")
        return build(FileBlock, path, media_type=media_type, source=source, metadata=meta)
    meta.update(take_extras(part, {"type", "file_id", "file_url", "file_data", "filename"}, NS))
    data, file_url, file_id = part.get("file_data"), part.get("file_url"), part.get("file_id")
    media_type = OCTET
    if type(data) is str and data[:5].lower() == "data:":
        block = read_data_url(data, f"{path}.file_data")
        media_type, source = block.media_type, block.source
    elif type(data) is str:
        source = BytesSource(data=b64decode(data, f"{path}.file_data"))
        meta[f"{NS}/file_data"] = "base64"
    elif type(file_url) is str:
        source = build(UrlSource, f"{path}.file_url", url=file_url)
    elif type(file_id) is str:
        source = build(ReferenceSource, f"{path}.file_id", id=file_id, provider=NS)
    else:
        raise fail(path, "an input_file needs file_data, file_url or file_id")
    if media_type.startswith("image/"):
        meta[f"{NS}/part"] = "input_file"
    filename = part.get("filename")
    if filename is not None and not is_filename(filename):
        meta[f"{NS}/filename"] = filename  # kept verbatim: not a valid neutral file name
        filename = None
    return build(FileBlock, path, media_type=media_type, source=source, filename=filename, metadata=meta)


def write_file(block: FileBlock, path: str, out: PayloadWriter, *, tool_output: bool) -> dict[str, Any]:
    """An ``input_image`` (image types) or ``input_file`` part for a file block, reporting what it cannot carry.

    ``detail`` comes from ``openai/detail`` when it is a value the part type takes; in a message an ``input_image``
    needs one, so it is ``auto`` otherwise. A filename a file block cannot hold is sent from ``openai/filename``.
    A value of either that does not fit the part's field is reported as such.
    """
    meta, source, media_type = block.metadata, block.source, lower_media_type(block.media_type)  # RFC 6838
    image = media_type.startswith("image/") and meta.get(f"{NS}/part") != "input_file"
    if type(source) is BytesSource:
        if image:
            part: dict[str, Any] = {"type": "input_image", "image_url": data_url(media_type, source.data)}
        elif meta.get(f"{NS}/file_data") == "base64":
            part = {"type": "input_file", "file_data": b64encode(source.data)}
        else:
            part = {"type": "input_file", "file_data": data_url(media_type, source.data)}
    elif type(source) is UrlSource:
        part = (
            {"type": "input_image", "image_url": source.url}
            if image
            else {"type": "input_file", "file_url": source.url}
        )
    else:
        assert isinstance(source, ReferenceSource)  # noqa: S101 - the last source kind
        if source.provider not in (None, NS):
            out.loss(
                f"{path}.source.provider",
                f"a file id issued by {source.provider!r} is sent to OpenAI as it is",
                "content_degraded",
            )
        part = {"type": "input_image", "file_id": source.id} if image else {"type": "input_file", "file_id": source.id}
    if type(source) is not BytesSource:
        default = "image/*" if image else OCTET
        if media_type != default:
            out.loss(
                f"{path}.media_type",
                f"a URL or file id part carries no media type; reads back as {default}",
                "content_degraded",
            )
    if block.filename is not None:
        if image:
            out.loss(f"{path}.filename", "input_image has no filename; dropped", "content_dropped")
        else:
            part["filename"] = block.filename
    report_document_fields(block, path, out.loss, "the Responses API")
    wire = WIRE[part["type"]]
    skip = flags(meta, "part", "file_data")
    if f"{NS}/detail" in meta:
        if fits(meta[f"{NS}/detail"], wire["detail"]):
            part["detail"] = meta[f"{NS}/detail"]
        else:
            out.loss(key_path(path, f"{NS}/detail"), out.misfit(part["type"])("detail"), "metadata_not_sent")
        skip |= flags(meta, "detail")
    if "detail" not in part and image and not tool_output:
        part["detail"] = "auto"
    if not image and "filename" not in part and f"{NS}/filename" in meta:
        if fits(meta[f"{NS}/filename"], wire["filename"]):
            part["filename"] = meta[f"{NS}/filename"]
        else:
            out.loss(key_path(path, f"{NS}/filename"), out.misfit(part["type"])("filename"), "metadata_not_sent")
        skip |= flags(meta, "filename")
    # detail and filename are written above: a value the part type does not take stays local, reported there.
    allowed = {name: kind for name, kind in wire.items() if name not in ("detail", "filename")}
    return out.finish(part, meta, path, allowed, skip, misfit=out.misfit(part["type"]))
