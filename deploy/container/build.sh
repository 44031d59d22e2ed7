#!/usr/bin/env bash
# Builds a static `terse` and a container image around it, FROM scratch, with
# whichever of podman and docker answers; no registry is reached.
#
#   deploy/container/build.sh [IMAGE]     (default localhost/terse:latest)
set -euo pipefail

image="${1:-localhost/terse:latest}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target=x86_64-unknown-linux-gnu

# An installed client is not enough (a docker CLI with no daemon behind it):
# use the first engine that answers.
engine=""
for candidate in podman docker; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" info >/dev/null 2>&1; then
    engine="$candidate"
    break
  fi
done
if [ -z "$engine" ]; then
  echo "error: neither podman nor docker answers (\`podman info\`, \`docker info\`); install one (apt-get install podman runc)" >&2
  exit 1
fi

echo "== static terse for $target"
# glibc linked in: the image has no libc to load.
(cd "$root" && RUSTFLAGS='-C target-feature=+crt-static' \
  cargo build --release --locked --target "$target" -p terse-bin)

context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
cp "${CARGO_TARGET_DIR:-$root/target}/$target/release/terse" "$context/terse"
strip "$context/terse"
cp "$here/Containerfile" "$context/Containerfile"

echo "== $engine build -t $image"
"$engine" build --quiet -t "$image" -f "$context/Containerfile" "$context" >/dev/null
bytes="$("$engine" image inspect --format '{{.Size}}' "$image")"
echo "built $image with $engine: $bytes bytes (binary $(stat -c %s "$context/terse") bytes)"

# The run line for this host. podman's default limits (descriptors and
# processes) are above what many hosts allow, and runc then refuses to start
# the container (`error setting rlimit type 7: operation not permitted`):
# ask for this shell's hard limits instead, processes at most 4096 (runc is
# refused at some hosts' hard limit too).
nofile="$(ulimit -Hn)"
nproc="$(ulimit -Hu)"
if [ "$nproc" = unlimited ] || [ "$nproc" -gt 4096 ]; then nproc=4096; fi
if [ "$nofile" = unlimited ]; then nofile=1048576; fi
echo "run it in front of a service on 127.0.0.1:8000 (agents reach port 3000):"
echo "  $engine run --rm --network host --ulimit nofile=$nofile --ulimit nproc=$nproc \\"
echo "    -v \"\$PWD/deploy/container/terse.toml:/etc/terse/terse.toml:ro\" $image"
