#!/usr/bin/env bash
# benchmarks/eval_languages.sh: captions in the 19 caption languages (issue 16) through the multilingual whisper
# model: an espeak-ng set made here, decoded by audiograph, scored per code; and English through the same model
# on the recorded clips (benchmarks/whisper.sh's accuracy part, ag-whisper only, with this model).
#
# Set: benchmarks/languages.tsv, three everyday sentences per caption code, read by espeak-ng (Chinese: the
# cmn-latn-pinyin voice from tone-numbered pinyin, as `cmn` reads Hanzi as English; Japanese: kana), one file per
# code: 0.5 s of silence, then each sentence followed by 2.5 s of silence, 16 kHz mono (languages_eval.py make).
# Pipeline, one `audiograph run` per code: file-source -> resampler (16 kHz mono) -> vad -> recognizer{engine
# whisper, the model, language CODE, threads 1} -> caption-sink json (file runs pack the three utterances into one
# 30 s window: one decode per code).
# Report, per code: character error rate (languages_eval.py's normalization: NFKC, lower case, no punctuation or
# spaces), the script of the output against the code's own (Latn, Cyrl, Deva, Hang, Jpan, Hans for zh, Hant for
# zh-TW), the language the finals carry, and seconds per utterance (the run's wall time / its sentences, model
# load included). Then the English WER (the 14 clips of Tests/AudioGraphSpeechTests/Fixtures = ../shared/speech,
# scored by wer.py as whisper.sh does).
# Targets (issue 16): >= 10 of 19 codes at CER <= 0.25; every code in its own script; English WER <= 5 %.
# Exits non-zero when a run fails or a final carries another language than its code (the targets are reported,
# not enforced: espeak-ng's voice is part of the error).
#
# Usage: benchmarks/eval_languages.sh [--binary PATH] [--work DIR] [--model PATH] [--codes "LIST"] [--no-english]
#                                     [--set NODE.PARAM=VALUE ...] [--json FILE] [--smoke]
#   --binary PATH  the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR     folder for the set, configs, outputs and logs (default: a mktemp folder, removed at the end)
#   --model PATH   the multilingual ggml model (default: the installed base,
#                  ${AUDIOGRAPH_MODELS_DIR:-${XDG_DATA_HOME:-~/.local/share}/audiograph/models}/ggml-base.bin;
#                  `audiograph models install base`)
#   --codes LIST   only these caption codes (default: all of languages.tsv)
#   --no-english   skip the English WER part
#   --set X=V      passed to each `audiograph run` (repeatable), e.g. `--set asr.beamSize=5` to compare decoding
#                  settings; the recognizer node is `asr`
#   --json FILE    also copy the per-code JSON summary there (it is always WORK/languages-summary.json)
#   --smoke        es-ES with one sentence, and whisper.sh's accuracy smoke (one clip) with this model (CI)
#
# Needs espeak-ng, sox, python3, GNU time and the base model. A full run: 19 decodes and 14 more for English,
# about 2-3 minutes on 2 idle cores.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BINARY="" WORK="" MODEL="" CODES="" ENGLISH=1 JSON_COPY="" PER_CODE=3
SETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --model) [ $# -ge 2 ] || die "--model needs a path"; MODEL="$2"; shift 2 ;;
    --codes) [ $# -ge 2 ] || die "--codes needs a list"; CODES="$2"; shift 2 ;;
    --no-english) ENGLISH=0; shift ;;
    --set) [ $# -ge 2 ] || die "--set needs NODE.PARAM=VALUE"; SETS+=(--set "$2"); shift 2 ;;
    --json) [ $# -ge 2 ] || die "--json needs a path"; JSON_COPY="$2"; shift 2 ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
if [ "$SMOKE" = 1 ]; then CODES="es-ES" PER_CODE=1; smoke_banner; fi
require_tools "" espeak-ng sox python3
require_gnu_time
MODEL="${MODEL:-${AUDIOGRAPH_MODELS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/audiograph/models}/ggml-base.bin}"
[ -r "$MODEL" ] || die "no whisper model at $MODEL (audiograph models install base, or --model PATH)"
MODEL="$(cd "$(dirname "$MODEL")" && pwd)/$(basename "$MODEL")"
resolve_binary
make_work audiograph-languages
mkdir -p "$WORK/configs" "$WORK/logs" "$WORK/outputs"
PY="$ROOT/benchmarks/languages_eval.py"

echo "audiograph languages benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(machine); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "model: $MODEL ($(du -m "$MODEL" | cut -f1) MB); espeak-ng $(espeak-ng --version | awk '{print $4}')"
[ ${#SETS[@]} = 0 ] || echo "settings: ${SETS[*]}"
echo "binary: $BINARY, built $(date -u -r "$BINARY" '+%Y-%m-%d %H:%M UTC'); tree: git $(
  git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo

python3 "$PY" make --set "$ROOT/benchmarks/languages.tsv" --out "$WORK/set" --per-code "$PER_CODE" \
  ${CODES:+--codes "$CODES"} > /dev/null
FAILED=0
: > "$WORK/times.tsv"
while IFS=$'\t' read -r code _; do
  python3 "$PY" config --out "$WORK/configs/$code.json" --input "$WORK/set/$code.wav" --model "$MODEL" \
    --language "$code" --sink "json:$WORK/outputs/$code.json"
  echo "$code ..." >&2
  t0=$(now_ns)
  if "$BINARY" run "$WORK/configs/$code.json" "${SETS[@]}" --quiet > /dev/null 2> "$WORK/logs/$code.log"; then
    echo "$code $(awk -v ns=$(( $(now_ns) - t0 )) 'BEGIN { printf "%.3f", ns / 1e9 }')" >> "$WORK/times.tsv"
  else
    echo "eval_languages.sh: $code failed (exit $?): $(tail -n 3 "$WORK/logs/$code.log")" >&2
    FAILED=$((FAILED + 1))
  fi
done < "$WORK/set/references.tsv"
python3 "$PY" score --set "$WORK/set" --outputs "$WORK/outputs" --times "$WORK/times.tsv" \
  --json "$WORK/languages-summary.json" || FAILED=$((FAILED + 1))
[ -z "$JSON_COPY" ] || cp "$WORK/languages-summary.json" "$JSON_COPY"
echo "load average at the end of the set: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$ENGLISH" = 1 ]; then
  echo
  echo "English through the multilingual model (benchmarks/whisper.sh --parts accuracy --systems ag-whisper):"
  smoke=()
  [ "$SMOKE" = 0 ] || smoke=(--smoke)
  if bash "$ROOT/benchmarks/whisper.sh" --binary "$BINARY" --model "$MODEL" --parts accuracy --systems ag-whisper \
       --work "$WORK/english" "${smoke[@]}" > "$WORK/logs/english.log" 2>&1; then
    python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); e, w = s["ag-whisper"]["errors"], s["ag-whisper"]["words"]; print(f"English WER (ag-whisper, {w} words): {e}/{w} = {100 * e / max(1, w):.1f} %")' \
      "$WORK/english/fixtures.json" || { tail -n 20 "$WORK/logs/english.log"; FAILED=$((FAILED + 1)); }
  else
    tail -n 20 "$WORK/logs/english.log" >&2
    echo "eval_languages.sh: the English part failed" >&2
    FAILED=$((FAILED + 1))
  fi
fi
[ "$FAILED" = 0 ] || die "$FAILED step(s) failed (see above)"
