"""Cases per second through the engine protocol against the in-process engine, side by side.

    /usr/bin/python3 bench/protocol.py build/tapecheck [--cases 2000] [--repeat 3]

For each engine-scoped property on `double` (same seed, same cases), the time per case of:
  in-process   the compiled engine linked into tapecheck (`--engine compiled`)
  serve        the same compiled engine behind the protocol (`--engine-cmd "tapecheck serve"`): an engine
               that answers at once, so the difference is the protocol's own cost (pipe, encoding,
               decoding, planning)
  torch        PyTorch through the protocol (adapters/python/torch_engine.py), default and exact domain
  scalar       the scalar Python engine through the protocol (examples/python/scalar_engine.py)
Each figure is the median of --repeat runs, interleaved. Prints one JSON object per engine and property,
then a summary line per engine.
"""
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROPERTIES = ["compileChecked_context", "compileChecked_backwardDenseFrom", "compileChecked_backwardDenseFrom_eq_tape",
              "backwardDenseAllFrom_eq_dense", "determinism"]


def run(binary, cases, engine_args, extra=()):
    with tempfile.TemporaryDirectory() as save:
        report = Path(save) / "r.json"
        subprocess.run([binary, "run", "--carrier", "double", "--cases", str(cases), "--seed", "1", "--quiet",
                        "--save-failures", save, "--json", str(report), "--policy", "values", *engine_args, *extra],
                       cwd=REPO, capture_output=True, text=True)
        rows = json.loads(report.read_text())["results"]
    return {row["property"]: row["ms"] * 1000 / row["cases"] for row in rows if row["property"] in PROPERTIES}


def main():
    binary = str(Path(sys.argv[1]).resolve())
    cases = int(sys.argv[sys.argv.index("--cases") + 1]) if "--cases" in sys.argv else 2000
    engines = {
        "in-process": ["--engine", "compiled"],
        "serve": ["--engine-cmd", f"{binary} serve"],
        "torch": ["--engine-cmd", "/usr/bin/python3 adapters/python/torch_engine.py", "--survey"],
        "torch-exact": ["--engine-cmd", "/usr/bin/python3 adapters/python/torch_engine.py", "--domain", "exact"],
        "scalar": ["--engine-cmd", "/usr/bin/python3 examples/python/scalar_engine.py", "--survey"],
    }
    repeats = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
    # Interleaved repeats, the median of each: load on the machine touches every engine alike.
    samples = {name: [] for name in engines}
    for _ in range(repeats):
        for name, args in engines.items():
            samples[name].append(run(binary, cases, args))
    times = {name: {p: statistics.median(s[p] for s in runs) for p in PROPERTIES} for name, runs in samples.items()}
    for name, per in times.items():
        for prop in PROPERTIES:
            print(json.dumps({"engine": name, "property": prop, "us_per_case": round(per[prop], 1),
                              "cases_per_s": round(1e6 / per[prop])}))
    base = times["in-process"]
    for name, per in times.items():
        total = sum(per[p] for p in PROPERTIES)
        line = {"engine": name, "us_per_case_all_properties": round(total, 1),
                "min_cases_per_s_per_property": round(min(1e6 / per[p] for p in PROPERTIES)),
                "over_in_process": round(total / sum(base[p] for p in PROPERTIES), 2)}
        if name == "serve":
            line["protocol_cost_over_in_process"] = round((total - sum(base.values())) / sum(base.values()), 2)
        print(json.dumps(line))


if __name__ == "__main__":
    main()
