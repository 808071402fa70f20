"""The dependency direction of docs/ARCHITECTURE.md ("Layers"), enforced by scanning imports."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_ui_or_sql() -> None:
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & {"streamlit", "sqlalchemy", "storage", "pages",
                                                                   "alembic", "cli_commands"})
                 for p in (ROOT / "core").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_storage_depends_only_on_core_domain_side() -> None:
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & {"streamlit", "pages", "cli_commands"})
                 for p in (ROOT / "storage").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_pages_do_not_touch_sql_directly() -> None:
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & {"sqlalchemy", "alembic"})
                 for p in (ROOT / "pages").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}
