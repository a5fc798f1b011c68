"""Runs the snippet of every known_findings/<name>/issue.md with this Python.

A snippet is what a maintainer reads first, so it must show the bug: run
with the torch of the LibTorch under test, it fails (an assertion, an
exception or a signal) on every release where the bug shows and exits 0
where it does not. Where the bug shows follows from the folder's found_in
and fixed_in files (known_findings/README.md), as for dpfuzz replay.

    issue_snippets_test.py KNOWN_FINDINGS_DIR

Exits 77 (skipped) when this Python has no torch.
"""

import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print(f"SKIP: {sys.executable} has no torch")
    sys.exit(77)

SNIPPET = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def release(text):
    """(1, 13, 0) of "1.13.0a0+git..." or "2.11.0"."""
    return tuple(int(re.match(r"\d+", part).group()) for part in text.split(".")[:3])


UNDER_TEST = release(torch.__version__)


def read_release(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return release(f.read().strip())


def shows_here(folder):
    found_in = read_release(folder, "found_in")
    fixed_in = read_release(folder, "fixed_in")
    return (found_in is None or UNDER_TEST >= found_in) and (
        fixed_in is None or UNDER_TEST < fixed_in)


def check(folder):
    """A failure message, or None when the snippet behaves."""
    name = os.path.basename(folder)
    with open(os.path.join(folder, "issue.md")) as f:
        found = SNIPPET.search(f.read())
    if found is None:
        return f"{name}: issue.md has no ```python snippet"
    with tempfile.NamedTemporaryFile("w", suffix=".py") as script:
        script.write(found.group(1))
        script.flush()
        try:
            run = subprocess.run([sys.executable, script.name], capture_output=True,
                                 text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return f"{name}: the snippet ran past 300 s"
    shows = shows_here(folder)
    failed = run.returncode != 0
    print(f"{name}: exit {run.returncode} ({'shows' if failed else 'agrees'}; "
          f"expected to {'show' if shows else 'agree'})")
    if failed == shows:
        return None
    return (f"{name}: on torch {torch.__version__} the snippet should "
            f"{'fail' if shows else 'exit 0'}, but it exited {run.returncode}:\n"
            f"{run.stdout[-2000:]}{run.stderr[-2000:]}")


def main():
    root = sys.argv[1]
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if os.path.isdir(os.path.join(root, d)))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        failures = [m for m in pool.map(check, folders) if m is not None]
    for message in failures:
        print("FAIL: " + message)
    print(f"{len(folders) - len(failures)} of {len(folders)} snippets behave "
          f"on torch {torch.__version__}")
    return 1 if failures or not folders else 0


if __name__ == "__main__":
    sys.exit(main())
