#!/usr/bin/env python3
"""What making a permuted tensor contiguous costs, against a plain copy.

The data-path bug study behind dpfuzz measured layout conversion: a
permuted five-dimensional tensor took up to 53 s to make contiguous. Its
fix for most non-contiguity bugs is that copy, so its price is what a
layout costs an op that pays it, and the floor a performance oracle
compares a slow strided path against.

For each rank from 2 to 5, a float32 tensor of about ELEMENTS elements
(sides as equal as the rank allows) is permuted by every order of its dims
but the identity, and `.contiguous()` of each is timed (the minimum of
REPEATS runs after a warm-up) against `.clone()` of the contiguous tensor,
which moves the same bytes in order. Prints one line per rank: the median
and worst ratio over its permutations, and the worst permutation; with
--all, one line per permutation.

  /usr/bin/python3 bench/contiguous_cost.py [--elements=33554432]
      [--repeats=3] [--threads=N] [--all]

Run it with the Python whose torch matches the track measured:
/usr/bin/python3 (Debian's python3-torch 1.13.1) or
.cache/venv-torch/bin/python (torch 2.15).
"""

import argparse
import itertools
import statistics
import time

import torch


def best_time(fn, repeats):
    fn()  # Warm-up: the allocator's first request of this size.
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def sides(elements, rank):
    side = max(2, round(elements ** (1.0 / rank)))
    # Unequal sides, so that each permutation is another walk of memory.
    return [side + d for d in range(rank)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--elements", type=int, default=1 << 25)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch threads (0: torch's default)")
    parser.add_argument("--all", action="store_true",
                        help="print every permutation")
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    print("torch %s, %d thread(s), about %d float32 elements (%.0f MiB)"
          % (torch.__version__, torch.get_num_threads(), args.elements,
             args.elements * 4 / 2**20))
    for rank in range(2, 6):
        shape = sides(args.elements, rank)
        base = torch.rand(shape)
        copy = best_time(lambda: base.clone(), args.repeats)
        ratios = []
        for perm in itertools.permutations(range(rank)):
            if list(perm) == list(range(rank)):
                continue
            view = base.permute(perm)
            t = best_time(lambda: view.contiguous(), args.repeats)
            ratios.append((t / copy, perm, t))
            if args.all:
                print("  rank=%d shape=%s perm=%s seconds=%.4f ratio=%.2f"
                      % (rank, shape, list(perm), t, t / copy))
        worst = max(ratios)
        print("rank=%d shape=%s copy_seconds=%.4f permutations=%d "
              "median_ratio=%.2f worst_ratio=%.2f worst_perm=%s "
              "worst_seconds=%.4f"
              % (rank, shape, copy, len(ratios),
                 statistics.median(r for r, _, _ in ratios), worst[0],
                 list(worst[1]), worst[2]))


if __name__ == "__main__":
    main()
