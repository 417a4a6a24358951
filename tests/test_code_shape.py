"""The architecture rules, checked: pages only draw, modules keep their private names, functions stay short."""

import ast
import dataclasses
import importlib
import inspect
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: most statements in a function body (docstring aside). Statements, not physical lines: the formatter (ruff
#: format, 120 columns) decides how many lines a call spans, and the rule is about how much a function does
MAX_BODY_STATEMENTS = 60

#: functions allowed over the limit (none: every function body fits)
KNOWN_LONG: set[str] = set()


def python_files(*folders: str) -> list[Path]:
    return [p for f in folders for p in sorted((ROOT / f).rglob("*.py"))]


def body_statements(node: ast.FunctionDef) -> int:
    """Lines on which a statement of a function body starts (nested ones included), its docstring aside."""
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(getattr(body[0], "value", None), ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    return len({s.lineno for b in body for s in ast.walk(b) if isinstance(s, ast.stmt)})


def long_functions() -> dict[str, int]:
    out = {}
    for path in python_files("engine", "views", "pages") + [ROOT / "app.py"]:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = body_statements(node)
                if n > MAX_BODY_STATEMENTS:
                    out[f"{path.relative_to(ROOT)}:{node.name}"] = n
    return out


def test_no_function_body_over_60_statements():
    found = long_functions()
    new = {k: v for k, v in found.items() if k not in KNOWN_LONG}
    assert not new, f"functions over {MAX_BODY_STATEMENTS} statements (docstring aside): {new}"
    fixed = KNOWN_LONG - set(found)
    assert not fixed, f"no longer long, remove from KNOWN_LONG: {sorted(fixed)}"


def test_pages_import_no_numpy_scipy_or_sklearn():
    pattern = re.compile(r"^\s*(import|from)\s+(numpy|scipy|sklearn)\b", re.MULTILINE)
    offenders = {
        str(p.relative_to(ROOT))
        for p in python_files("views", "pages") + [ROOT / "app.py"]
        if pattern.search(p.read_text())
    }
    assert not offenders, (
        f"pages computing with numpy/scipy/scikit-learn (move it into the engine): {sorted(offenders)}"
    )


def test_no_module_imports_another_modules_private_names():
    offenders = []
    for path in python_files("engine", "views", "pages"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (
                node.level > 0 or (node.module or "").split(".")[0] in ("engine", "views")
            ):
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                if private:
                    offenders.append(f"{path.relative_to(ROOT)}: {private}")
    assert offenders == [], offenders


# --- numpydoc on the public API -------------------------------------------------------------------------------------

#: the documented public API: each subpackage's and shared module's ``__all__``
PUBLIC_MODULES = (
    "engine.io",
    "engine.pn",
    "engine.setloss",
    "engine.qwyc",
    "engine.backends",
    "engine.cli",
    "engine.monitor",
    "engine.audit",
    "engine.record",
    "engine.reporting",
    "engine.plotting",
    "engine.resources",
    "engine.memory",
    "engine.warmup",
    "engine.errors",
    "engine.constraints",
    "engine.untrusted",
    "engine.sample_builders",
    "engine.pages",
    "engine.presentation",
    "engine.workspace",
    # the modules a package names public beside its front (``__public_modules__``: ``display``, ...)
    *(
        f"{package}.{module}"
        for package in (
            "engine.pn",
            "engine.setloss",
            "engine.qwyc",
            "engine.constraints",
            "engine.audit",
            "engine.monitor",
            "engine.io",
            "engine.backends",
            "engine.workspace",
        )
        for module in getattr(importlib.import_module(package), "__public_modules__", ())
    ),
)
#: subpackages that implement a paper: their entry points re-exported by ``engine`` cite it under "References"
PAPER_PACKAGES = ("engine.pn", "engine.setloss", "engine.qwyc", "engine.constraints")


def numpydoc_section(doc: str | None, title: str) -> str | None:
    """The body of a numpydoc section (``Title`` over a dashed underline), or None when the docstring has none."""
    match = re.search(rf"^{title}\n-{{3,}}\n(.*?)(?=^\S[^\n]*\n-{{3,}}\n|\Z)", doc or "", re.M | re.S)
    return match.group(1) if match else None


def documented_names(section: str) -> set[str]:
    """Names of a Parameters / Attributes section: ``name : type`` or ``a, b : type`` lines, stars dropped."""
    names = set()
    for line in section.splitlines():
        head = re.match(r"^(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s*(?::|$)", line)
        if head and not line.startswith(" "):
            names.update(n.strip().lstrip("*") for n in head.group(1).split(","))
    return names


def parameter_problems(where: str, func, doc: str | None, skip_first: bool = False) -> list[str]:
    """A callable's missing Parameters / Returns sections and undocumented parameters."""
    sig = inspect.signature(func)
    params = list(sig.parameters)[1 if skip_first else 0 :]
    problems = []
    if params:
        section = numpydoc_section(doc, "Parameters")
        if section is None:
            problems.append(f"{where}: no Parameters section")
        else:
            missing = set(params) - documented_names(section)
            if missing:
                problems.append(f"{where}: parameters not documented: {sorted(missing)}")
    if sig.return_annotation not in (None, "None") and numpydoc_section(doc, "Returns") is None:
        problems.append(f"{where}: no Returns section")
    return problems


def class_problems(where: str, cls: type) -> list[str]:
    problems = []
    if dataclasses.is_dataclass(cls):
        fields = {f.name for f in dataclasses.fields(cls) if f.init}
        doc = inspect.getdoc(cls)
        section = numpydoc_section(doc, "Parameters") or numpydoc_section(doc, "Attributes")
        if fields and section is None:
            problems.append(f"{where}: dataclass without a Parameters / Attributes section")
        elif fields - documented_names(section or ""):
            problems.append(f"{where}: fields not documented: {sorted(fields - documented_names(section))}")
    for name, member in vars(cls).items():
        if name.startswith("_") or isinstance(member, property):
            continue
        func = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
        if not inspect.isfunction(func):
            continue
        skip = not isinstance(member, staticmethod)
        if len(inspect.signature(func).parameters) > (1 if skip else 0):
            problems += parameter_problems(f"{where}.{name}", func, inspect.getdoc(func), skip_first=skip)
    return problems


def public_objects():
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            yield f"{module_name}.{name}", getattr(module, name)


def numpydoc_problems(where: str, obj) -> list[str]:
    if inspect.isclass(obj):
        return class_problems(where, obj)
    if inspect.isfunction(obj):
        return parameter_problems(where, obj, inspect.getdoc(obj))
    return []


def test_public_api_has_numpydoc_sections():
    problems = [p for where, obj in public_objects() for p in numpydoc_problems(where, obj)]
    assert not problems, "numpydoc gaps:\n" + "\n".join(problems)


# --- pages and the CLI use the public API only ----------------------------------------------------------------------

#: files that use the engine as its users do: the dashboard's pages and the CLI
ENGINE_USERS = ("pages", "views", "engine/cli")


def engine_user_files() -> list[Path]:
    return python_files(*ENGINE_USERS) + [ROOT / "app.py"]


def engine_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, engine module, names) of every import of the engine in a file, relative imports resolved."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([module] if module else []))
            if module == "engine" or module.startswith("engine."):
                found.append((node.lineno, module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name, []) for a in node.names if a.name.startswith("engine.")]
    return found


def test_pages_and_cli_import_only_public_engine_names():
    """``from engine.<package> import name`` with ``name`` in the package's ``__all__``; never a submodule."""
    offenders = []
    for path in engine_user_files():
        where = path.relative_to(ROOT)
        for line, module, names in engine_imports(path):
            if module.startswith("engine.cli") and path.is_relative_to(ROOT / "engine" / "cli"):
                continue  # the CLI's own modules
            if module not in PUBLIC_MODULES:
                offenders.append(f"{where}:{line}: imports {module} (import from its package's public names)")
                continue
            public = set(importlib.import_module(module).__all__)
            hidden = [n for n in names if n not in public]
            if hidden:
                offenders.append(f"{where}:{line}: {module} does not export {hidden} (add them to its __all__)")
    assert not offenders, "\n".join(offenders)


def test_names_pages_and_cli_import_have_numpydoc_sections():
    problems = []
    for path in engine_user_files():
        for _, module, names in engine_imports(path):
            if module in PUBLIC_MODULES:
                problems += [
                    p
                    for n in names
                    for p in numpydoc_problems(f"{module}.{n}", getattr(importlib.import_module(module), n))
                ]
    assert not problems, "numpydoc gaps in names pages and the CLI use:\n" + "\n".join(sorted(set(problems)))


def test_no_submodule_import_in_pages_or_cli():
    """The before-stop hook's check, in the suite: no ``from engine.<package>.<module> import``."""
    pattern = re.compile(r"^\s*from\s+(engine\.[a-z_]+\.[a-z_]+)\s+import", re.MULTILINE)
    offenders = [
        str(p.relative_to(ROOT))
        for p in engine_user_files()
        if any(m not in PUBLIC_MODULES for m in pattern.findall(p.read_text()))
    ]
    assert not offenders, offenders


# --- pages read like the screen -------------------------------------------------------------------------------------

#: most module-level statements in a page (outside functions and classes; imports and the docstring aside)
MAX_MODULE_LINES = 60


def module_level_lines(path: Path) -> int:
    """Statements at a file's top level (nested ones included) other than imports, definitions and its docstring."""
    body = ast.parse(path.read_text()).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    skipped = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return len(
        {s.lineno for node in body if not isinstance(node, skipped) for s in ast.walk(node) if isinstance(s, ast.stmt)}
    )


def test_pages_have_at_most_60_lines_of_module_level_code():
    counts = {str(p.relative_to(ROOT)): module_level_lines(p) for p in python_files("pages") + [ROOT / "app.py"]}
    long = {k: v for k, v in counts.items() if v > MAX_MODULE_LINES}
    assert not long, (
        f"pages with more than {MAX_MODULE_LINES} lines of module-level code (put them in functions): {long}"
    )


def test_paper_entry_points_cite_their_paper():
    engine = importlib.import_module("engine")
    missing = [
        name
        for name in engine.__all__
        if inspect.isfunction(getattr(engine, name))
        and getattr(engine, name).__module__.rsplit(".", 1)[0] in PAPER_PACKAGES
        and numpydoc_section(inspect.getdoc(getattr(engine, name)), "References") is None
    ]
    assert not missing, f"entry points without a References section: {missing}"


#: the engine's layers, lowest first: a module imports only its own part and parts on lower layers (no upward
#: import, hence no circle between parts); what a command or a page needs is above everything it uses
LAYERS = (
    {"errors", "reporting", "plotting", "presentation", "resources", "memory"},
    {"_arguments"},
    {"pn", "untrusted", "pages", "intervals"},
    {"io", "record"},
    {"constraints", "qwyc", "setloss", "audit", "monitor", "workspace"},
    {"backends", "sample_builders"},
    {"warmup"},
    {"cli"},
)


def _part(dotted: str) -> str | None:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "engine" else None


def _engine_imports(path: Path):
    """(line, engine part) for every import of the engine in ``path``, function-local ones included."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    if path.name == "__init__.py":
        package += ".__init__"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: -node.level]
                names = [".".join(base + ([node.module] if node.module else []))]
                if not node.module:  # "from . import x": x may be a part
                    names = [".".join(base + [a.name]) for a in node.names]
            else:
                names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if _part(name):
                yield node.lineno, _part(name)


def test_engine_parts_import_only_their_own_layer_or_lower_ones():
    layer_of = {part: i for i, layer in enumerate(LAYERS) for part in layer}
    parts = {
        p.stem if p.is_file() else p.name
        for p in (ROOT / "engine").iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.stem != "__init__"
    }
    assert parts == set(layer_of), f"give every engine part a layer: {sorted(parts ^ set(layer_of))}"
    upward = []
    for path in python_files("engine"):
        own = path.relative_to(ROOT / "engine").parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        for line, part in _engine_imports(path):
            if part != own and layer_of.get(part, -1) >= layer_of[own]:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports engine.{part}")
    assert upward == []


def test_pages_views_and_the_cli_import_engine_packages_by_their_front():
    # what a page or a command needs is in its package's __all__ (presentation included: the package re-exports what
    # its public modules define), never reached for in a submodule, public or private
    packages = {p.parent.name for p in (ROOT / "engine").glob("*/__init__.py")} - {"cli"}
    offenders = []
    for path in python_files("pages", "views") + python_files("engine/cli") + [ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            parts = node.module.split(".")
            absolute = node.level == 0 and parts[0] == "engine" and len(parts) > 2 and parts[1] in packages
            relative = node.level == 2 and len(parts) > 1 and parts[0] in packages  # engine/cli: from ..audit.x
            if absolute or relative:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.module}")
    assert offenders == [], offenders
