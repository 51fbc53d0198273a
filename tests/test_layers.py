"""The package's layers run one way: formats → parsing | constraint → detection, requests →
integrations → command line. Every import in every module is read (those inside functions
too), so a shortcut taken for convenience fails here."""

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "thinkgate"

# A module's layer is its first path part under thinkgate/; a layer may import its own and lower ones.
LAYERS = {
    "formats": 0,
    "parsing": 1,
    "constraint": 1,
    "detection": 2,
    "requests": 2,
    "integrations": 3,
    "tokenizers": 2,
    "batch": 3,
    "demo": 4,
    "agent": 4,
    "cli.checks": 5,
    "cli.generate": 6,
    "cli.agent": 6,
    "cli.main": 7,
    "cli": 8,
    "__main__": 9,
}


# Packages whose modules are layers of their own (the command line's: checks, then the
# subcommands, then the parser that holds them).
LAYERED = {"cli"}


def _unit(parts: tuple[str, ...]) -> str:
    if not parts:
        return "__init__"
    if parts[0] in LAYERED and len(parts) > 1 and parts[1] != "__init__.py":
        return f"{parts[0]}.{parts[1].removesuffix('.py')}"
    return parts[0].removesuffix(".py")


def _imports(path: pathlib.Path):
    """(line, imported unit) for every thinkgate import in ``path``."""
    package = path.relative_to(ROOT.parent).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = (*base, *(node.module.split(".") if node.module else ()))
            else:
                target = tuple((node.module or "").split("."))
            if target[0] != "thinkgate":
                continue
            if len(target) == 1 or (len(target) == 2 and target[1] in LAYERED):  # "from . import x": each name is a unit
                for alias in node.names:
                    yield node.lineno, alias.name if len(target) == 1 else f"{target[1]}.{alias.name}"
            else:
                yield node.lineno, _unit(target[1:]) if target[1] in LAYERED and len(target) > 2 else target[1]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "thinkgate" and len(parts) > 1:
                    yield node.lineno, parts[1]


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).parts
        if rel == ("__init__.py",):
            continue  # the package's face re-exports every layer (lazily where it costs)
        yield path, _unit(rel)


@pytest.mark.parametrize("path,unit", list(_modules()), ids=lambda v: str(v.relative_to(ROOT)) if isinstance(v, pathlib.Path) else None)
def test_imports_go_down_the_layers(path, unit):
    assert unit in LAYERS, f"{unit} has no layer: add it to LAYERS"
    for line, target in _imports(path):
        if target == unit:
            continue
        assert target in LAYERS, f"{path.name}:{line} imports thinkgate.{target}, which has no layer"
        # peers of one layer (parsing and constraint) do not import each other either
        assert LAYERS[target] < LAYERS[unit], (
            f"{path.relative_to(ROOT)}:{line} imports thinkgate.{target} (layer {LAYERS[target]}) from layer {LAYERS[unit]} ({unit})"
        )


def _loaded_after(statement: str) -> set:
    code = f"import sys; {statement}; print(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_import_thinkgate_loads_no_engine_and_no_ag_ui():
    loaded = _loaded_after("import thinkgate")
    assert not {"torch", "xgrammar", "ag_ui", "transformers", "pydantic"} & loaded


def test_ag_ui_and_detect_load_on_first_use():
    loaded = _loaded_after("import thinkgate; thinkgate.AGUIRenderer; thinkgate.detect")
    assert "ag_ui.core" in loaded and "thinkgate.detection" in loaded
    with pytest.raises(AttributeError):
        import thinkgate

        thinkgate.no_such_name


def test_a_structural_tag_is_built_without_torch():
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}}
    loaded = _loaded_after(f"from thinkgate.constraint import build_structural_tag; build_structural_tag('deepseek_v3_1', [{tool!r}], 'required')")
    assert "thinkgate.constraint.grammar.structural_tag" in loaded
    assert not {"torch", "xgrammar"} & loaded


@pytest.mark.parametrize("package", ["parsing", "constraint"])
def test_parsing_and_constraint_never_scan_the_registry(package):
    # They are given a format; what the registry as a whole says (formats/tokens.py) is the
    # formats layer's to answer.
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("formats"):
                assert "names" not in {a.name for a in node.names}, f"{path.relative_to(ROOT)}:{node.lineno}"


@pytest.mark.parametrize("package", ["parsing", "constraint/grammar"])
def test_no_layout_module_imports_another(package):
    # A layout's parser (and its grammar) is its own stages composed with the shared parts;
    # one layout built on another's module is the subclass chain this house replaced.
    from thinkgate.formats import LAYOUTS

    layouts = {layout.name for layout in LAYOUTS}
    for name in layouts:
        path = ROOT / package / f"{name}.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                imported = {node.module} if node.module else {a.name for a in node.names}
                assert not (imported & layouts - {name}), f"{package}/{name}.py:{node.lineno} imports {imported & layouts}"


def test_parser_layouts_are_composed_not_inherited():
    # Every class in a layout's parser module stands alone: its stages come from the parts it
    # holds (driver, call tracker, markup stages), not from a parent's handler table.
    import enum
    import importlib

    from thinkgate.formats import LAYOUTS

    for layout in LAYOUTS:
        module = importlib.import_module(f"thinkgate.parsing.{layout.name}")
        classes = [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__]
        assert any(hasattr(c, "stages") for c in classes), module.__name__
        for value in classes:
            if not issubclass(value, enum.Enum):
                assert value.__bases__ == (object,), f"{value.__qualname__} inherits from {value.__bases__}"
