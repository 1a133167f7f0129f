"""The package claims CPython 3.10 and later (pyproject.toml's requires-python, and the wheel is
py3-none), and no registry here serves a 3.10 to run it with. So every file of the package is
checked as 3.10 would meet it, without running it:

- its grammar: `ast.parse(..., feature_version=(3, 10))` rejects what the parser gates by version
  (`except*` and the rest of 3.11's, 3.12's type parameters and `type` statements); f-strings
  of 3.12's grammar fail to parse at all under this machine's 3.11;
- its standard library: no module, function, class or constant that "What's New in Python"
  3.11 – 3.14 lists as added (NEWER_THAN_3_10 below), imported or reached as an attribute of
  an imported module. Methods of classes (`pathlib.Path.walk`) and new parameters of old
  functions are not checked: a name alone cannot tell them.
"""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "python" / "hardsigmoid_ops"

# Whole modules added after 3.10, and names added to older modules, as "What's New" lists them.
NEW_MODULES = {"tomllib": "3.11", "wsgiref.types": "3.11", "importlib.resources.abc": "3.11",
               "annotationlib": "3.14", "compression": "3.14", "string.templatelib": "3.14",
               "concurrent.interpreters": "3.14"}
NEWER_THAN_3_10 = {
    "typing": {"Self": "3.11", "LiteralString": "3.11", "Never": "3.11", "assert_never": "3.11",
               "assert_type": "3.11", "reveal_type": "3.11", "Required": "3.11",
               "NotRequired": "3.11", "TypeVarTuple": "3.11", "Unpack": "3.11",
               "dataclass_transform": "3.11", "get_overloads": "3.11",
               "clear_overloads": "3.11", "override": "3.12", "TypeAliasType": "3.12",
               "ReadOnly": "3.13", "TypeIs": "3.13", "NoDefault": "3.13",
               "get_protocol_members": "3.13", "is_protocol": "3.13",
               "evaluate_forward_ref": "3.14"},
    "enum": {"StrEnum": "3.11", "ReprEnum": "3.11", "EnumCheck": "3.11",
             "FlagBoundary": "3.11", "verify": "3.11", "member": "3.11", "nonmember": "3.11",
             "global_enum": "3.11", "show_flag_values": "3.11", "EnumDict": "3.13"},
    "datetime": {"UTC": "3.11"},
    "asyncio": {"TaskGroup": "3.11", "timeout": "3.11", "timeout_at": "3.11", "Runner": "3.11",
                "Barrier": "3.11", "eager_task_factory": "3.12", "QueueShutDown": "3.13"},
    "contextlib": {"chdir": "3.11"},
    "hashlib": {"file_digest": "3.11"},
    "math": {"cbrt": "3.11", "exp2": "3.11", "sumprod": "3.12", "fma": "3.13"},
    "operator": {"call": "3.11"},
    "re": {"NOFLAG": "3.11", "PatternError": "3.13"},
    "logging": {"getLevelNamesMapping": "3.11", "getHandlerByName": "3.12",
                "getHandlerNames": "3.12"},
    "sys": {"exception": "3.11", "activate_stack_trampoline": "3.12", "monitoring": "3.12",
            "_is_gil_enabled": "3.13", "_is_interned": "3.13"},
    "itertools": {"batched": "3.12"},
    "types": {"get_original_bases": "3.12"},
    "collections.abc": {"Buffer": "3.12"},
    "inspect": {"markcoroutinefunction": "3.12", "BufferFlags": "3.12"},
    "threading": {"setprofile_all_threads": "3.12", "settrace_all_threads": "3.12"},
    "os": {"process_cpu_count": "3.13"},
    "warnings": {"deprecated": "3.13"},
    "copy": {"replace": "3.13"},
    "functools": {"Placeholder": "3.14"},
}


def newer_than_3_10(source, name="<source>"):
    """What `source` needs of a Python newer than 3.10: ["line N: what (version)"]; a grammar it
    cannot parse as 3.10 raises SyntaxError."""
    tree = ast.parse(source, name, feature_version=(3, 10))
    found = []
    modules = {}  # a local name -> the standard-library module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in NEW_MODULES:
                    found.append(f"line {node.lineno}: module {alias.name} "
                                 f"({NEW_MODULES[alias.name]})")
                # `import a.b` binds `a`; `import a.b as c` binds c to a.b.
                bound = alias.asname or alias.name.split(".")[0]
                modules[bound] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module in NEW_MODULES:
                found.append(f"line {node.lineno}: module {node.module} "
                             f"({NEW_MODULES[node.module]})")
            for alias in node.names:
                qualified = f"{node.module}.{alias.name}"
                added = NEWER_THAN_3_10.get(node.module, {}).get(alias.name)
                if qualified in NEW_MODULES:
                    added = NEW_MODULES[qualified]
                if added:
                    found.append(f"line {node.lineno}: {qualified} ({added})")
                modules[alias.asname or alias.name] = qualified
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            # a.b.c as ("a", "b", "c") where the chain starts at a name.
            parts = [node.attr]
            value = node.value
            while isinstance(value, ast.Attribute):
                parts.insert(0, value.attr)
                value = value.value
            if not isinstance(value, ast.Name) or value.id not in modules:
                continue
            module = modules[value.id]
            for attribute in parts:
                added = NEWER_THAN_3_10.get(module, {}).get(attribute)
                if f"{module}.{attribute}" in NEW_MODULES:
                    added = NEW_MODULES[f"{module}.{attribute}"]
                if added:
                    found.append(f"line {node.lineno}: {module}.{attribute} ({added})")
                    break
                module = f"{module}.{attribute}"
    return sorted(set(found))


FILES = sorted(PACKAGE.rglob("*.py"))


def test_the_package_has_files_to_check():
    assert len(FILES) >= 10, FILES


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_parses_as_3_10_and_uses_no_newer_standard_library(path):
    assert newer_than_3_10(path.read_text(), str(path)) == []


@pytest.mark.parametrize("source, expected", [
    ("import tomllib\n", "module tomllib (3.11)"),
    ("from typing import Self\n", "typing.Self (3.11)"),
    ("import typing as t\nx: t.Never\n", "typing.Never (3.11)"),
    ("import sys\nsys._is_gil_enabled()\n", "sys._is_gil_enabled (3.13)"),
    ("import collections.abc\ncollections.abc.Buffer\n", "collections.abc.Buffer (3.12)"),
    ("from itertools import batched as b\n", "itertools.batched (3.12)"),
    ("import enum\nclass E(enum.StrEnum):\n    A = 'a'\n", "enum.StrEnum (3.11)"),
])
def test_the_check_finds_a_newer_name(source, expected):
    assert [f for f in newer_than_3_10(source) if f.endswith(expected)], newer_than_3_10(source)


@pytest.mark.parametrize("source", [
    "try:\n    pass\nexcept* ValueError:\n    pass\n",   # 3.11
    "def f[T](x: T) -> T:\n    return x\n",                  # 3.12
    "type Alias = int\n",                                   # 3.12
])
def test_the_check_refuses_a_newer_grammar(source):
    with pytest.raises(SyntaxError):
        newer_than_3_10(source)


def test_the_check_passes_what_3_10_has():
    source = ("import typing, sys, enum\nfrom typing import TypeAlias, ParamSpec\n"
              "match sys.argv:\n    case [_]:\n        pass\n"
              "x: typing.Optional[int] = None\nsys.version_info\nenum.Enum\n")
    assert newer_than_3_10(source) == []
