"""The sanitizer: what an untrusted history may keep before a server extends it and sends it to a provider.

``_policy`` holds :class:`SanitizePolicy` and its presets, ``_checks`` the checks of file URLs, hosts,
references and sizes, ``_walk`` the walk over the messages. The facade re-exports the public names.
"""

from __future__ import annotations

from ._checks import host_refusal, source_refusal
from ._policy import SanitizePolicy, UnansweredCalls
from ._walk import sanitize

__all__ = ["SanitizePolicy", "UnansweredCalls", "host_refusal", "sanitize", "source_refusal"]
