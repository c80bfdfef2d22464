"""The same conversations held by the libraries users pick instead of contentblocks, for the benchmarks only.

pydantic and msgspec model contentblocks' own wire format (``pydantic_model``, ``msgspec_model``), so the
corpus is their form as it is. pydantic-ai and langchain-core have message types of their own
(``pydantic_ai_messages``, ``langchain_messages``): the corpus is converted into them once, outside any
timing, and what the library dumps from them is its form of the corpus. Each module's docstring says what the
library cannot hold.

Every module has ``peer(raw)``, which returns a :class:`Peer`: the corpus in the library's dict form and JSON
text, and the four calls a user of the library makes on them.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Peer", "failed"]


@dataclass(frozen=True)
class Peer:
    """One library's form of a corpus and its calls on it.

    ``structure`` makes the library's objects from ``form`` (plain dicts and lists), ``unstructure`` gives
    the form back, ``loads`` makes the objects from ``text`` (JSON) and ``dumps`` writes them as JSON.
    """

    name: str
    form: Any
    text: bytes | str
    structure: Callable[[Any], Any]
    unstructure: Callable[[Any], Any]
    loads: Callable[[Any], Any]
    dumps: Callable[[Any], Any]

    def failures(self) -> list[str]:
        """What does not round-trip exactly (empty when all does): the form, the text, and the input left alone."""
        before = copy.deepcopy(self.form)
        return failed([
            (f"{self.name}: unstructure(structure(form)) == form",
             lambda: self.unstructure(self.structure(self.form)) == self.form),
            (f"{self.name}: structure leaves its input unchanged", lambda: self.form == before),
            (f"{self.name}: loads(text) == structure(form)", lambda: self.loads(self.text) == self.structure(self.form)),
            (f"{self.name}: json.loads(dumps(loads(text))) == form",
             lambda: json.loads(self.dumps(self.loads(self.text))) == self.form),
        ])


def failed(checks: list[tuple[str, Callable[[], bool]]]) -> list[str]:
    """Each check that does not hold, in order, as ``"<name>: not equal"`` or ``"<name>: raised <error>"``.

    >>> failed([("one", lambda: True), ("two", lambda: 1 == 2), ("three", lambda: {}["k"])])
    ['two: not equal', "three: raised KeyError: 'k'"]
    """
    failures = []
    for name, check in checks:
        try:
            ok = check()
        except Exception as e:  # noqa: BLE001 - a failed check is reported, not raised
            failures.append(f"{name}: raised {type(e).__name__}: {str(e)[:300]}")
        else:
            if not ok:
                failures.append(f"{name}: not equal")
    return failures
