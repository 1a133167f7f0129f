"""Running code once a module has been imported, without importing it: torch's compile machinery
(torch._dynamo, inductor) takes seconds to import, and the package registers with it only once a
program uses it."""

import importlib.abc
import sys


def when_imported(name, callback):
    """callback(module) now if `name` is imported, else right after its import has run. Asking
    again for the same pair before then does nothing more. `name` is a module or a regular
    package: a namespace package (no __init__.py) runs no code of its own to follow."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
    elif not any(isinstance(f, _AfterImport) and f.name == name and f.callback is callback
                 for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, callback))


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds the module as the other finders do, and calls back once its code has run."""

    def __init__(self, name, callback):
        self.name, self.callback = name, callback

    def find_spec(self, name, path, target=None):
        if name != self.name:
            return None
        for finder in sys.meta_path:
            if isinstance(finder, _AfterImport) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None:  # a namespace package: nothing to wrap
            return spec
        loader_exec = spec.loader.exec_module
        callbacks = [f.callback for f in sys.meta_path
                     if isinstance(f, _AfterImport) and f.name == name]

        def exec_module(module):
            loader_exec(module)
            for callback in callbacks:
                callback(module)

        spec.loader.exec_module = exec_module
        sys.meta_path[:] = [f for f in sys.meta_path
                            if not (isinstance(f, _AfterImport) and f.name == name)]
        return spec
