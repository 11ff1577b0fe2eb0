#!/usr/bin/env bash
# Rewrites the README's ufunc inventory from the registry of a build:
#   bash ufuncs/tools/update_readme.sh [build dir]     (default build/cpu)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/cpu}
cmake --build "$build" --target ufunc_inventory >/dev/null
table=$("$build/tests/ufunc_inventory")
python3 - "$table" <<'PY'
import re, sys
table = sys.argv[1] + "\n"
text = open("README.md").read()
pattern = re.compile(r"<!-- inventory:begin.*?<!-- inventory:end -->\n", re.S)
if not pattern.search(text):
    sys.exit("README.md has no inventory markers")
open("README.md", "w").write(pattern.sub(lambda m: table, text))
PY
echo "README.md inventory updated"
