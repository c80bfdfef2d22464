"""Bridges: move a conversation to and from the message types of the agent frameworks users already run.

Each framework is a module with the same verbs, and the provider adapters' contract (``Converted``, ``Loss``,
``strict``; see ``contentblocks.providers``):

- ``from_messages(messages) -> Conversation``: the framework's history read, everything kept (a field with no
  neutral home in metadata under the framework's namespace, a part with no neutral block as a JSON block);
- ``to_messages(conversation, *, strict=False) -> Converted``: the framework's own message objects, and every
  field dropped or degraded on the way.

A bridge imports its framework only when called, and checks the installed version against the range its tests
ran with: importing ``contentblocks`` (or this package) imports no framework.

- ``contentblocks.bridges.pydantic_ai``: pydantic-ai's ``ModelRequest`` and ``ModelResponse`` history.
- ``contentblocks.bridges.langchain``: LangChain's ``SystemMessage``, ``HumanMessage``, ``AIMessage`` and
  ``ToolMessage`` (and their chunks), with the v1 standard content blocks.
- ``contentblocks.bridges.vercel_ai``: the Vercel AI SDK's ``UIMessage`` and ``ModelMessage`` JSON
  (``from_messages``/``to_messages`` are its ``UIMessage`` pair, ``from_ui_messages``/``to_ui_messages``;
  ``from_model_messages``/``to_model_messages`` the other form). The SDK has no Python package: nothing to import,
  no version to check.
- ``contentblocks.bridges.openai_agents``: the OpenAI Agents SDK's history, the Responses input items of
  ``result.to_input_list()`` and the ``RunItem`` objects of ``result.new_items`` (``from_items``/``to_items``, with
  ``from_messages``/``to_messages`` as the same verbs), read and written through
  ``contentblocks.providers.openai_responses``.
"""

from __future__ import annotations

__all__: list[str] = []
