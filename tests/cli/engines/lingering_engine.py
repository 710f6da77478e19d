"""A correct engine that leaves processes behind on purpose, for the tests that tapecheck leaves none
(tests/cli/interrupt_test.cpp):

    lingering_engine.py TAPECHECK PIDS

It starts processes that would outlive it, and appends a line to the file PIDS for each process of
its tree, then passes every request through to `tapecheck serve` (a correct engine):

    engine PID PGID   itself, and its process group (a shell and a pipeline's processes share it)
    serve PID         `tapecheck serve`, its child
    setsid PID        a child in a session of its own (left the group), holding the protocol's pipes
    daemon PID        a grandchild that double-forked and left the session, its parent gone
    ready             all of the above started
"""
import os
import subprocess
import sys
import time


def record(path, line):
    with open(path, "a") as f:
        f.write(line + "\n")


def main():
    tapecheck, pids = sys.argv[1], sys.argv[2]
    record(pids, f"engine {os.getpid()} {os.getpgid(0)}")
    serve = subprocess.Popen([tapecheck, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    record(pids, f"serve {serve.pid}")
    # Inherits the engine's standard input and output: what a careless engine's helper does.
    sleeper = subprocess.Popen(["sleep", "3600"], start_new_session=True)
    record(pids, f"setsid {sleeper.pid}")
    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            record(pids, f"daemon {os.getpid()}")
            time.sleep(3600)
        os._exit(0)
    os.waitpid(child, 0)
    def count(word):
        return sum(1 for line in open(pids) if line.startswith(word + " "))
    while count("daemon") < count("engine"):  # written by the grandchild
        time.sleep(0.01)
    record(pids, "ready")
    sys.stdout.write(serve.stdout.readline())  # the hello
    sys.stdout.flush()
    for line in sys.stdin:
        serve.stdin.write(line)
        serve.stdin.flush()
        sys.stdout.write(serve.stdout.readline())
        sys.stdout.flush()


if __name__ == "__main__":
    main()
