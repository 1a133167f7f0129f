"""The package's one lock: every change the package makes to state shared across threads is made
holding it (the rule, and the list of that state, are in the package's docstring).

Re-entrant: a registration made under it may run an on-import callback at once, which takes it
again. Code holding it imports no module that is not imported yet, or that another thread is
importing (every module the package's own code needs is imported before the lock is taken): a
thread importing a module holds that module's import lock and, in an on-import callback, waits for
this one; a thread holding this one must never wait for an import lock in turn. Importing a module
already imported, or one this thread is importing, waits for nothing."""

import os
import threading

LOCK = threading.RLock()
# A process forked while another thread holds the lock would hold it forever in the child (the
# other thread does not exist there), and the child's next import of a watched module would wait
# for it at the import's end. The child starts with the lock free, as threading's own locks do.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=LOCK._at_fork_reinit)
