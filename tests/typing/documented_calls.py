"""The constructors and calls the documentation shows, as a user writes them: mypy --strict must accept them.

``tests/test_typing.py`` runs mypy on this file; nothing here runs.
"""

from __future__ import annotations

from typing import assert_type

import contentblocks as cb

text: cb.TextBlock = cb.TextBlock(text="Paris is the capital of France.")
cited = cb.TextBlock(
    text="Paris is the capital of France.",
    citations=[cb.Citation(source=cb.CitedUri(value="https://example.org/paris"), start=0, end=5)],
)
call = cb.ToolCallBlock(tool_call_id="call_1", tool_name="weather", input={"city": "Oslo"})
result = cb.ToolResultBlock(
    tool_call_id="call_1", tool_name="weather", outcome="succeeded", content=[cb.TextBlock(text="Sunny")]
)
picture = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"), filename="a.png")

greeting: cb.Message = cb.Message(role="user", content="hi")
reply = cb.Message(role="assistant", content=[text, call])
answer = cb.Message(role="tool", content=[result], metadata={"app/latency_ms": 12})
conversation: cb.Conversation = cb.Conversation(messages=[greeting, reply, answer])
empty = cb.Conversation()

message = assert_type(cb.loads('{"role": "user", "content": "hi"}', cb.Message), cb.Message)
loaded = assert_type(cb.loads(b"[]", cb.Conversation), cb.Conversation)
structured = assert_type(cb.structure([], cb.Conversation), cb.Conversation)
block: cb.Block = cb.loads('{"type": "text", "text": "hi"}')
any_block = assert_type(cb.structure({"type": "text", "text": "hi"}, cb.Block), cb.Block)
any_loaded = assert_type(cb.loads('{"type": "text", "text": "hi"}', cb.Block), cb.Block)
part = assert_type(cb.structure({"type": "json", "value": 1}, cb.ToolResultContent), cb.ToolResultContent)

again = cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="call_2", tool_name="weather", input={})])
grown: cb.Conversation = conversation.append(greeting).extend([again]) + [cb.Message(role="user", content="ok")]  # noqa: RUF005
pending: tuple[cb.ToolCallBlock, ...] = grown.pending_tool_calls()
said: str = reply.text()
calls: tuple[cb.ToolCallBlock, ...] = reply.tool_calls()
results: tuple[cb.ToolResultBlock, ...] = answer.tool_results()
last: cb.Message = grown[-1]
text_json: str = cb.dumps(grown, ensure_ascii=False, indent=2)
