"""Keep the one-time model preparation out of the user's terminal.

Preparing the embedded models prints hundreds of lines that say nothing to a user: llama.cpp's quantizer writes a
line per tensor from C (about 300 for SmolLM2's Q8_0 copy), transformers draws a progress bar while it dequantizes a
GGUF and warns about deprecated names, and tracing the model for the OpenVINO export warns about every traced
constant. What they say goes to this module's log at debug level instead (and at warning level, its last lines, when
the step fails, so an error is never hidden).
"""
from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator

log = logging.getLogger(__name__)
# One quiet block at a time in the process: the redirections are process-wide, and two threads nesting them out of
# order would leave sys.stderr (or descriptor 2) pointing at a finished block's buffer for good. Always the
# innermost lock (nothing inside a block takes another of Fabula's locks), so it cannot deadlock.
_quiet = threading.RLock()
TAIL_LINES = 20
CHATTY_LOGGERS = ("nncf", "transformers", "torch")  # libraries that log tables and notices at INFO/WARNING


def _report(what: str, text: str, failed: bool) -> None:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return
    if failed:
        log.warning("%s failed; its last output:\n%s", what, "\n".join(lines[-TAIL_LINES:]))
    else:
        log.debug("%s printed %d lines (hidden)", what, len(lines))


@contextlib.contextmanager
def native_output(what: str) -> Iterator[None]:
    """C code's prints (file descriptors 1 and 2) go to a temporary file while the block runs. Everything written to
    those descriptors meanwhile is caught, so keep the block short (llama.cpp's quantizer: about a second)."""
    with _quiet:
        with _native_output(what):
            yield


@contextlib.contextmanager
def _native_output(what: str) -> Iterator[None]:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:  # no descriptors to redirect (an embedded interpreter): nothing to hide
        yield
        return
    failed = False
    with tempfile.TemporaryFile(mode="w+b") as sink:
        try:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            yield
        except BaseException:
            failed = True
            raise
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            sink.seek(0)
            _report(what, sink.read().decode("utf-8", "replace"), failed)


@contextlib.contextmanager
def python_output(what: str) -> Iterator[None]:
    """Progress bars and warnings from Python libraries (tqdm, transformers, torch's tracer) are caught while the
    block runs; log records of other code still reach their handlers."""
    with _quiet:
        with _python_output(what):
            yield


@contextlib.contextmanager
def _python_output(what: str) -> Iterator[None]:
    caught = io.StringIO()
    failed = False
    levels = {name: logging.getLogger(name).level for name in CHATTY_LOGGERS}
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    seen: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as seen, contextlib.redirect_stderr(caught), \
                contextlib.redirect_stdout(caught):
            warnings.simplefilter("always")
            yield
    except BaseException:
        failed = True
        raise
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
        text = caught.getvalue().replace("\r", "\n") + "".join(f"{w.category.__name__}: {w.message}\n" for w in seen)
        _report(what, text, failed)


_closing_registered = False


def close_llama_cpp_files_at_exit() -> None:
    """llama-cpp-python opens os.devnull twice when imported (for its own output suppression) and never closes it;
    once a library has reset the warning filters, Python reports both as ResourceWarnings at exit (two lines after
    every `cli.py llm prepare`). Close them when the interpreter exits, after the models are freed."""
    global _closing_registered
    if _closing_registered:
        return
    _closing_registered = True

    def close() -> None:
        utils = sys.modules.get("llama_cpp._utils")
        for name in ("outnull_file", "errnull_file"):
            handle = getattr(utils, name, None)
            if handle is not None and hasattr(handle, "close"):
                with contextlib.suppress(Exception):
                    handle.close()

    import atexit
    atexit.register(close)
