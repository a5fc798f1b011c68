#!/usr/bin/env python3
"""The plain Python/torch loop a user would write instead of dpfuzz.

For each case it draws a logical shape (rank 0-4, sizes mostly 2-5 with 0
and 1 often, as dpfuzz's generators/layout_generator.h does), lays each
tensor argument out over a storage poisoned with NaN (or an odd sentinel
for integers) in its gaps: a random dim order (permutation), a step per dim
(slicing with gaps) and a storage offset. It calls the op on contiguous
copies and on the strided tensors and compares the results (torch.equal for
the exact ops, torch.allclose for sum), counting mismatches. One dtype
(float32), functional calls only, no out=, no gradients: less than a dpfuzz
case checks, which keeps the comparison fair to the loop.

Run it with the Python whose torch matches the LibTorch dpfuzz was built
against: /usr/bin/python3 (Debian's python3-torch 1.13.1) for the default
build, .cache/venv-torch/bin/python (scripts/setup_modern.sh, torch 2.15)
for the modern one. Prints one line per op:

  python_loop masked_select cases=... seconds=... cases_per_s=... mismatches=0

  /usr/bin/python3 bench/python_loop.py [--seconds=10] [--ops=add,sum]
"""

import argparse
import math
import random
import time

import torch

OPS = ("masked_select", "add", "sum", "index_select")


def draw_sizes(rng):
    sizes = []
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        sizes.append(0 if r < 0.05 else 1 if r < 0.2 else rng.randint(2, 5))
    return sizes


def strided(values, rng):
    """`values` laid out by a random permutation, steps and offset over a
    storage poisoned in its gaps."""
    dim = values.dim()
    order = list(range(dim))
    rng.shuffle(order)
    steps = [rng.randint(1, 3) for _ in range(dim)]
    offset = rng.randint(0, 7) if rng.random() < 0.5 else 0
    # The storage in `order` (outermost first), each dim `step` times wider.
    physical = [values.shape[d] * steps[d] for d in order]
    poison = math.nan if values.is_floating_point() else -77
    storage = torch.full((offset + math.prod(physical),), poison,
                         dtype=values.dtype)
    view = storage[offset:].view(physical)
    view = view[tuple(slice(None, None, steps[d]) for d in order)]
    # Back to logical dim order.
    view = view.permute([order.index(d) for d in range(dim)])
    view.copy_(values)
    return view


def exact_values(sizes, rng, dtype=torch.float32):
    gen = torch.Generator().manual_seed(rng.getrandbits(31))
    return torch.randint(-8, 9, sizes, generator=gen).to(dtype)


def case(op, rng):
    """One case: (result on contiguous arguments, on strided ones, exact)."""
    sizes = draw_sizes(rng)
    x = exact_values(sizes, rng)
    sx = strided(x, rng)
    if op == "masked_select":
        mask = exact_values(sizes, rng) > 0
        return (torch.masked_select(x, mask),
                torch.masked_select(sx, strided(mask, rng)), True)
    if op == "add":
        y = exact_values(sizes, rng)
        return torch.add(x, y), torch.add(sx, strided(y, rng)), True
    if op == "sum":
        return torch.sum(x), torch.sum(sx), False
    if op == "index_select":
        if not sizes:
            sizes = [rng.randint(1, 5)]
            x = exact_values(sizes, rng)
            sx = strided(x, rng)
        d = rng.randrange(len(sizes))
        n = rng.randint(0, 5)
        high = max(sizes[d], 1)
        index = torch.randint(0, high, (n,)) if sizes[d] else torch.zeros(
            (0,), dtype=torch.long)
        return (torch.index_select(x, d, index),
                torch.index_select(sx, d, strided(index, rng)), True)
    raise ValueError(op)


def run(op, seconds, seed):
    rng = random.Random(seed)
    cases = mismatches = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(100):
            expected, actual, exact = case(op, rng)
            same = (torch.equal(expected, actual) if exact else
                    torch.allclose(expected, actual, equal_nan=True))
            mismatches += not same
            cases += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    print(f"python_loop {op} cases={cases} seconds={elapsed:.2f} "
          f"cases_per_s={cases / elapsed:.0f} mismatches={mismatches}",
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)  # As a dpfuzz worker runs: one thread.
    for op in args.ops.split(","):
        run(op, args.seconds, args.seed)


if __name__ == "__main__":
    main()
