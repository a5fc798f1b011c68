#!/usr/bin/env python3
"""Writes the seed corpus (generators/seed_corpus.h) as libFuzzer inputs.

Each recorded call (one line of DIR/<op>.<overload>.jsonl) becomes one input
file in the case form of oracles/case_bytes.h: the case file text itself. At
most PER_OP calls of each overload are kept (the first ones: the recorder
writes the simplest samples first), so that the corpus stays small enough
for libFuzzer to run all of it before it mutates.

    scripts/encode_seeds.py SEEDS_DIR OUT_DIR [PER_OP]
"""
import json
import pathlib
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    seeds, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    per_op = int(sys.argv[3]) if len(sys.argv) == 4 else 4
    files = sorted(seeds.glob("*.jsonl"))
    if not files:
        sys.exit(f"encode_seeds.py: no *.jsonl seed files in {seeds}")
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for path in files:
        with path.open() as lines:
            for i, line in enumerate(lines):
                if i == per_op:
                    break
                case = json.loads(line)  # A malformed line stops the build.
                text = json.dumps(case, sort_keys=True, indent=1) + "\n"
                (out / f"{path.stem}-{i}.json").write_text(text)
                written += 1
    print(f"encode_seeds.py: {written} inputs from {len(files)} overloads in {out}")


if __name__ == "__main__":
    main()
