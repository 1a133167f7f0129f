"""The package's part of torch.compiler.config.cache_key_tag, seen by every thread.

torch keys its compiled-graph caches on disk with that tag (inductor's FX graph and AOTAutograd
caches read it at each compile). torch 2.11 keeps a value set through the config module for the
whole process; newer releases (2.15 seen) keep it per thread (a ContextVar: a value set in one
thread is not seen in another, nor in a thread started later), so a tag written only where the
library was loaded would be missing from graphs compiled on any other thread. Where the value is
per thread, the part is also written into the level under it that every thread reads: the
TORCH_COMPILE_CACHE_KEY_TAG value read at torch's import, else the default. A tag the user set
stays in front of the part: in the process-wide level, and in the calling thread's own value
where it has one; a thread whose own value the user set elsewhere keeps it as set.

Called holding the package's lock (compile_fusion.py): the part always names the switch's last
state.
"""

import contextvars

import torch
import torch.utils._config_module as _config_module

_ENTRY = "cache_key_tag"


def _with_part(tag, prefix, part):
    kept = [p for p in tag.split("|") if p and not p.startswith(prefix)]
    return "|".join([*kept, part])


def _per_thread_entry(config):
    """The config entry of the tag where torch keeps values per thread (else None), read
    defensively: its layout is torch's own (torch.utils._config_module)."""
    entry = getattr(config, "_config", {}).get(_ENTRY)
    if isinstance(getattr(entry, "user_override", None), contextvars.ContextVar):
        return entry
    return None


def write(prefix, part):
    """Puts `part` (starting with `prefix`) in the tag in place of any earlier part of ours."""
    config = torch.compiler.config
    entry = _per_thread_entry(config)
    if entry is None:  # one value for the process
        config.cache_key_tag = _with_part(config.cache_key_tag, prefix, part)
        return
    unset = getattr(_config_module, "_UNSET_SENTINEL", None)
    if entry.env_value_default is not unset:
        entry.env_value_default = _with_part(entry.env_value_default, prefix, part)
    else:
        entry.default = _with_part(entry.default, prefix, part)
    if entry.user_override.get() is not unset:  # this thread's own value
        config.cache_key_tag = _with_part(config.cache_key_tag, prefix, part)
