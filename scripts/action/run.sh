#!/usr/bin/env bash
# The GitHub Action's entry script (action.yml): runs one headless coder
# turn on the checked-out repository, inside coder's sandbox, and leaves
#   - the stream-json transcript and the session's JSON in $CODER_ARTIFACT_DIR,
#   - the answer in the job summary ($GITHUB_STEP_SUMMARY),
#   - outputs result, session-id, exit-code, transcript ($GITHUB_OUTPUT).
# It runs the same outside Actions (the e2e test runs it against the fake
# model): every GitHub file is optional.
#
# Inputs (environment): INPUT_PROMPT (required), INPUT_MODEL, INPUT_MODE,
# INPUT_WORKING_DIRECTORY, INPUT_FAIL_ON_ERROR (default true), CODER_BIN
# (default: coder on PATH), CODER_ARTIFACT_DIR (default
# $RUNNER_TEMP/coder-transcript). Provider keys come from the step's env.
set -euo pipefail

prompt=${INPUT_PROMPT:-}
if [ -z "${prompt//[[:space:]]/}" ]; then
  echo "::error::coder: the prompt input is empty" >&2
  exit 2
fi
coder=${CODER_BIN:-coder}
workdir=${INPUT_WORKING_DIRECTORY:-.}
artifacts=${CODER_ARTIFACT_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/coder-transcript}
mkdir -p "$artifacts"
artifacts=$(cd "$artifacts" && pwd)
transcript="$artifacts/transcript.jsonl"

args=(-p --output-format stream-json)
[ -n "${INPUT_MODEL:-}" ] && args+=(--model "$INPUT_MODEL")
[ -n "${INPUT_MODE:-}" ] && args+=(--mode "$INPUT_MODE")

cd "$workdir"
# What the sandbox can do on this runner, for the summary.
doctor=$("$coder" doctor 2>&1 || true)

# The prompt goes on stdin: no shell or argument parsing touches it.
set +e
printf '%s' "$prompt" | "$coder" "${args[@]}" >"$transcript" 2>"$artifacts/stderr.log"
code=$?
set -e

result_line=$(grep '"type":"result"' "$transcript" | tail -n 1 || true)
field() { [ -n "$result_line" ] && jq -r "$1 // empty" <<<"$result_line" || true; }
answer=$(field .result)
session=$(field .session_id)
# One line: it is quoted in a workflow command below.
failure=$(field .error | tr '\r\n' '  ' | cut -c1-300)
turns=$(field .num_turns)
duration=$(field .duration_ms)
if [ -n "$session" ] && [ -f ".coder/sessions/$session.json" ]; then
  cp ".coder/sessions/$session.json" "$artifacts/session.json"
fi

summary() {
  echo "## coder"
  echo
  if [ "$code" -ne 0 ]; then
    echo "**coder exited with code $code**${failure:+: $failure}"
    echo
    [ -s "$artifacts/stderr.log" ] && { echo '```'; tail -n 20 "$artifacts/stderr.log"; echo '```'; echo; }
  fi
  if [ -n "$answer" ]; then
    printf '%s\n\n' "$answer"
  fi
  echo "<details><summary>session ${session:-?} · ${turns:-0} model calls · ${duration:-0} ms</summary>"
  echo
  echo '```'
  echo "$doctor"
  echo '```'
  echo "</details>"
}
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  summary >>"$GITHUB_STEP_SUMMARY"
else
  summary
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
  delim="coder_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  {
    echo "exit-code=$code"
    echo "session-id=$session"
    echo "transcript=$transcript"
    echo "result<<$delim"
    printf '%s\n' "$answer"
    echo "$delim"
  } >>"$GITHUB_OUTPUT"
fi

if [ "$code" -ne 0 ] && [ "${INPUT_FAIL_ON_ERROR:-true}" = "true" ]; then
  echo "::error::coder exited with code $code${failure:+: $failure}" >&2
  exit "$code"
fi
exit 0
