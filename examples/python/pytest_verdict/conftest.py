"""pytest runs tapecheck's engine verdict on the scalar engine (../scalar_engine.py): one item per row.

    cd examples/python/pytest_verdict
    TAPECHECK=/path/to/build/tapecheck /usr/bin/python3 -m pytest -v
    TAPECHECK=... /usr/bin/python3 -m pytest -v --tapecheck-engine "/usr/bin/python3 ../scalar_engine.py --bug"

The first passes every row; the second checks the engine with its planted bug (add's backward assigns its
cotangent instead of adding it), and the rows that catch it fail with tapecheck's shrunk listing and the
commands that replay it. The plugin is adapters/python/tapecheck_pytest.py (docs/pytest.md). In a project
of your own, with adapters/python on PYTHONPATH, the `sys.path` line is not needed: `pytest_plugins` and
`tapecheck_engine` are the whole setup.
"""
import os
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

pytest_plugins = ["tapecheck_pytest"]
# Run in this file's directory; the interpreter running pytest runs the engine too.
tapecheck_engine = f"{shlex.quote(sys.executable)} ../scalar_engine.py"
# The rational carrier only, as tests/engines/check_engines.py checks this engine: a scalar engine in
# pure Python is slow, and the exact carrier is where its bug shows. (`tapecheck_args = []` runs every row.)
tapecheck_args = ["--carrier", "rational"]
