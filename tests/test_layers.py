"""Layers that show: read from the source (lazy imports inside functions included).

- The core (errors, units, materials, transforms, frames, inertia, shapes, density, component,
  bodies, appearance)
  imports nothing from mesh, model, export, sim, viz or commands.
- Each library layer imports only downwards (model < export < sim; viz over model and mesh;
  formats over model; checking over formats; commands over everything, and nothing imports
  commands).
- No import cycle among the package's modules.
- No consumer names a shape: the registry is the only list of shapes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rigidparts.shapes import SHAPES

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "rigidparts"

CORE = (
    "errors",
    "fileio",
    "units",
    "materials",
    "transforms",
    "frames",
    "inertia",
    "shapes",
    "density",
    "component",
    "bodies",
    "report",
    "appearance",
    "sensitivity",
    "cad",
)
#: For each top-level part: the parts it may not import.
FORBIDDEN = {
    **{
        core: ("mesh", "model", "export", "sim", "viz", "commands", "batch", "tolerancing")
        for core in CORE
    },
    "mesh": ("model", "export", "sim", "viz", "commands", "batch", "tolerancing"),
    "batch": ("mesh", "model", "export", "sim", "viz", "commands", "tolerancing"),
    # tolerance studies: over batch and the core, below the command line
    "tolerancing": ("mesh", "model", "export", "sim", "viz", "commands"),
    "model": ("export", "sim", "viz", "commands", "batch"),
    "export": ("sim", "viz", "commands", "batch"),
    "sim": ("viz", "commands", "batch"),
    "viz": ("commands", "batch", "export"),
    # robot description files: read into the neutral form, then a Model (over model and the
    # core); checking them compares, diagnoses and repairs (over formats)
    "formats": ("export", "sim", "viz", "commands", "batch", "tolerancing", "checking"),
    "checking": ("viz", "commands", "batch", "tolerancing"),
    # domain randomization: over model, batch, tolerancing and export, below the command line
    "variation": ("sim", "viz", "commands", "formats", "checking"),
    # tolerance studies of a model's derived quantities: over variation and tolerancing
    "model_tolerance": ("sim", "viz", "commands", "formats", "checking", "export"),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Every rigidparts module ``name`` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # ``from .x import y``: y is a module when such a module exists, else a name in x.
            targets = [
                f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in MODULES else stem
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target.startswith("rigidparts") and target != name:
                found.add(target)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_downwards(module: str) -> None:
    forbidden = FORBIDDEN.get(_part(module), ())
    bad = sorted(t for t in GRAPH[module] if _part(t) in forbidden)
    assert not bad, f"{module} imports {bad}, above its layer"


def test_nothing_imports_the_top_package_or_the_command_line() -> None:
    for module, targets in GRAPH.items():
        if module == "rigidparts" or _part(module) == "commands":
            continue
        assert "rigidparts" not in targets, f"{module} imports the top-level package"
        assert not any(_part(t) == "commands" for t in targets), module


def test_no_import_cycles() -> None:
    # Edges from a module to its own parent packages are Python's import order, not a choice.
    def edges(module: str) -> set[str]:
        return {t for t in GRAPH[module] if not module.startswith(t + ".")}

    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(edges(module)):
            if state.get(target) == 1:
                cycle = [*stack[stack.index(target) :], target]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        stack.pop()
        state[module] = 2

    for module in sorted(MODULES):
        if module not in state:
            visit(module)


def _string_literals(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings
    }  # fmt: skip


#: Words that are shape names and also other things consumers must say: the native primitives
#: of the export formats and the geometry kinds of robot description files (``Primitive.kind``,
#: ``formats.description.GEOMETRY_KINDS``), joint types (a ball joint), the mesh geometry kind
#: and the ``mesh`` command; and a simulation's time step (the STEP body's name).
NOT_ONLY_SHAPES = {"box", "cylinder", "sphere", "ball", "mesh", "capsule", "ellipsoid", "step"}


@pytest.mark.parametrize(
    "module",
    sorted(m for m in MODULES if _part(m) not in ("shapes", "bodies") and m != "rigidparts"),
)
def test_no_consumer_names_a_shape(module: str) -> None:
    names = set(SHAPES) - NOT_ONLY_SHAPES
    found = sorted(_string_literals(MODULES[module]) & names)
    assert not found, f"{module} names the shape(s) {found}: read the registry instead"


def _shape_comparisons(path: Path) -> list[int]:
    """Lines comparing something called ``shape`` with a shape name, or dict literals keyed by
    shape names (``{"box": Box}``)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            named = any(
                (isinstance(o, ast.Name) and "shape" in o.id)
                or (isinstance(o, ast.Attribute) and "shape" in o.attr)
                for o in operands
            )
            literal = any(isinstance(o, ast.Constant) and o.value in SHAPES for o in operands)
            if named and literal:
                lines.append(node.lineno)
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            if len([k for k in keys if k in SHAPES]) >= 2:
                lines.append(node.lineno)
    return lines


@pytest.mark.parametrize(
    "module",
    sorted(m for m in MODULES if _part(m) not in ("shapes", "bodies") and m != "rigidparts"),
)
def test_no_consumer_branches_on_a_shape(module: str) -> None:
    lines = _shape_comparisons(MODULES[module])
    assert not lines, f"{module} branches on shape names at lines {lines}"
