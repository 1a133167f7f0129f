"""The package's one lock: every change the package makes to state shared across threads is made
holding it (the rule, and the list of that state, are in the package's docstring).

Re-entrant: a registration made under it may run an on-import callback at once, which takes it
again. Code holding it imports nothing (every module it needs is imported before it is taken): a
thread importing a module holds that module's import lock and, in an on-import callback, waits for
this one; a thread holding this one must never wait for an import lock in turn."""

import threading

LOCK = threading.RLock()
