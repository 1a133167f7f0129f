"""Run as a program by test_package_threads.py, in a fresh Python: THREADS threads released at once
by a barrier each make the package ready (`import hardsigmoid_ops`, or with `load`
`hardsigmoid_ops.load_library(LIBRARY)` after an import that found no library, the library's
dlopen pausing to let the other threads run), then call every
op through every entry point on inputs shared by all threads and on inputs of their own, and
compare each result's bits with aten's, computed before the threads start. Prints one JSON object:
threads, calls, mismatches, errors, and whether the GIL was enabled each time it was asked
(sys._is_gil_enabled(), at the start, after torch's import, in each thread after the package was
ready and after each round, and at the end), with whether this is a free-threaded build.

    python -m hardsigmoid_testing.package_threads import|load LIBRARY SEED ROUNDS
"""

import json
import sys
import sysconfig
import threading
import traceback

GIL_SEEN = []


def gil_enabled():
    # A Python without the free-threaded build has no _is_gil_enabled: its GIL is always on.
    enabled = getattr(sys, "_is_gil_enabled", lambda: True)()
    GIL_SEEN.append(enabled)


gil_enabled()

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from hardsigmoid_testing.values import BITS_DTYPE, random_values  # noqa: E402

gil_enabled()
THREADS = 8
DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
# One of the sizes past aten's grain (32768), so that intra-op threads split it as well.
SIZES = (40_003, 257)


def operands(gen, tag):
    """(name, input, grad_output) for each dtype and size, drawn with the edge values mixed in."""
    return [(f"{tag} {dtype} {n}", random_values(n, dtype, gen), random_values(n, dtype, gen))
            for dtype in DTYPES for n in SIZES]


def aten_results(x, grad):
    """aten's forward, backward op and autograd gradient for (x, grad)."""
    leaf = x.clone().requires_grad_()
    F.hardsigmoid(leaf).backward(grad)
    return {"forward": F.hardsigmoid(x), "backward": torch.ops.aten.hardsigmoid_backward(grad, x),
            "autograd": leaf.grad}


def entry_points(hs, x, grad):
    """(entry point, which aten result it must equal, its result) for every way to call the ops."""
    inplace = x.clone()
    out = torch.empty_like(x)
    leaf = x.clone().requires_grad_()
    hs.hardsigmoid(leaf).backward(grad)
    module_leaf = x.clone().requires_grad_()
    hs.nn.Hardsigmoid()(module_leaf).backward(grad)
    return [
        ("functional", "forward", hs.hardsigmoid(x)),
        ("functional inplace", "forward", hs.hardsigmoid(inplace, inplace=True)),
        ("out", "forward", hs.hardsigmoid_out(x, out)),
        ("backward", "backward", hs.hardsigmoid_backward(grad, x)),
        ("torch.ops", "forward", torch.ops.hardsigmoid_ops.hardsigmoid(x)),
        ("torch.ops backward", "backward", torch.ops.hardsigmoid_ops.hardsigmoid_backward(grad, x)),
        ("nn.Hardsigmoid", "forward", hs.nn.Hardsigmoid()(x)),
        ("autograd", "autograd", leaf.grad),
        ("nn.Hardsigmoid autograd", "autograd", module_leaf.grad),
    ]


def hs_module():
    import hardsigmoid_ops

    return hardsigmoid_ops


def same_bits(a, b):
    bits = BITS_DTYPE[b.dtype]
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.view(bits), b.view(bits))


def dlopen_that_lets_others_run():
    """ctypes.CDLL, which torch.ops.load_library calls, made to pause after loading the library
    (a sleep releases the GIL): the other threads run while its registrations are done and torch
    has not yet recorded it as loaded, as they do in a free-threaded build at any moment."""
    import ctypes
    import time

    real = ctypes.CDLL

    class PausingCDLL(real):
        def __init__(self, name, *args, **kwargs):
            super().__init__(name, *args, **kwargs)
            if str(name).endswith("libhardsigmoid_ops.so"):
                PAUSED_LOADS.append(name)
                time.sleep(0.05)

    ctypes.CDLL = PausingCDLL


PAUSED_LOADS = []


def main():
    mode, library, seed, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    registered_before = hasattr(torch.ops.hardsigmoid_ops, "hardsigmoid")
    if mode == "load":
        dlopen_that_lets_others_run()
    gen = torch.Generator().manual_seed(seed)
    shared = operands(gen, "shared")
    own = [operands(gen, f"thread {i}") for i in range(THREADS)]
    expected = {name: aten_results(x, grad) for name, x, grad in shared}
    expected.update({name: aten_results(x, grad) for ops in own for name, x, grad in ops})
    barrier = threading.Barrier(THREADS, timeout=300)
    lock = threading.Lock()
    calls, mismatches, errors = [0], [], []

    def worker(i):
        try:
            barrier.wait()
            import hardsigmoid_ops as hs
            if mode == "load":
                hs.load_library(library)
            gil_enabled()
            for _ in range(rounds):
                for name, x, grad in shared + own[i]:
                    for entry, kind, result in entry_points(hs, x, grad):
                        with lock:
                            calls[0] += 1
                        if not same_bits(result, expected[name][kind]):
                            with lock:
                                mismatches.append(f"thread {i}: {entry} on {name}")
                gil_enabled()
        except Exception:  # noqa: BLE001 -- reported, and the test fails on it
            with lock:
                errors.append(f"thread {i}: {traceback.format_exc()}")

    # Where a GIL is held, it passes between threads every microsecond instead of every 5 ms, so
    # that the interleavings of the package's own Python code that a free-threaded build runs
    # (a check in one thread, the act it guards in another) come up here too.
    sys.setswitchinterval(1e-6)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    gil_enabled()
    print(json.dumps({
        "threads": THREADS, "operands_per_thread": len(shared) + len(own[0]),
        "entry_points": len(entry_points(hs_module(), *shared[0][1:])), "rounds": rounds,
        "calls": calls[0], "mismatches": mismatches, "errors": errors,
        "registered_before_the_threads": registered_before, "paused_loads": len(PAUSED_LOADS),
        "gil_enabled_seen": sorted(set(GIL_SEEN)), "gil_checks": len(GIL_SEEN),
        "free_threaded_build": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "python": sys.version.split()[0], "torch": torch.__version__,
    }))


if __name__ == "__main__":
    main()
