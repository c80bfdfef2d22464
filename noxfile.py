"""Wider checks than CI's test run: ``nox`` runs tests, lint, typing and docs with the running Python.

Other Python versions are opt-in: ``nox -s tests_versions`` tries every version in the classifiers that is
installed. ``bench``, ``fuzz``, ``fuzz_readers``, ``atheris`` and ``sanitize`` run only when asked for.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "lint", "typing", "docs"]

ROOT = Path(__file__).parent
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
VERSIONS = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', PYPROJECT)


@nox.session
def tests(session: nox.Session) -> None:
    """The test suite (doctests of the package and docs included), then the public conformance vectors.

    The suite runs twice: with the C accelerator (built on install where a compiler is found) and with the
    pure-Python code it stands in for (``CONTENTBLOCKS_PURE_PYTHON=1``).
    """
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)
    session.run("pytest", *session.posargs, env={"CONTENTBLOCKS_PURE_PYTHON": "1"})
    conformance = ROOT.parent / "shared" / "conformance" / "run.py"
    if conformance.exists():
        session.run("python", str(conformance))


@nox.session(python=VERSIONS)
def tests_versions(session: nox.Session) -> None:
    """The test suite on each Python version of the classifiers (opt-in)."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Ruff, every rule selected (see pyproject.toml for the few ignores and why)."""
    session.install("ruff")
    session.run("ruff", "check", "src", "tests", "bench", "fuzz", "docs/conf.py", "noxfile.py")


@nox.session
def typing(session: nox.Session) -> None:
    """Mypy in strict mode over the package."""
    session.install("-e", ".[orjson,msgpack,cbor2,hypothesis]", "mypy")
    session.run("mypy")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the docs with warnings as errors and nitpicky references, then run every example as a doctest."""
    # The provider pages' examples build the SDKs' own objects, so the SDKs are installed for them to run.
    session.install(
        "-e", ".[docs,orjson,msgpack,cbor2,hypothesis]", "jsonschema", "anthropic", "openai", "google-genai", "mcp"
    )
    for builder in ("html", "doctest"):
        session.run("sphinx-build", "-W", "-n", "--keep-going", "-b", builder, "docs", f"docs/_build/{builder}")


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks against pydantic, msgspec, pydantic-ai and langchain-core into docs/benchmarks.md (with and
    without the accelerator); then refusal, growth, seal, streaming, check, bridges (with the Vercel AI SDK's own
    load under node where npm is found), history."""
    session.install("-e", ".[bench]")
    session.run("python", "bench/run.py", "--render", "docs/benchmarks.md", *session.posargs)
    session.run("python", "bench/run.py", "--pure", "--render", "docs/benchmarks.md", *session.posargs)
    session.run("python", "bench/refusal.py", "--render", "docs/limits.md")
    session.run("python", "bench/growth.py", "--render", "docs/benchmarks.md")
    session.run("python", "bench/seal.py", "--render", "docs/benchmarks.md")
    session.run("python", "bench/streaming.py", "--render", "docs/streaming.md")
    session.run("python", "bench/check.py", "--render", "docs/cli.md")
    if shutil.which("npm"):  # the Vercel AI SDK's own load, bench/bridges.py's baseline for its bridge
        session.run("npm", "ci", "--prefix", "bench/peers/vercel", "--no-audit", "--no-fund", external=True)
    session.run("python", "bench/bridges.py", "--render", "docs/benchmarks.md")
    session.run("python", "bench/history.py")  # the cost table of docs/history.md


@nox.session
def fuzz(session: nox.Session) -> None:
    """Mutation fuzzing for as long as it is given: ``CB_FUZZ_SECONDS=3600 nox -s fuzz`` (default 600 s).

    ``CB_FUZZ_EXAMPLES`` sets the examples per property run (500 by default in this session); the count of
    mutants run is printed at the end and appended to ``fuzz-report.txt``.
    """
    session.install("-e", ".[test]")
    env = {
        "HYPOTHESIS_PROFILE": "long",
        "CB_FUZZ_SECONDS": os.environ.get("CB_FUZZ_SECONDS", "600"),
        "CB_FUZZ_REPORT": "fuzz-report.txt",
    }
    if "CB_FUZZ_EXAMPLES" in os.environ:
        env["CB_FUZZ_EXAMPLES"] = os.environ["CB_FUZZ_EXAMPLES"]
    session.run("pytest", "tests/test_hostile.py", "-p", "no:cacheprovider", "-s", *session.posargs, env=env)


@nox.session
def fuzz_readers(session: nox.Session) -> None:
    """Differential fuzz of every provider reader, 200,000 cases each: ``nox -s fuzz_readers`` (args to the script).

    ``fuzz/readers.py`` prints each reader's cases, rate and failure classes, writes failing cases to
    ``reader-fuzz-failures.jsonl`` and fails on a class not known; ``-- --cases 20000 --seed 3`` for a shorter
    or another run.
    """
    session.install("-e", ".[test]")
    options = session.posargs or ["--cases", "200000", "--jobs", str(os.cpu_count() or 1)]
    session.run("python", "fuzz/readers.py", *options)


@nox.session
def atheris(session: nox.Session) -> None:
    """Coverage-guided fuzzing with atheris: ``nox -s atheris -- -max_total_time=600`` (default 300 s)."""
    session.install("-e", ".[test]", "atheris>=3.0")
    scratch = session.create_tmp()
    options = session.posargs or ["-max_total_time=300"]
    session.run(
        "python", "fuzz/harness.py", scratch, "fuzz/corpus", f"-artifact_prefix={scratch}/", *options
    )


@nox.session
def sanitize(session: nox.Session) -> None:
    """The test suite against the C kernels built with ASan and UBSan: ``nox -s sanitize`` (``-- --hostile``).

    The kernels are compiled with gcc and ``-fsanitize=address,undefined`` into the session's own directory,
    never into the source tree, and pytest runs with ``libasan`` preloaded, ``PYTHONMALLOC=malloc`` and leak
    detection off; see ``fuzz/sanitize.py``. Without arguments the whole of ``tests/`` runs; ``-- --hostile``
    runs the hostile and accelerator tests that ``.ci/run`` runs, and any other arguments go to pytest.
    The package is installed without its normal C build (``CONTENTBLOCKS_PURE_PYTHON=1``), for its
    dependencies only.
    """
    session.install("-e", ".[test]", env={"CONTENTBLOCKS_PURE_PYTHON": "1"})
    session.run("python", "fuzz/sanitize.py", session.create_tmp(), *session.posargs)
