#!/usr/bin/env bash
# Builds src/media/wasm/jpeg-decoder.wasm: libjpeg-turbo 3.2.0 (libjpeg API, no SIMD) + decoder.c, for
# src/media/jpeg-decoder.ts. Needs Debian's clang, lld, wasi-libc and libclang-rt-14-dev-wasm32 (or newer) and cmake:
#   apt-get install -y clang lld wasi-libc libclang-rt-14-dev-wasm32 cmake
# and a libjpeg-turbo source tree at tag 3.2.0: LIBJPEG_TURBO_SRC=/path/to/libjpeg-turbo bash scripts/jpeg-decoder/build.sh
# The output is committed; CI never runs this.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
src="${LIBJPEG_TURBO_SRC:?set LIBJPEG_TURBO_SRC to a libjpeg-turbo 3.2.0 source tree}"
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
cat > "$build/wasi.cmake" <<'CMAKE'
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
CMAKE
ar="$(command -v llvm-ar || ls /usr/bin/llvm-ar-* | head -1)"
cmake -S "$src" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$build/wasi.cmake" -DCMAKE_AR="$ar" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-O2 \
  -DENABLE_SHARED=0 -DWITH_SIMD=0 -DWITH_TURBOJPEG=0 -DWITH_TOOLS=0 -DWITH_TESTS=0 >/dev/null
cmake --build "$build" --target jpeg-static -j2 >/dev/null
# 2 MiB initial memory (grows on demand through malloc); no entry point; only the dec_* exports.
clang --target=wasm32-wasi -O2 -nostartfiles -I"$src/src" -I"$build" "$here/decoder.c" "$build/libjpeg.a" \
  -Wl,--no-entry -Wl,--initial-memory=2097152 -Wl,--gc-sections -Wl,--strip-all \
  -o "$root/src/media/wasm/jpeg-decoder.wasm"
ls -l "$root/src/media/wasm/jpeg-decoder.wasm"
