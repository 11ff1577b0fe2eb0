"""Runs every Python example (python/examples/*.py) with this interpreter; fails if any fails.

    python python/examples/run_all.py [--pythonpath DIR]

--pythonpath puts DIR first on the examples' PYTHONPATH (a build folder's python/ when ufunc is not
installed). mandelbrot.py writes its image into a temporary folder, removed afterwards.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pythonpath", help="a folder to put first on PYTHONPATH (where the ufunc package is)")
    args = parser.parse_args()

    env = dict(os.environ)
    # The examples run in a scratch folder: relative entries of PYTHONPATH would point elsewhere there.
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    if args.pythonpath:
        paths = [os.path.abspath(args.pythonpath)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
        env["PYTHONPATH"] = os.pathsep.join(paths)

    examples = sorted(f for f in os.listdir(HERE) if f.endswith(".py") and f != os.path.basename(__file__))
    failed = []
    with tempfile.TemporaryDirectory(prefix="ufunc-examples-") as scratch:
        for name in examples:
            command = [sys.executable, os.path.join(HERE, name)]
            if name == "mandelbrot.py":
                command.append(os.path.join(scratch, "mandelbrot.pgm"))
            print(f"=== {name}", flush=True)
            start = time.perf_counter()
            rc = subprocess.run(command, env=env, cwd=scratch).returncode
            seconds = time.perf_counter() - start
            print(f"=== {name}: {'ok' if rc == 0 else f'FAILED (exit status {rc})'} in {seconds:.1f} s", flush=True)
            if rc != 0:
                failed.append(name)
    if failed:
        print(f"{len(failed)} of {len(examples)} Python examples failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"all {len(examples)} Python examples passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
