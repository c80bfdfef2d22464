"""Run tests against the C accelerator built with AddressSanitizer and UndefinedBehaviorSanitizer.

Usage::

    python fuzz/sanitize.py BUILD_DIR [--hostile] [PYTEST_ARGUMENTS...]

The interpreter running this script must have the test dependencies installed (``nox -s sanitize`` and
``.ci/run`` give it one). The C kernels are compiled with gcc (``CC`` to choose another compiler) and
``-fsanitize=address,undefined`` into ``BUILD_DIR``, next to a copy of the package's Python files, never into
the source tree, where an editable install keeps its normal build. pytest then runs with that copy first on
``sys.path`` and:

- ``LD_PRELOAD`` of the compiler's ``libasan``: the interpreter is not built with ASan, and ASan's runtime
  must be loaded before anything else;
- ``PYTHONMALLOC=malloc``: every Python object is then a ``malloc`` block that ASan watches, rather than a
  slot in pymalloc's arenas, so reading an object after it was freed is caught too;
- ``ASAN_OPTIONS=detect_leaks=0``: the interpreter keeps much of what it allocates until it exits, which
  LeakSanitizer would report; leaks of the library's own references are held by the reference-count tests;
- UBSan stops at the first undefined behaviour (``-fno-sanitize-recover``), with a stack trace.

Any report makes pytest's process exit with a failure. ``--hostile`` runs the tests that feed the kernels
hostile input and hold them to the Python code (``HOSTILE``, what ``.ci/run`` runs); other arguments go to
pytest as they are (give test paths with them); with none, the whole of ``tests/`` runs, but not the
doctests of the package, which pytest would import from ``src/``, beside the normal build. Either way the
tests in ``TOO_SLOW`` are left out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The tests that feed the C kernels hostile input, or hold them to the Python code they stand in for.
HOSTILE = [
    "tests/test_hostile.py",
    "tests/test_hostile_errors.py",
    "tests/test_hostile_limits.py",
    "tests/test_hostile_objects.py",
    "tests/test_fuzz_regressions.py",
    "tests/test_speedups_base64_maker.py",
    "tests/test_speedups_json_values.py",
    "tests/test_speedups_json_writer.py",
    "tests/test_speedups_audit.py",
    "tests/test_speedups_unstructure.py",
    "tests/test_speedups_structure.py",
    "tests/test_generated_structure.py",
    "tests/test_parsed_conversations.py",
    "tests/test_loads_recursion.py",
    "tests/test_json_reader.py",
]
#: Tests with a deadline that code run under ASan (a few times slower) does not meet; none of them runs C code
#: that the others do not.
TOO_SLOW = [
    "tests/test_speedups_base64_maker.py::test_conformance_runner_passes_in_pure_python",
]
SANITIZERS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]


def build(target: Path) -> Path:
    """Compile the kernels with the sanitizers into ``target``, beside a copy of the package; return the site dir."""
    site = target / "site"
    package = site / "contentblocks"
    shutil.rmtree(site, ignore_errors=True)
    shutil.copytree(ROOT / "src" / "contentblocks", package, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    cc = os.environ.get("CC", "gcc")
    include = sysconfig.get_paths()["include"]
    output = package / f"_speedups{sysconfig.get_config_var('EXT_SUFFIX')}"
    sources = sorted(str(path) for path in (ROOT / "src" / "speedups").glob("*.c"))
    command = [cc, "-shared", "-fPIC", "-O1", "-g", *SANITIZERS, f"-I{include}", *sources, "-o", str(output)]
    subprocess.run(command, check=True)  # noqa: S603 - the compiler, on our own sources
    return site


def runtime(cc: str) -> str:
    """The path of the compiler's ASan runtime library, to preload."""
    found = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True, check=True)  # noqa: S603
    path = found.stdout.strip()
    if not Path(path).is_absolute() or not Path(path).exists():
        sys.exit(f"{cc} has no libasan.so to preload (got {path!r})")
    return str(Path(path).resolve())


def main(argv: list[str]) -> int:
    """Build into ``argv[0]``, check that the sanitized build is the one imported, run pytest on the rest."""
    if not argv:
        sys.exit(__doc__)
    site = build(Path(argv[0]).resolve())
    env = {key: value for key, value in os.environ.items() if key != "CONTENTBLOCKS_PURE_PYTHON"}
    env.update(
        LD_PRELOAD=runtime(os.environ.get("CC", "gcc")),
        PYTHONMALLOC="malloc",
        ASAN_OPTIONS="detect_leaks=0",
        UBSAN_OPTIONS="print_stacktrace=1",
        PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    check = "import contentblocks._speedups as s; print(s.__file__)"
    loaded = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True, check=True)  # noqa: S603
    if not Path(loaded.stdout.strip()).is_relative_to(site):
        sys.exit(f"the sanitized build is not the one imported: {loaded.stdout.strip()}")
    options = argv[1:]
    if "--hostile" in options:
        options.remove("--hostile")
        options += HOSTILE
    elif not options:
        options.append("tests")
    deselect = [f"--deselect={test}" for test in TOO_SLOW]
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *deselect, *options]
    return subprocess.run(command, env=env, cwd=ROOT, check=False).returncode  # noqa: S603


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
