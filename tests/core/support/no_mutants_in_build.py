"""A normal build holds no mutant: no mutant's name and no mutation switch in the binary.

    python3 no_mutants_in_build.py MUTANT_LIST_H BINARY

core/support/mutants.h promises that without -DTAPECHECK_MUTANTS every TC_MUTANT(name) is the
constant false, so the optimiser removes the mutated branches and nothing of the list is compiled
in. This reads the names from core/support/mutant_list.h (as written there, with hyphens as the
table prints them) and looks for each, and for the switch's symbol, in the binary's bytes. Run on a
mutant build it fails, which is how it was checked.
"""
import re
import sys


def main(list_header: str, binary: str) -> int:
    names = re.findall(r"^\s*X\((\w+),", open(list_header, encoding="utf-8").read(), re.M)
    if len(names) < 30:
        print(f"{list_header}: only {len(names)} mutants read; is the list's format still X(name, ...)?")
        return 1
    data = open(binary, "rb").read()
    found = [n.replace("_", "-") for n in names if n.replace("_", "-").encode() in data]
    switch = b"_ZN2tc7mutants6active" in data
    for name in found:
        print(f"{binary}: holds the mutant name {name!r}")
    if switch:
        print(f"{binary}: holds tc::mutants::active, the mutation switch")
    if found or switch:
        return 1
    print(f"{binary}: none of the {len(names)} mutants and no mutation switch")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
