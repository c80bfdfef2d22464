"""The Gemini types a conversation travels in, field by field (google-genai 3.6's ``Content`` and what it holds).

``tests/providers/test_gemini_sdk.py`` checks these tables against the SDK's own pydantic models, so a field
the SDK adds is noticed there rather than refused here in silence.
"""

from __future__ import annotations

from .._shapes import BOOL, BYTES, FLOAT, INT, OBJECT, STR, Kind, ListOf, Struct

__all__ = [
    "BLOCK_KINDS",
    "CALL_EXTRAS",
    "CONTENT",
    "DATA_KINDS",
    "FILE_PART_EXTRAS",
    "JSON_KINDS",
    "NS",
    "PART",
    "PART_EXTRAS",
    "RESPONSE_EXTRAS",
    "USAGE",
]

#: The adapter's metadata namespace.
NS = "gemini"

_LAYERS = ListOf(STR)
VIDEO_METADATA = Struct("VideoMetadata", {"endOffset": STR, "fps": FLOAT, "startOffset": STR, "contentLayers": _LAYERS})
MEDIA_RESOLUTION = Struct("PartMediaResolution", {"level": STR, "numTokens": INT})
DOCUMENT_METADATA = Struct("DocumentMetadata", {"startPage": INT, "endPage": INT, "contentLayers": _LAYERS})
SPREADSHEET_METADATA = Struct("SpreadsheetMetadata", {"visibleCells": STR, "sheetIndex": INT, "contentLayers": _LAYERS})
AUDIO_METADATA = Struct("AudioMetadata", {"startOffset": STR, "endOffset": STR})
WORD_INFO = Struct("WordInfo", {"word": STR, "startOffset": STR, "endOffset": STR})
TRANSCRIPTION = Struct(
    "Transcription",
    {
        "text": STR,
        "finished": BOOL,
        "languageCode": STR,
        "speakerLabel": STR,
        "words": ListOf(WORD_INFO),
        "startOffset": STR,
        "endOffset": STR,
    },
)
SPEECH_METADATA = Struct("SpeechMetadata", {"speaker": STR, "style": STR})
BLOB = Struct("Blob", {"data": BYTES, "displayName": STR, "mimeType": STR})
FILE_DATA = Struct("FileData", {"displayName": STR, "fileUri": STR, "mimeType": STR})
PARTIAL_ARG = Struct(
    "PartialArg",
    {
        "boolValue": BOOL,
        "jsonPath": STR,
        "nullValue": STR,
        "numberValue": FLOAT,
        "stringValue": STR,
        "willContinue": BOOL,
    },
)
FUNCTION_CALL = Struct(
    "FunctionCall",
    {"id": STR, "args": OBJECT, "name": STR, "partialArgs": ListOf(PARTIAL_ARG), "willContinue": BOOL},
)

#: The fields a file in a function response may carry beside its data (``FunctionResponsePart``).
FILE_PART_EXTRAS: dict[str, Kind] = {
    "mediaProcessing": STR,
    "mediaResolution": MEDIA_RESOLUTION,
    "videoMetadata": VIDEO_METADATA,
    "documentMetadata": DOCUMENT_METADATA,
    "spreadsheetMetadata": SPREADSHEET_METADATA,
    "audioMetadata": AUDIO_METADATA,
}
FUNCTION_RESPONSE_PART = Struct("FunctionResponsePart", {"inlineData": BLOB, "fileData": FILE_DATA, **FILE_PART_EXTRAS})
#: The fields of a function response written back from a tool result's metadata.
RESPONSE_EXTRAS: dict[str, Kind] = {"willContinue": BOOL, "scheduling": STR}
FUNCTION_RESPONSE = Struct(
    "FunctionResponse",
    {
        **RESPONSE_EXTRAS,
        "parts": ListOf(FUNCTION_RESPONSE_PART),
        "id": STR,
        "name": STR,
        "response": OBJECT,
    },
)
#: The fields of a function call written back from a tool call's metadata.
CALL_EXTRAS: dict[str, Kind] = {"willContinue": BOOL, "partialArgs": ListOf(PARTIAL_ARG)}

#: Part fields that are content of their own; a part holds exactly one of them.
DATA_KINDS: dict[str, Kind] = {
    "text": STR,
    "inlineData": BLOB,
    "fileData": FILE_DATA,
    "functionCall": FUNCTION_CALL,
    "functionResponse": FUNCTION_RESPONSE,
    "executableCode": Struct("ExecutableCode", {"code": STR, "language": STR, "id": STR}),
    "codeExecutionResult": Struct("CodeExecutionResult", {"outcome": STR, "output": STR, "id": STR}),
    "toolCall": Struct("ToolCall", {"id": STR, "toolType": STR, "args": OBJECT}),
    "toolResponse": Struct("ToolResponse", {"id": STR, "toolType": STR, "response": OBJECT}),
}
#: The data kinds that are blocks of their own; the others are JSON blocks tagged ``gemini/part``.
BLOCK_KINDS = ("text", "inlineData", "fileData", "functionCall", "functionResponse")
#: The part kinds a JSON block tagged ``gemini/part`` is written back as (an empty text part is one of them).
JSON_KINDS: dict[str, Kind] = {k: v for k, v in DATA_KINDS.items() if k not in BLOCK_KINDS[1:]}
#: Part fields beside the data, kept in each block's metadata (``gemini/<field>``) and written back.
PART_EXTRAS: dict[str, Kind] = {
    "thought": BOOL,
    "mediaResolution": MEDIA_RESOLUTION,
    "videoMetadata": VIDEO_METADATA,
    "partMetadata": OBJECT,
    "audioTranscription": TRANSCRIPTION,
    "mediaProcessing": STR,
    "speechMetadata": SPEECH_METADATA,
    "documentMetadata": DOCUMENT_METADATA,
    "spreadsheetMetadata": SPREADSHEET_METADATA,
    "audioMetadata": AUDIO_METADATA,
}
PART = Struct("Part", {**DATA_KINDS, **PART_EXTRAS, "thoughtSignature": BYTES})
CONTENT = Struct("Content", {"parts": ListOf(PART), "role": STR})

_MODALITY = ListOf(Struct("ModalityTokenCount", {"modality": STR, "tokenCount": INT}, open=True))
#: A response's ``usageMetadata``; open, so that a count a newer API adds is kept in ``Usage.raw``.
USAGE = Struct(
    "UsageMetadata",
    {
        "cacheTokensDetails": _MODALITY,
        "cachedContentTokenCount": INT,
        "candidatesTokenCount": INT,
        "candidatesTokensDetails": _MODALITY,
        "promptTokenCount": INT,
        "promptTokensDetails": _MODALITY,
        "thoughtsTokenCount": INT,
        "toolUsePromptTokenCount": INT,
        "toolUsePromptTokensDetails": _MODALITY,
        "totalTokenCount": INT,
        "trafficType": STR,
    },
    open=True,
)
