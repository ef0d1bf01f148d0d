#!/usr/bin/env bash
# Installs coder for the GitHub Action (action.yml): a release archive
# checked against the release's checksums.txt, or `go install` from source.
# Prints nothing but progress; sets the output `path` and puts the binary's
# directory on the job's PATH.
#
# Inputs (environment): INPUT_VERSION ("latest" or a tag such as v0.4.0),
# INPUT_FROM_SOURCE ("true": go install), INPUT_REPOSITORY (owner/name of
# the releases), GITHUB_TOKEN (optional, for the API's rate limit).
# Release archives are GoReleaser's: coder_<version>_<os>_<arch>.tar.gz,
# <version> without the leading v, with a checksums.txt beside them.
set -euo pipefail

version=${INPUT_VERSION:-latest}
repo=${INPUT_REPOSITORY:-coder-agent/coder}
dest=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/coder-bin
mkdir -p "$dest"

if [ "${INPUT_FROM_SOURCE:-false}" = "true" ]; then
  module="github.com/${repo}/cmd/coder"
  echo "coder: go install ${module}@${version}"
  GOBIN="$dest" go install "${module}@${version}"
else
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) echo "::error::coder: no release for $(uname -s); set from-source: true" >&2; exit 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "::error::coder: no release for $(uname -m); set from-source: true" >&2; exit 1 ;;
  esac
  auth=()
  [ -n "${GITHUB_TOKEN:-}" ] && auth=(-H "Authorization: Bearer ${GITHUB_TOKEN}")
  tag=$version
  if [ "$version" = "latest" ]; then
    tag=$(curl -fsSL "${auth[@]}" "https://api.github.com/repos/${repo}/releases/latest" | jq -r .tag_name)
  fi
  archive="coder_${tag#v}_${os}_${arch}.tar.gz"
  base="https://github.com/${repo}/releases/download/${tag}"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "coder: downloading ${archive} (${tag})"
  curl -fsSL -o "$work/$archive" "$base/$archive"
  curl -fsSL -o "$work/checksums.txt" "$base/checksums.txt"
  want=$(awk -v f="$archive" '$2 == f || $2 == "*"f {print $1}' "$work/checksums.txt")
  if command -v sha256sum >/dev/null; then
    got=$(sha256sum "$work/$archive" | awk '{print $1}')
  else
    got=$(shasum -a 256 "$work/$archive" | awk '{print $1}')
  fi
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    echo "::error::coder: ${archive} does not match checksums.txt" >&2
    exit 1
  fi
  tar -xzf "$work/$archive" -C "$dest" coder
fi

"$dest/coder" --version
if [ -n "${GITHUB_PATH:-}" ]; then echo "$dest" >>"$GITHUB_PATH"; fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "path=$dest/coder" >>"$GITHUB_OUTPUT"; fi
