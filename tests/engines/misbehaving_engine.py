"""The scalar Python engine (examples/python/scalar_engine.py), misbehaving on one op: it hangs
(`--hang OP`: sleeps forever) or crashes (`--crash OP`: SIGSEGV) whenever a case has that op.
With `--starts FILE` each start of the program (each import of the engine) appends its pid to
FILE, so that a test can count them.

    /usr/bin/python3 tests/engines/misbehaving_engine.py --hang tanh [--starts FILE]
"""
import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import scalar_engine  # noqa: E402
from tapecheck_engine import serve  # noqa: E402


class Misbehaving(scalar_engine.ScalarEngine):
    def __init__(self, hang, crash):
        super().__init__(bug=False)
        self.hang, self.crash = hang, crash

    def apply(self, op, args, attrs, shape, data):
        if op == self.hang:
            time.sleep(1e6)
        if op == self.crash:
            print(f"misbehaving_engine: crashing on {op}", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGSEGV)
        return super().apply(op, args, attrs, shape, data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hang", metavar="OP")
    parser.add_argument("--crash", metavar="OP")
    parser.add_argument("--starts", metavar="FILE")
    options = parser.parse_args()
    if options.starts:
        with open(options.starts, "a") as starts:
            starts.write(f"{os.getpid()}\n")
    serve(Misbehaving(options.hang, options.crash))


if __name__ == "__main__":
    main()
