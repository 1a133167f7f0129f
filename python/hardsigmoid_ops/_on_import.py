"""Running code once a module has been imported, without importing it: torch's compile machinery
(torch._dynamo, inductor) takes seconds to import, and the package registers with it only once a
program uses it.

when_imported(name, callback) runs callback(module) exactly once, and only after the module's code
has run, whichever thread imports it and whenever the callback is asked for:

- the module already imported: at once, in the asking thread, before when_imported returns;
- not yet imported, or being imported (by any thread, its code half run): in the importing thread,
  at the end of the import, before the import returns there or in any thread waiting on it. A
  module that is mid-import never reaches a callback.

How the end of an import is seen: Python's import marks a module as being imported with its spec's
`_initializing` flag, set before the module enters sys.modules and cleared as the very last step,
after its code has run (importlib._bootstrap._load_unlocked; import.c reads the same flag to make
other threads wait for the module). A watched module's spec is given a class of its own
(_WatchedSpec, ModuleSpec's subclass) whose clearing of that flag runs the callbacks first: given
by the package's finder when the module is found, or, for a module found before it was watched,
to the spec of the module mid-import in sys.modules. A failed import (the module not left in
sys.modules) runs none: they wait for the next attempt.

The finder goes first in sys.meta_path once, when this module is imported, and is never taken out:
taking an entry out of the list shifts it under an import that another thread is walking it for,
which then skips a finder (and fails to find a module that exists). It answers only for watched
names, and reads them without a lock (the import system calls finders holding its global import
lock, which a thread holding the package's lock must never wait for).

Two windows are left, and named. An import that had found its module before the package watched
it and has not yet put it in sys.modules (microseconds: the module object's creation) when the
callback is asked: the package watches its modules when it is imported (watch()), so only an import
begun before `import hardsigmoid_ops` can be in it. And, in a free-threaded build, the class given
to a mid-import module's spec while the importing thread is inside the store that clears the flag
(its class looked up, its value not yet stored): there the change of class stops the world, and
the store can be paused inside only where it waits for a lock on the spec (not run: no
free-threaded Python was at hand). A callback missed either way runs when it is next asked for.

A callback that raises at the end of an import is reported as a RuntimeWarning (the import itself
has completed); one run at once raises to the asker.

`name` is a module or a regular package: a namespace package (no __init__.py) runs no code of its
own to follow. The package's rule for shared state covers this module's: it is changed holding
_state.LOCK, and the callbacks run holding it.
"""

import importlib.abc
import importlib.machinery
import sys
import warnings

from ._state import LOCK

_watched = set()  # names whose specs the finder marks (added to only)
_pending = {}  # name -> [callback, ...] asked for and not yet run
_done = set()  # (name, callback) that have run


class _WatchedSpec(importlib.machinery.ModuleSpec):
    """A watched module's spec: clearing `_initializing` (the import's last step) runs the
    module's pending callbacks first, then gives the spec back its own class."""

    @property
    def _initializing(self):
        return self.__dict__.get("_initializing", False)

    @_initializing.setter
    def _initializing(self, value):
        if value:
            self.__dict__["_initializing"] = True
        else:
            _import_ended(self)


def _import_ended(spec):
    """Runs the module's pending callbacks (those asked while they run too) if the import left it
    in sys.modules (a failed import removes it; a module may have put another object in its
    place), then marks the import done. A callback's error is a warning here: raised from the
    import system's last step it would fail an import that has completed, leaving the module in
    sys.modules but not on its parent package."""
    with LOCK:
        try:
            module = sys.modules.get(spec.name)
            while module is not None and _pending.get(spec.name):
                callback = _pending[spec.name].pop(0)
                _done.add((spec.name, callback))
                try:
                    callback(module)
                except Exception as error:  # noqa: BLE001 -- reported
                    warnings.warn(f"hardsigmoid_ops: registering with {spec.name} failed "
                                  f"({callback.__qualname__}): {error!r}", RuntimeWarning,
                                  stacklevel=2)
            if module is not None:
                _pending.pop(spec.name, None)
        finally:
            spec.__dict__["_initializing"] = False
            spec.__class__ = importlib.machinery.ModuleSpec


def watch(name):
    """Marks `name` for the finder from now on, before any callback is asked for it, so that an
    import of it begun in the meantime is seen to its end."""
    _watched.add(name)


def imported(name):
    """The module if its import has completed, else None (not imported, or mid-import)."""
    module = sys.modules.get(name)
    if module is None or getattr(getattr(module, "__spec__", None), "_initializing", False):
        return None
    return module


def when_imported(name, callback):
    """callback(module) once `name`'s import has completed: at once if it has, else at its end.
    Exactly once per (name, callback): asking again, before or after, does nothing more."""
    with LOCK:
        if (name, callback) in _done:
            return
        watch(name)
        module = imported(name)
        if module is not None:
            # A callback still pending here was asked for during an import that never cleared its
            # flag (a loader of another kind, importlib.util's find_spec and exec_module by hand):
            # it runs now.
            if callback in _pending.get(name, ()):
                _pending[name].remove(callback)
            _done.add((name, callback))
            callback(module)
            return
        if callback in _pending.get(name, ()):
            return
        _pending.setdefault(name, []).append(callback)
        spec = getattr(sys.modules.get(name), "__spec__", None)
        if type(spec) is importlib.machinery.ModuleSpec:
            # Mid-import, found before it was watched: its spec gets the class that calls back.
            # If the import ended just before, no one will clear the flag again: end it here.
            spec.__class__ = _WatchedSpec
            if not spec.__dict__.get("_initializing", False):
                _import_ended(spec)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds a watched module as the other finders do, and marks its spec."""

    def find_spec(self, name, path, target=None):
        # An imported module asked for again (importlib.reload, importlib.util.find_spec) has had
        # its callbacks: its spec is left as it is.
        if name not in _watched or name in sys.modules:
            return None
        for finder in list(sys.meta_path):
            find_spec = getattr(finder, "find_spec", None)
            if isinstance(finder, _Finder) or find_spec is None:
                continue
            spec = find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        # Only a plain spec with a loader: a namespace package runs no code; another class of spec
        # is its finder's own business.
        if type(spec) is importlib.machinery.ModuleSpec and spec.loader is not None:
            spec.__class__ = _WatchedSpec
        return spec


sys.meta_path.insert(0, _Finder())
