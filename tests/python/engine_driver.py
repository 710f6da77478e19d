"""Drive an engine process as tapecheck does: read its hello, write request lines, read answer lines.

Reading happens on a thread into a queue, so a test that waits for a line that never comes fails
after a timeout instead of hanging; standard error is collected for failure messages.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCALAR_ENGINE = REPO / "examples" / "python" / "scalar_engine.py"
TORCH_ENGINE = REPO / "adapters" / "python" / "torch_engine.py"
TIMEOUT = 60.0  # seconds for one line; torch's import alone can take a few


def engine_environment() -> dict:
    """This environment without PYTHONUNBUFFERED: an engine must flush each answer itself, as it
    must when tapecheck starts it from a shell that does not set the variable."""
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    return env


class EngineProcess:
    """One engine child process speaking the protocol on its standard input and output."""

    def __init__(self, script: Path | None, *args: str, command: list[str] | None = None):
        """A Python engine `script` with `args`, or, without a script, the program `command`."""
        argv = [sys.executable, str(script), *args] if script is not None else command
        self.process = subprocess.Popen(
            argv, cwd=REPO, env=engine_environment(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue = queue.Queue()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self.next_id = 1

    def _read_stdout(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)  # end of output

    def _read_stderr(self):
        for line in self.process.stderr:
            self.stderr.append(line)

    def read_line(self) -> bytes | None:
        """The next raw line of output, or None at its end."""
        try:
            return self.lines.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"no line from the engine in {TIMEOUT} s; stderr: {self.error_text()}") from None

    def read_json(self) -> dict:
        line = self.read_line()
        if line is None:
            raise AssertionError(f"the engine's output ended; stderr: {self.error_text()}")
        assert line.endswith(b"\n"), line
        return json.loads(line)

    def hello(self) -> dict:
        return self.read_json()

    def send(self, *bodies: dict) -> list[int]:
        """Writes one request per body (its "id" added, first, as tapecheck does); returns the ids."""
        ids, text = [], ""
        for body in bodies:
            ids.append(self.next_id)
            text += json.dumps({"id": self.next_id, **body}) + "\n"
            self.next_id += 1
        self.process.stdin.write(text.encode())
        self.process.stdin.flush()
        return ids

    def ask(self, body: dict) -> dict:
        """One request and its answer, checked to carry the request's id."""
        (request_id,) = self.send(body)
        out = self.read_json()
        assert out.get("id") == request_id, (request_id, out)
        return out

    def close(self) -> int:
        """Closes the engine's standard input, as tapecheck does when done; returns its exit status."""
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=TIMEOUT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.process.stdout.close()
            self.process.stderr.close()

    def error_text(self) -> str:
        return b"".join(self.stderr).decode(errors="replace")[-2000:]


class EngineTestCase(unittest.TestCase):
    """Tests sharing one engine process per class (as tapecheck keeps one per run); an engine that
    crashed in one test is restarted for the next, so a crash fails only the test that caused it."""

    script: Path
    args: tuple = ()

    @classmethod
    def setUpClass(cls):
        cls.engine = EngineProcess(cls.script, *cls.args)
        cls.hello_line = cls.engine.hello()

    @classmethod
    def tearDownClass(cls):
        cls.engine.close()

    def setUp(self):
        if self.engine.process.poll() is not None:
            type(self).setUpClass()

    def ask(self, body: dict) -> dict:
        return self.engine.ask(body)


def request(carrier: str, inputs: list, values: list, nodes: list, passes: list, data: dict | None = None) -> dict:
    """A request body: inputs as shapes, nodes as {"op", "args", "attrs", "shape"} dicts."""
    case = {"tapecheck": 1, "inputs": [{"shape": s} for s in inputs], "nodes": nodes, "values": values}
    if data:
        case["data"] = data
    return {"carrier": carrier, "case": case, "passes": passes}


def node(op: str, args: list, shape: list, /, **attrs) -> dict:
    """A node of a case document; keyword arguments are its attributes (`shape=` included)."""
    out = {"op": op, "args": args, "shape": shape}
    if attrs:
        out["attrs"] = attrs
    return out


def dense(*seeds: list) -> dict:
    return {"dense": list(seeds)}


def single(output: int, seed: list) -> dict:
    return {"single": {"output": output, "seed": seed}}


def gradients(answer: dict, pass_index: int = 0) -> list:
    """The gradient values of one pass, one list of strings per position."""
    return [t["values"] for t in answer["passes"][pass_index]["gradients"]]


def context(answer: dict) -> list:
    return [t["values"] for t in answer["context"]]


def as_floats(values: list) -> list:
    """Hex or decimal value strings as floats (for comparisons on IEEE carriers)."""
    return [float.fromhex(v) if "x" in v else float(v) for v in values]
