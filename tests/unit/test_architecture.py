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
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & {"streamlit", "sqlalchemy", "storage", "views",
                                                                   "alembic", "cli_commands"})
                 for p in (ROOT / "core").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_storage_depends_only_on_core_domain_side() -> None:
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & {"streamlit", "views", "cli_commands"})
                 for p in (ROOT / "storage").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_pages_do_not_touch_sql_directly() -> None:
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & {"sqlalchemy", "alembic"})
                 for p in (ROOT / "views").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


PRODUCT = ("core", "storage", "views", "cli_commands")


def _module_graph() -> dict[str, set[str]]:
    """Product module -> the product modules it imports: every import statement, at the top, inside a function or
    under TYPE_CHECKING (a circle through any of them still ties the modules together), relative ones resolved."""
    files = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
             for top in PRODUCT for p in (ROOT / top).rglob("*.py")}

    def owner(name: str) -> str | None:   # the longest prefix that is a module of ours ("core.kg.x.Y" -> core.kg.x)
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                targets.update([base, *(f"{base}.{a.name}" for a in node.names)])
        graph[module] = {t for t in map(owner, targets)
                         if t and t != module and not module.startswith(t + ".")}   # a package's own __init__
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_circles_are_found() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_product_code() -> None:
    """docs/ARCHITECTURE.md: no module of core, storage, views or cli_commands reaches itself through its imports."""
    graph = _module_graph()
    assert "core.kg.resolve" in graph and "core.kg.cluster_type" in graph["core.kg.resolve"]   # the scan sees imports
    assert _circles(graph) == []


def test_view_files_stay_short() -> None:
    """Issue 35: a page over 150 lines is split by what it shows (its controls, result, export panel...) into
    views/_<page>_<part>.py helpers, so every file in views/ reads in one screenful or two."""
    long = {p.name: n for p in (ROOT / "views").glob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 150}
    assert long == {}
