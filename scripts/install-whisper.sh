#!/usr/bin/env bash
# Builds whisper.cpp 1.8.5 from the pinned source and installs its library, headers, whisper.pc and whisper-cli
# (Debian has no package). Idempotent:
# - nothing to do when pkg-config says whisper 1.8.5 for the prefix, PREFIX/bin/whisper-cli runs, and it finds
#   its libraries without a RUNPATH into a build tree;
# - else the source comes from the cache (downloaded once: the sdist of pywhispercpp==1.5.1, which carries
#   whisper.cpp v1.8.5, fetched with pip in a venv and checked against its pinned SHA-256), a finished build in
#   the cache is reused, and the result is installed over what is there.
#
# Environment:
#   AUDIOGRAPH_WHISPER_PREFIX  where to install (default /usr/local; ldconfig runs only for /usr/local and /usr)
#   AUDIOGRAPH_CACHE           the cache (default ~/.cache/audiograph); this uses AUDIOGRAPH_CACHE/whisper.cpp-1.8.5/
#   AUDIOGRAPH_WHISPER_JOBS    parallel build jobs (default: the number of cores)
# Needs cmake, g++, python3-venv (scripts/install-deps.sh installs them and then runs this).
set -euo pipefail

VERSION=1.8.5
SDIST=pywhispercpp-1.5.1.tar.gz
SDIST_SHA256=5df897e5dd9d9f16804fc937bd85b9f5880a0b29a55f8843585e0e03d76195e5
PREFIX="${AUDIOGRAPH_WHISPER_PREFIX:-/usr/local}"
CACHE="${AUDIOGRAPH_CACHE:-$HOME/.cache/audiograph}/whisper.cpp-$VERSION"
JOBS="${AUDIOGRAPH_WHISPER_JOBS:-$(nproc)}"

log() { echo "install-whisper: $*"; }
fail() { echo "install-whisper: error: $*" >&2; exit 1; }

case "$PREFIX" in /*) ;; *) fail "AUDIOGRAPH_WHISPER_PREFIX must be an absolute path (got $PREFIX)";; esac
PREFIX="${PREFIX%/}"

# True when the prefix holds a working whisper.cpp 1.8.5: its pkg-config file, and a whisper-cli that runs and
# whose RUNPATH (if any) names only PREFIX/lib.
installed() {
  local version runpath
  version="$(PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig" pkg-config --modversion whisper 2>/dev/null)" || return 1
  [ "$version" = "$VERSION" ] || return 1
  [ -f "$PREFIX/include/whisper.h" ] || return 1
  "$PREFIX/bin/whisper-cli" --help >/dev/null 2>&1 || return 1
  runpath="$(readelf -d "$PREFIX/bin/whisper-cli" 2>/dev/null | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]/\2/p')"
  [ -z "$runpath" ] || [ "$runpath" = "$PREFIX/lib" ] || return 1
  if [ "$PREFIX" = /usr/local ] || [ "$PREFIX" = /usr ]; then
    [ "$(pkg-config --modversion whisper 2>/dev/null)" = "$VERSION" ] || return 1
  fi
}

if installed; then
  log "whisper.cpp $VERSION is installed in $PREFIX"
  exit 0
fi

for tool in cmake g++ python3 pkg-config readelf; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/install-deps.sh installs it)"
done

mkdir -p "$CACHE"
SOURCE="$CACHE/pywhispercpp-1.5.1/whisper.cpp"
BUILD="$CACHE/build"

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$SDIST_SHA256" ]; }

# 1. The source archive (pip's download needs a venv with a recent setuptools and setuptools_scm; see
#    docs/speech.md, "Installing whisper.cpp").
if ! sha_ok "$CACHE/$SDIST"; then
  log "downloading $SDIST with pip"
  if [ ! -x "$CACHE/venv/bin/pip" ]; then
    python3 -m venv "$CACHE/venv" || fail "python3 -m venv failed (install python3-venv)"
  fi
  "$CACHE/venv/bin/pip" install --quiet --disable-pip-version-check --upgrade pip setuptools setuptools_scm wheel
  download="$(mktemp -d "$CACHE/.download-XXXXXX")"
  trap 'rm -rf "$download"' EXIT
  SETUPTOOLS_SCM_PRETEND_VERSION=1.5.1 "$CACHE/venv/bin/pip" download --quiet --disable-pip-version-check \
    --no-deps --no-binary :all: --no-build-isolation pywhispercpp==1.5.1 -d "$download"
  sha_ok "$download/$SDIST" || fail "$SDIST: SHA-256 is $(sha256sum "$download/$SDIST" | cut -d' ' -f1), expected $SDIST_SHA256"
  mv "$download/$SDIST" "$CACHE/$SDIST"
  rm -rf "$download" "$CACHE/pywhispercpp-1.5.1"
  trap - EXIT
fi

# 2. The unpacked source (unpacked again when an earlier unpack did not finish).
if [ ! -f "$CACHE/.unpacked" ] || [ ! -f "$SOURCE/CMakeLists.txt" ]; then
  log "unpacking $SDIST"
  rm -rf "$CACHE/pywhispercpp-1.5.1" "$CACHE/.unpacked"
  tar -xzf "$CACHE/$SDIST" -C "$CACHE"
  [ -f "$SOURCE/include/whisper.h" ] || fail "$SDIST has no whisper.cpp/include/whisper.h"
  touch "$CACHE/.unpacked"
fi

# 3. The library and whisper-cli (cmake reuses a finished build: a second run compiles nothing).
# A build folder configured for another source path (a cache that was moved or copied) cannot be reused:
# cmake refuses it. Start that one afresh.
if [ -f "$BUILD/CMakeCache.txt" ] \
  && ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$SOURCE" "$BUILD/CMakeCache.txt"; then
  log "the build folder was configured for another source path: building afresh"
  rm -rf "$BUILD"
fi
log "building whisper.cpp $VERSION in $BUILD ($JOBS jobs)"
cmake -S "$SOURCE" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=ON \
  -DWHISPER_BUILD_TESTS=OFF -DWHISPER_BUILD_SERVER=OFF -DWHISPER_BUILD_EXAMPLES=ON -DWHISPER_SDL2=OFF \
  -DWHISPER_CURL=OFF -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib \
  -DCMAKE_INSTALL_RPATH="$PREFIX/lib" >"$CACHE/cmake-configure.log" 2>&1 \
  || { tail -20 "$CACHE/cmake-configure.log" >&2; fail "cmake configure failed (log: $CACHE/cmake-configure.log)"; }
cmake --build "$BUILD" -j "$JOBS" --target whisper whisper-cli >"$CACHE/cmake-build.log" 2>&1 \
  || { tail -20 "$CACHE/cmake-build.log" >&2; fail "build failed (log: $CACHE/cmake-build.log)"; }

# 4. Install into a staging folder, then copy into the prefix. Only what was built is installed: the
#    top-level rules alone (libwhisper, whisper.h, whisper.pc; `cmake --install` of the whole tree fails on the
#    examples that were not built), ggml's folder and examples/cli. Files are replaced by new ones (cp
#    --remove-destination), never rewritten in place, so programs running with the old libraries are safe.
STAGE="$(mktemp -d "$CACHE/.stage-XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
DESTDIR="$STAGE" cmake -DCMAKE_INSTALL_LOCAL_ONLY=ON -P "$BUILD/cmake_install.cmake" >/dev/null
DESTDIR="$STAGE" cmake --install "$BUILD/ggml" >/dev/null
DESTDIR="$STAGE" cmake --install "$BUILD/examples/cli" >/dev/null
[ -x "$STAGE$PREFIX/bin/whisper-cli" ] && [ -f "$STAGE$PREFIX/lib/pkgconfig/whisper.pc" ] \
  || fail "the staged install lacks whisper-cli or whisper.pc"

SUDO=""
mkdir -p "$PREFIX" 2>/dev/null || true
if [ ! -w "$PREFIX" ] && [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
log "installing into $PREFIX"
$SUDO mkdir -p "$PREFIX"
$SUDO cp -a --no-preserve=ownership --remove-destination "$STAGE$PREFIX/." "$PREFIX/"
if [ "$PREFIX" = /usr/local ] || [ "$PREFIX" = /usr ]; then $SUDO ldconfig; fi

installed || fail "installed into $PREFIX, but the check still fails (pkg-config whisper, $PREFIX/bin/whisper-cli --help)"
log "whisper.cpp $VERSION installed in $PREFIX"
