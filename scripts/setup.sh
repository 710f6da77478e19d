#!/usr/bin/env bash
# Installs tapecheck's build dependencies from Debian's packages (bookworm). Idempotent: when
# everything is present it changes nothing and needs no network.
set -euo pipefail
packages=(g++ cmake make ninja-build librapidcheck-dev libgtest-dev libboost-dev libgmp-dev libmpfi-dev nlohmann-json3-dev
          libcli11-dev libfmt-dev libbenchmark-dev libtcmalloc-minimal4 mold)
# mold links the build's ~60 programs about 3x faster than GNU ld (CMakeLists.txt, TAPECHECK_FAST_LINKER).
# --test: the tests also render DOT pictures (graphviz), parse JUnit XML (python3), check
# PyTorch through the engine protocol (python3-torch, which installs into Debian's /usr/bin/python3),
# run the pytest plugin (python3-pytest), check ADOL-C (libadolc-dev, for adapters/adolc),
# and build the sanitized tests and the fuzzer with Clang 16 and its libFuzzer (scripts/sanitize.sh).
# --torch: libtorch for the optional C++ PyTorch adapter (adapters/libtorch) and the bench comparison.
# --test also installs Node.js (Debian's nodejs, and npm where no npm comes with it) and, with npm ci,
# the pinned TensorFlow.js packages of adapters/js (package-lock.json), which the JS client's tests
# and the TensorFlow.js engine verdict run.
root="$(cd "$(dirname "$0")/.." && pwd)"
javascript=false
for option in "$@"; do
  case "$option" in
    --test) packages+=(graphviz python3 python3-torch python3-pytest libadolc-dev clang-16 libclang-rt-16-dev lld-16 nodejs)
            command -v npm >/dev/null || packages+=(npm)
            javascript=true ;;
    --torch) packages+=(libtorch-dev) ;;
    *) echo "setup: unknown option $option (the options are --test and --torch)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all Debian packages are installed"
else
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The npm packages, again whenever the lock file is newer than what npm ci last installed.
if $javascript; then
  installed="$root/adapters/js/node_modules/.package-lock.json"
  if [ ! -f "$installed" ] || [ "$root/adapters/js/package-lock.json" -nt "$installed" ]; then
    echo "setup: installing adapters/js's npm packages (npm ci)"
    (cd "$root/adapters/js" && npm ci --no-audit --no-fund --loglevel=error)
  else
    echo "setup: adapters/js's npm packages are installed"
  fi
fi
