"""The scalar Python engine (examples/python/scalar_engine.py), misbehaving on one op: it hangs
(`--hang OP`: sleeps forever) or crashes (`--crash OP`: SIGSEGV) whenever a case has that op.
With `--starts FILE` each start of the program (each import of the engine) appends its pid to
FILE, so that a test can count them. With `--error-position-off` every domain error it answers
names the position before the failing node's (its message untouched); with `--errors FILE` each
domain error appends a line "OP VALUES" to FILE (the op and the constrained argument's values),
so that a test can count the refusals a run drew.

    /usr/bin/python3 tests/engines/misbehaving_engine.py --hang tanh [--starts FILE]
    /usr/bin/python3 tests/engines/misbehaving_engine.py --error-position-off [--errors FILE]
"""
import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import scalar_engine  # noqa: E402
import tapecheck_engine  # noqa: E402
from tapecheck_engine import DomainError, serve  # noqa: E402


class Misbehaving(scalar_engine.ScalarEngine):
    def __init__(self, hang, crash, errors):
        super().__init__(bug=False)
        self.hang, self.crash, self.errors = hang, crash, errors

    def apply(self, op, args, attrs, shape, data):
        if op == self.hang:
            time.sleep(1e6)
        if op == self.crash:
            print(f"misbehaving_engine: crashing on {op}", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGSEGV)
        try:
            return super().apply(op, args, attrs, shape, data)
        except DomainError:
            if self.errors:
                constrained = args[1] if op == "div" else args[0]
                with open(self.errors, "a") as log:
                    log.write(f"{op} {' '.join(str(v.data) for v in constrained.values)}\n")
            raise


def shift_error_positions():
    """Every domain error's position one lower: the library's _forward names the failing node."""
    forward = tapecheck_engine._forward

    def shifted(*args, **kwargs):
        try:
            return forward(*args, **kwargs)
        except tapecheck_engine._Failed as failure:
            error = failure.body.get("error")
            if error is not None and "position" in error:
                error["position"] -= 1
            raise

    tapecheck_engine._forward = shifted


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hang", metavar="OP")
    parser.add_argument("--crash", metavar="OP")
    parser.add_argument("--starts", metavar="FILE")
    parser.add_argument("--error-position-off", action="store_true")
    parser.add_argument("--errors", metavar="FILE")
    options = parser.parse_args()
    if options.error_position_off:
        shift_error_positions()
    if options.starts:
        with open(options.starts, "a") as starts:
            starts.write(f"{os.getpid()}\n")
    serve(Misbehaving(options.hang, options.crash, options.errors))


if __name__ == "__main__":
    main()
