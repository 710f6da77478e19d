#!/usr/bin/env bash
# The command-output blocks of README.md and docs/*.md, regenerated (--update) or checked (--check) from a build:
#   bash scripts/readme-examples.sh --check  [BUILD [MUTANTS_BUILD]] [--only A,B] [--skip-mutants] [--torch-survey]
#   bash scripts/readme-examples.sh --update [BUILD [MUTANTS_BUILD]] [--only A,B] [--skip-mutants] [--torch-survey]
#   bash scripts/readme-examples.sh --list
# BUILD defaults to build, MUTANTS_BUILD to build-mutants. The blocks and their commands are in
# scripts/readme_examples.py, which says what is masked and why. Debian's /usr/bin/python3 runs it
# (and the Python engines the pages show).
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/readme_examples.py" "$@"
