#!/usr/bin/env bash
# Make the virtual environment parkbot runs from ready, doing only what the restored cache left undone:
#
#   the environment's stamp equals the key   nothing: a warm run
#   only parkbot's source changed            reinstall parkbot alone, into the restored dependencies
#                                            (with the build backend, from the lock, for that moment)
#   anything else (a miss, a broken copy)    a fresh environment from the hash-pinned lock, then parkbot
#
# Every dependency comes from requirements.lock, each file checked against its hash, and none of their
# own requirements are resolved (--no-deps: the lock is the whole set, which `pip check` confirms).
# parkbot itself is built from this checkout with the lock's pinned build backend, offline.
# The environment holds no pip of its own: the base Python's pip installs into it (--python), which
# keeps the cached copy smaller.
#
# Reads PARKBOT_BASE_PYTHON, PARKBOT_VENV, PARKBOT_KEY and PARKBOT_DEPS_KEY (from venv_key.py);
# writes python=<the environment's interpreter> to $GITHUB_OUTPUT.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "${here}/../.." && pwd)"
venv="${PARKBOT_VENV:?}"
if [ "${RUNNER_OS:-}" = "Windows" ]; then
    python="${venv}/Scripts/python.exe"
else
    python="${venv}/bin/python"
fi
stamp="${venv}/parkbot-cache-key"
pip=("${PARKBOT_BASE_PYTHON:?}" -m pip --python "${python}")

recorded_deps="$(sed -n 1p "${stamp}" 2>/dev/null || true)"
recorded_key="$(sed -n 2p "${stamp}" 2>/dev/null || true)"

works() {
    [ -x "${python}" ] && "${python}" -c "$1" >/dev/null 2>&1
}

if [ "${recorded_key}" = "${PARKBOT_KEY:?}" ] && works 'import parkbot'; then
    echo "parkbot: the cached virtual environment is ready"
else
    if [ "${recorded_deps}" = "${PARKBOT_DEPS_KEY:?}" ] && works 'import pydantic, github, git'; then
        echo "parkbot: dependencies restored from the cache; installing parkbot from this checkout"
    else
        echo "parkbot: building the virtual environment from requirements.lock"
        rm -rf "${venv}"
        "${PARKBOT_BASE_PYTHON}" -m venv --without-pip "${venv}"
    fi
    # Everything on a miss; after a partial hit only the build backend, which is removed below.
    "${pip[@]}" install --quiet --require-hashes --no-deps -r "${here}/requirements.lock"
    "${pip[@]}" install --quiet --no-index --no-deps --no-build-isolation --force-reinstall "${root}"
    # parkbot does not need its build backend to run: leave it out of the cached copy (a sixth of its files).
    "${pip[@]}" uninstall --quiet --yes setuptools
    "${pip[@]}" check
    printf '%s\n%s\n' "${PARKBOT_DEPS_KEY}" "${PARKBOT_KEY}" >"${stamp}"
fi

echo "python=${python}" >>"${GITHUB_OUTPUT:-/dev/null}"
