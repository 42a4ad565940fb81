#!/usr/bin/env bash
# Checks deploy/ with whichever validators are present, and says which ran and which were skipped.
# Not part of CI. Needs no network unless --install is given.
#
#   deploy/validate.sh            # use what is installed
#   deploy/validate.sh --install  # first make a throwaway venv with kubernetes-validate and yamllint (PyPI)
#
# Environment:
#   AUDIOGRAPH=PATH        a built binary for the ldd and pipeline checks (default: .build/release/audiograph,
#                          else .build/debug/audiograph, else audiograph on PATH); build it like the image does:
#                          swift build -c release --product audiograph --static-swift-stdlib
#   DEPLOY_VENV=DIR        the venv to use or make (default: /tmp/audiograph-deploy-venv)
#   KUBE_VERSIONS="..."    Kubernetes schema versions (default: "1.28.0 1.37.0", the oldest supported and newest)
#   LDD_MAP=FILE           write the ldd check's "library package" lines there
#   VALIDATE_KUBECTL=1     also `kubectl apply --dry-run=server` against kubectl's current context
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
venv=${DEPLOY_VENV:-/tmp/audiograph-deploy-venv}
kube_versions=${KUBE_VERSIONS:-1.28.0 1.37.0}
manifests=("$here"/kubernetes/*.yaml)
scripts=("$here/slurm/worker.sbatch" "$here/validate.sh")

ran=() skipped=() failed=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME COMMAND...: runs a check, keeps its output only when it fails
check() {
  local name=$1; shift
  local start=$SECONDS
  if "$@" > "$tmp/out" 2>&1; then
    ran+=("$name ($((SECONDS - start))s)")
  else
    failed+=("$name")
    echo "FAILED: $name"
    sed 's/^/  /' "$tmp/out" | head -40
  fi
}
skip() { skipped+=("$1: $2"); }

if [[ ${1:-} == --install ]]; then
  echo "validate: making $venv (kubernetes-validate, yamllint from PyPI)"
  python3 -m venv "$venv" && "$venv/bin/pip" install -q kubernetes-validate yamllint || exit 1
fi
PATH="$venv/bin:$PATH"

# ---- shell scripts --------------------------------------------------------------------------------------
for s in "${scripts[@]}"; do check "bash -n ${s#"$repo"/}" bash -n "$s"; done
if command -v shellcheck > /dev/null; then
  check "shellcheck" shellcheck "${scripts[@]}"
else
  skip shellcheck "not installed (apt-get install shellcheck)"
fi

# ---- Kubernetes manifests -------------------------------------------------------------------------------
if command -v yamllint > /dev/null; then
  check "yamllint" yamllint -d '{extends: default, rules: {line-length: {max: 120}, document-start: disable}}' \
    "${manifests[@]}"
else
  skip yamllint "not installed (--install, or pip install yamllint)"
fi
if command -v kubernetes-validate > /dev/null; then
  for v in $kube_versions; do
    check "kubernetes-validate --strict -k $v" kubernetes-validate --strict --quiet -k "$v" "${manifests[@]}"
  done
else
  skip kubernetes-validate "not installed (--install, or pip install kubernetes-validate)"
fi
if [[ ${VALIDATE_KUBECTL:-} == 1 ]]; then
  if command -v kubectl > /dev/null && kubectl version --request-timeout=5s > /dev/null 2>&1; then
    check "kubectl apply --dry-run=server" kubectl apply --dry-run=server "${manifests[@]/#/-f}"
  else
    skip "kubectl dry-run" "no kubectl or no reachable cluster"
  fi
else
  skip "kubectl dry-run" "needs a cluster; opt in with VALIDATE_KUBECTL=1"
fi

# ---- the binary: the ConfigMap's pipeline, and its shared libraries against the image's packages ----------
bin=${AUDIOGRAPH:-}
for c in "$repo/.build/release/audiograph" "$repo/.build/debug/audiograph" "$(command -v audiograph || true)"; do
  if [[ -z $bin && -n $c && -x $c ]]; then bin=$c; fi
done

py=""
for p in "$venv/bin/python" python3; do
  if [[ -z $py ]] && command -v "$p" > /dev/null && "$p" -c 'import yaml' 2> /dev/null; then py=$p; fi
done
pipeline_check() {
  "$py" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["data"]["pipeline.json"])' \
    "$here/kubernetes/configmap.yaml" > "$tmp/pipeline.json" || return 1
  # The worker sets the file's path per item; give the placeholder a real file so validate can open it.
  local placeholder
  placeholder=$("$py" -c 'import json, sys; c = json.load(open(sys.argv[1]))
print(next(n["path"] for n in c["nodes"].values() if n["type"] == "file-source"))' "$tmp/pipeline.json") || return 1
  cp "$repo/examples/audio/call.flac" "$tmp/$placeholder"
  XDG_DATA_HOME=$tmp/data HOME=$tmp "$bin" validate "$tmp/pipeline.json"
}
if [[ -z $bin ]]; then
  skip "pipeline (audiograph validate)" "no built audiograph (set AUDIOGRAPH=)"
elif [[ -z $py ]]; then
  skip "pipeline (audiograph validate)" "no Python with PyYAML (--install)"
else
  check "ConfigMap pipeline: audiograph validate" pipeline_check
fi

read -ra runtime_packages <<< "$(sed -e 's/#.*//' "$here/runtime-packages.txt" | xargs)"
read -ra build_packages <<< "$(sed -n '/^FROM .* AS build/,/^WORKDIR/p' "$here/Dockerfile" \
  | grep -oE '(^|[[:space:]])(pkg-config|lib[a-z0-9.+-]+-dev)' | xargs)"
bookworm=false
if grep -q '^VERSION_CODENAME=bookworm' /etc/os-release 2> /dev/null && command -v apt-cache > /dev/null; then
  bookworm=true
fi

# apt-cache policy prints "NAME:" then "  Candidate: VERSION" for each package it knows.
apt_check() {
  local p bad=0 known n=0
  known=$(apt-cache policy "${runtime_packages[@]}" "${build_packages[@]}" 2> /dev/null \
    | awk '/^[^ ].*:$/ {name = substr($0, 1, length($0) - 1)} /Candidate:/ && $2 != "(none)" {print name}')
  for p in "${runtime_packages[@]}" "${build_packages[@]}"; do
    if grep -qx "$p" <<< "$known"; then n=$((n + 1)); else echo "no candidate in Debian 12: $p"; bad=1; fi
  done
  echo "$n of $((${#runtime_packages[@]} + ${#build_packages[@]})) packages (${#runtime_packages[@]} runtime, ${#build_packages[@]} build) have a Debian 12 candidate"
  return $bad
}

# Every shared library ldd resolves must come (dpkg -S) from a package that the runtime list pulls in.
ldd_check() {
  local closure so path c pkg bad=0 toolchain=()
  closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "${runtime_packages[@]}" 2> /dev/null | grep -v '^ ' | sort -u)
  ldd "$bin" > "$tmp/ldd" || return 1
  if grep 'not found' "$tmp/ldd"; then bad=1; fi
  awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' "$tmp/ldd" > "$tmp/libs"
  # One dpkg -S for all: each path as ldd gives it, without/with /usr (merged /usr), and resolved (alternatives).
  while read -r so path; do
    printf '%s\n' "$path" "${path#/usr}" "/usr$path" "$(readlink -f "$path")"
  done < "$tmp/libs" | sort -u > "$tmp/candidates"
  xargs dpkg -S < "$tmp/candidates" 2> /dev/null | sed 's/: /\t/' > "$tmp/owners"
  : > "$tmp/map"
  while read -r so path; do
    if [[ $path == */swift/linux/* ]]; then toolchain+=("$so"); continue; fi
    pkg=""
    for c in "$path" "${path#/usr}" "/usr$path" "$(readlink -f "$path")"; do
      [[ -z $pkg ]] && pkg=$(awk -F'\t' -v p="$c" '$2 == p {print $1; exit}' "$tmp/owners")
    done
    pkg=${pkg%%,*}
    pkg=${pkg%%:*}
    printf '%s %s\n' "$so" "${pkg:-?}" >> "$tmp/map"
    if [[ -z $pkg ]] || ! grep -qx "$pkg" <<< "$closure"; then
      echo "$so ($path) comes from ${pkg:-no package}, not pulled in by runtime-packages.txt"; bad=1
    fi
  done < "$tmp/libs"
  if [[ ${#toolchain[@]} -gt 0 ]]; then
    echo "needs ${#toolchain[@]} Swift toolchain libraries (${toolchain[*]}): build with --static-swift-stdlib"
    bad=1
  fi
  if [[ -n ${LDD_MAP:-} ]]; then cp "$tmp/map" "$LDD_MAP"; fi
  echo "$(wc -l < "$tmp/map") libraries, from $(cut -d' ' -f2 "$tmp/map" | sort -u | wc -l) packages"
  return $bad
}

if $bookworm; then
  check "apt-cache policy (runtime + build packages)" apt_check
  echo "validate: apt: $(tail -1 "$tmp/out")"
  if [[ -z $bin ]]; then
    skip "ldd coverage" "no built audiograph (set AUDIOGRAPH=)"
  else
    check "ldd coverage of ${bin#"$repo"/}" ldd_check
    echo "validate: ldd: $(tail -1 "$tmp/out")"
  fi
else
  skip "apt-cache policy, ldd coverage" "not a Debian 12 (bookworm) machine with apt"
fi

skip "docker build" "not run by this script (docker build -f deploy/Dockerfile .)"
skip "sbatch --test-only" "needs a Slurm cluster"

echo "validate: ran ${#ran[@]}, failed ${#failed[@]}, skipped ${#skipped[@]}"
for r in "${ran[@]}"; do echo "  ok       $r"; done
for f in "${failed[@]}"; do echo "  FAILED   $f"; done
for s in "${skipped[@]}"; do echo "  skipped  $s"; done
[[ ${#failed[@]} -eq 0 ]]
