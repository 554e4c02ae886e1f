#!/usr/bin/env bash
# Build the D3M reference runtime environment (d3m core 2022.5.5 with the
# common primitives and the sklearn wrappers) in DIR, plus d3mkit's d3m plugin
# (interop/d3m). Needs a Python 3.8 interpreter: $D3M_PYTHON38 if set, else
# the newest 3.8 under `pyenv root`/versions, else python3.8 on PATH.
#
#   tools/d3m_reference/setup_env.sh DIR
#   export D3MKIT_D3M_PYTHON=DIR/bin/python   # enables tests/test_d3m_interop.py
#
# The pins are the combination that runs `python -m d3m runtime fit-score`:
# newer scikit-learn/scipy fail inside the sklearn wrappers. See docs/d3m-interop.md.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 DIR" >&2
    exit 2
fi
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

find_python38() {
    if [ -n "${D3M_PYTHON38:-}" ]; then
        echo "$D3M_PYTHON38"; return 0
    fi
    if command -v pyenv >/dev/null 2>&1; then
        local root cand
        root=$(pyenv root)
        cand=$(ls -d "$root"/versions/3.8.* 2>/dev/null | sort -V | tail -n 1 || true)
        if [ -n "$cand" ] && [ -x "$cand/bin/python3.8" ]; then
            echo "$cand/bin/python3.8"; return 0
        fi
    fi
    if command -v python3.8 >/dev/null 2>&1; then
        command -v python3.8; return 0
    fi
    return 1
}

py38=$(find_python38) || {
    echo "$0: no Python 3.8 found (set D3M_PYTHON38, install one with pyenv, or put python3.8 on PATH)" >&2
    exit 1
}
echo "using $py38 ($("$py38" --version 2>&1))"

"$py38" -m venv "$dir"
"$dir/bin/python" -m pip install --upgrade "pip<24.1" "setuptools<70" wheel
# scikit-learn 0.22.2.post1 and scipy 1.5.4 are pinned together with d3m: the
# sklearn wrappers of 2022.2.8 fail inside fit-score with anything newer. numba
# 0.56.4: d3m pins numpy 1.21, and the newest numba (imported through shap when
# construct_confidence.Common loads) refuses numpy < 1.22.
"$dir/bin/python" -m pip install \
    "d3m==2022.5.5" \
    "d3m-common-primitives==2022.5.26" \
    "d3m-sklearn-wrap==2022.2.8" \
    "scikit-learn==0.22.2.post1" \
    "scipy==1.5.4" \
    "numba==0.56.4"
"$dir/bin/python" -m pip install "$repo/interop/d3m"
# the plugin runs d3mkit when imported (D3MKIT_COMMAND); here only check that it is installed
"$dir/bin/python" -c "import d3m, importlib.util as u; assert u.find_spec('d3mkit_d3m'); print('d3m', d3m.__version__, 'and d3mkit_d3m ready in', '$dir')"
