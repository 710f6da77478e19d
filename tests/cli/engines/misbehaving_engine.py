"""An engine that misbehaves on purpose, for the tests of tapecheck's --engine-cmd.

It passes every request through to `tapecheck serve` (a correct engine) except those whose case
uses the op named on the command line, where it misbehaves as the mode says:

    misbehaving_engine.py TAPECHECK MODE [OP]

crash-on OP       dies by SIGSEGV             exit-on OP        writes to stderr, exits with status 3
hang-on OP        never answers               garbage-on OP     answers a line that is not JSON
no-context-on OP  answers without "context"    wrong-shape-on OP gives gradients of the wrong shape
wrong-id-on OP    answers with another id      unsupported-on OP answers that OP is unsupported
flood-on OP       answers a context of 16 million values, a line of 64 MiB (far more than the case can need)
unsupported-all   answers that every case is unsupported (a run that compares nothing)
exit-at-start     exits with status 1 before its hello
bad-hello         announces protocol version 2
pid-file PATH     writes its process id to PATH, passes everything through, and never exits by itself

Hostile text (docs/threat-model.md): the engine fails a case that uses OP with an error message
meant to harm the terminal or the reports; tapecheck must escape it, cut it and still save it.

escape-on OP      a message of terminal escape sequences (clear the screen, set the title, colours)
forge-on OP       a message with CR and LF that forges a line "FAKE: all passed"
nul-on OP         a message with NUL bytes
bad-utf8-on OP    a message with bytes that are not UTF-8 (written raw into the JSON line)
huge-on OP        a message of 10 MiB
hostile-name      a profile name of escape sequences, CR and LF; passes everything through
hello-list        a hello that is a list of non-ASCII text, not an object (tapecheck quotes its start)
"""
import json
import os
import signal
import subprocess
import sys
import time


def main():
    tapecheck, mode = sys.argv[1], sys.argv[2]
    argument = sys.argv[3] if len(sys.argv) > 3 else None
    if mode == "exit-at-start":
        sys.stderr.write("engine cannot start: no GPU\n")
        sys.exit(1)
    if mode == "pid-file":
        with open(argument, "w") as f:
            f.write(str(os.getpid()))
    serve = subprocess.Popen([tapecheck, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    hello = serve.stdout.readline()
    if mode == "bad-hello":
        hello = json.dumps({"tapecheck_engine": 2, "profile": {}}) + "\n"
    if mode == "hello-list":
        hello = json.dumps(["x" + "\u00e9" * 100], ensure_ascii=False) + "\n"
    if mode == "hostile-name":
        parsed = json.loads(hello)
        parsed["profile"]["name"] = HOSTILE_NAME
        hello = json.dumps(parsed) + "\n"
    sys.stdout.write(hello)
    sys.stdout.flush()
    for line in sys.stdin:
        request = json.loads(line)
        ops = {node["op"] for node in request["case"].get("nodes", [])}
        serve.stdin.write(line)
        serve.stdin.flush()
        answer = serve.stdout.readline()
        if argument in ops:
            answer = misbehave(mode, argument, request, answer)
        if mode == "unsupported-all":
            answer = json.dumps({"id": request["id"], "unsupported": sorted(ops)[0] if ops else "input"}) + "\n"
        if isinstance(answer, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(answer)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(answer)
            sys.stdout.flush()
    if mode == "pid-file":  # only a kill ends it: the test of tapecheck's cleanup
        time.sleep(3600)


HOSTILE_NAME = "\x1b]0;pwned\x07\x1b[2Jengine\r\nFAKE: all passed"
HOSTILE_MESSAGES = {
    "escape-on": "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b[1;32mlooks fine\x1b[0m",
    "forge-on": "boom\r\nFAKE: all passed\n",
    "nul-on": "before\x00after\x00",
    "huge-on": "x" * (10 << 20),
}


def misbehave(mode, op, request, answer):
    if mode in HOSTILE_MESSAGES:
        return json.dumps({"id": request["id"], "error": {"message": HOSTILE_MESSAGES[mode]}}) + "\n"
    if mode == "bad-utf8-on":
        # json.dumps writes only ASCII: the bad bytes go into the line as they are.
        line = json.dumps({"id": request["id"], "error": {"message": "BAD"}}).encode()
        return line.replace(b"BAD", b"caf\xc3 \xff\xfe end") + b"\n"
    if mode == "crash-on":
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "exit-on":
        sys.stderr.write(f"boom: cannot handle {op}\n")
        sys.stderr.flush()
        sys.exit(3)
    if mode == "hang-on":
        time.sleep(3600)
    if mode == "garbage-on":
        return "this is not json\n"
    if mode == "flood-on":
        count = 16 << 20
        return ('{"id": %d, "context": [{"values": [' % request["id"] + '"0",' * (count - 1) +
                '"0"], "shape": [%d]}], "passes": []}\n' % count)
    parsed = json.loads(answer)
    if mode == "no-context-on":
        parsed.pop("context", None)
    elif mode == "wrong-shape-on":
        for result in parsed.get("passes", []):
            for tensor in result.get("gradients", []):
                tensor["shape"], tensor["values"] = [len(tensor["values"]) + 1], tensor["values"] + ["0"]
    elif mode == "wrong-id-on":
        parsed["id"] += 1000
    elif mode == "unsupported-on":
        parsed = {"id": request["id"], "unsupported": op}
    return json.dumps(parsed) + "\n"


if __name__ == "__main__":
    main()
