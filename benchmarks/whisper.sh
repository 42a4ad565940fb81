#!/usr/bin/env bash
# benchmarks/whisper.sh: the whisper engine against whisper.cpp's own whisper-cli (same model, same audio, same
# run), with pocketsphinx (ours and pocketsphinx_continuous) beside them: accuracy, unseen speech, speed and
# memory, and real-time caption latency. One table, one JSON summary.
#
# Systems (WER columns):
#   ag-whisper       audiograph run: file-source -> resampler (16 kHz mono) -> vad -> recognizer{engine whisper}
#                    -> caption-sink json, one process per clip (engine defaults: greedy, threads = cores)
#   ag-pocketsphinx  the same pipeline with recognizer{engine pocketsphinx}
#   whisper-cli      whisper-cli -m MODEL -f CLIP -t 2 -np -otxt (its own long-form decoding of the file, as it
#                    runs by default: timestamps on, as captions need)
#   whisper-cli-nt   the same with -nt (text only: no timestamps, which changes the decoding)
#   ps-continuous    pocketsphinx_continuous -infile CLIP
# Parts (--parts, default all):
#   accuracy  the 14 transcribed clips of Tests/AudioGraphSpeechTests/Fixtures (= ../shared/speech), per clip
#   unseen    benchmarks/eval_speech.sh's 12 dev clips (espeak-ng voices and speeds, long pauses), clean and with
#             noise at 10 dB and 5 dB SNR; the thresholds were never tuned on them, but decoding choices have
#             been compared on them since issue 16
#   devpauses eval_speech.sh's devpauses set: 9 clips of three sentences in dev's voices, short pauses like
#             heldout's (a hesitation at every comma), a noise floor, pink noise or babble at 10 and 5 dB; a
#             second dev set, where choices about short pauses are tried (sets devpauses-clean,
#             devpauses-10dB, devpauses-5dB)
#   heldout   eval_speech.sh's heldout set: 12 clips of three sentences, other voices and speeds, short pauses
#             (a hesitation at every comma), a noise floor, brown noise or babble at 10 and 5 dB; only for
#             reporting a choice made on the others (sets heldout-clean, heldout-10dB, heldout-5dB)
#   speed     the 60 s call that is half silence (eval_speech.sh's call60.wav): audiograph (file -> resampler ->
#             vad -> whisper -> caption sinks json + webvtt) against whisper-cli on the whole file, --repeats
#             interleaved runs under GNU time: median wall and CPU, highest peak RSS, WER of each; ratio =
#             audiograph wall / whisper-cli wall. whisper-cli runs twice a round: as it runs by default
#             (timestamps on, writing WebVTT captions and text, the same outputs as ours: the targets' anchor)
#             and with -nt (text only, no times, a different decoding; reported beside it)
#   realtime  the same call paced at 1x (file-source "realtime": true), `--events jsonl --stats json`: median
#             speech end -> final, partials during every sentence longer than 2 s (by the call's sentence times),
#             frames dropped and full-queue waits (a paced file source waits where a live source would drop)
# Pairs (issue 16: ours <= theirs on unseen speech, each pair in one run): ag-whisper - whisper-cli and
# ag-pocketsphinx - ps-continuous in errors on every set both ran and on each condition pooled over the unseen
# sets, with a 95 % bootstrap interval over clips (wer.py paired) and a verdict: ahead, behind or within noise.
# Targets (issue 15): accuracy <= 5 % WER; speed <= 1.0x whisper-cli's wall with <= half its WER; peak memory
# < 300 MB; median speech end -> final <= 1.2 s; partials during every utterance > 2 s; nothing dropped.
#
# Usage: benchmarks/whisper.sh [--binary PATH] [--work DIR] [--repeats R] [--model PATH] [--parts "LIST"]
#                              [--systems "LIST"] [--json FILE] [--smoke]
#   --binary PATH  the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR     folder for configs, outputs and logs (default: a mktemp folder, removed at the end)
#   --repeats R    timed runs of each speed job (default 3)
#   --model PATH   the ggml model for both (default: the installed tiny.en,
#                  ${AUDIOGRAPH_MODELS_DIR:-${XDG_DATA_HOME:-~/.local/share}/audiograph/models}/ggml-tiny.en.bin)
#   --parts LIST   which parts to run, space-separated (default: "accuracy unseen devpauses heldout speed
#                  realtime")
#   --systems LIST which systems the accuracy and unseen parts run (default: all five); the scoring reads every
#                  system's outputs in WORK, so with --work DIR of an earlier run the others' outputs are reused
#   --json FILE    also copy the JSON summary there (it is always written to WORK/whisper-summary.json)
#   --set X=V      passed to every ag-whisper `audiograph run` (repeatable; the recognizer node is `asr`), e.g.
#                  `--set asr.audioContext=full` or `--set asr.beamSize=5`; the header prints them
#   --set-ps X=V   the same for every ag-pocketsphinx run, e.g. `--set-ps vad.engine=silero`
#   --smoke        one fixture clip, one clean unseen, one clean devpauses and one clean heldout clip, the first
#                  8 s of the call for speed (one run) and real time (CI; see lib.sh)
#
# Needs whisper-cli (scripts/install-whisper.sh), the model (audiograph models install tiny.en), espeak-ng,
# sox, pocketsphinx_continuous, python3 and GNU time. The real time part takes 60 s. The four WER parts took
# 16 min for ag-whisper alone (2026-12-06, 2 cores shared with a second run); each other system adds its own.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BINARY="" WORK="" REPEATS=3 MODEL="" PARTS="accuracy unseen devpauses heldout speed realtime" JSON_COPY=""
SETS=() PS_SETS=()
SYSTEMS="ag-whisper ag-pocketsphinx whisper-cli whisper-cli-nt ps-continuous"
while [ $# -gt 0 ]; do
  case "$1" in
    --model) [ $# -ge 2 ] || die "--model needs a path"; MODEL="$2"; shift 2 ;;
    --parts) [ $# -ge 2 ] || die "--parts needs a list"; PARTS="$2"; shift 2 ;;
    --systems) [ $# -ge 2 ] || die "--systems needs a list"; SYSTEMS="$2"; shift 2 ;;
    --json) [ $# -ge 2 ] || die "--json needs a path"; JSON_COPY="$2"; shift 2 ;;
    --set) [ $# -ge 2 ] || die "--set needs NODE.PARAM=VALUE"; SETS+=(--set "$2"); shift 2 ;;
    --set-ps) [ $# -ge 2 ] || die "--set-ps needs NODE.PARAM=VALUE"; PS_SETS+=(--set "$2"); shift 2 ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
is_count "$REPEATS" && [ "$REPEATS" -ge 1 ] || die "--repeats must be a whole number >= 1"
[ "$SMOKE" = 0 ] || { REPEATS=1; smoke_banner; }
require_tools "" whisper-cli pocketsphinx_continuous espeak-ng sox soxi python3
require_gnu_time
MODEL="${MODEL:-${AUDIOGRAPH_MODELS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/audiograph/models}/ggml-tiny.en.bin}"
[ -r "$MODEL" ] || die "no whisper model at $MODEL (audiograph models install tiny.en, or --model PATH)"
MODEL="$(cd "$(dirname "$MODEL")" && pwd)/$(basename "$MODEL")"
resolve_binary
make_work audiograph-whisper
mkdir -p "$WORK/configs" "$WORK/logs"
EVAL_PY="$ROOT/benchmarks/whisper_eval.py"
WER_PY="$ROOT/benchmarks/wer.py"
FAILED=0
has_part() { [[ " $PARTS " == *" $1 "* ]]; }
has_system() { [[ " $SYSTEMS " == *" $1 "* ]]; }

echo "audiograph whisper benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(machine); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "model: $MODEL ($(du -m "$MODEL" | cut -f1) MB); whisper-cli: $(command -v whisper-cli)"
[ ${#SETS[@]} = 0 ] || echo "settings of ag-whisper: ${SETS[*]}"
[ ${#PS_SETS[@]} = 0 ] || echo "settings of ag-pocketsphinx: ${PS_SETS[*]}"
echo "binary: $BINARY, built $(date -u -r "$BINARY" '+%Y-%m-%d %H:%M UTC'); tree: git $(
  git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(
  [ -n "$(git -C "$ROOT" status --porcelain -- Sources 2>/dev/null)" ] && echo ' + uncommitted edits in Sources')"
echo

# transcribe SET CLIPS_DIR REFS: the systems on every clip of REFS, outputs in $WORK/SET/SYSTEM/CLIP.*,
# scored into $WORK/SET.json. A failed run is reported and scored as an empty transcript.
transcribe() {
  local set=$1 dir=$2 refs=$3 clip wav sys out
  mkdir -p "$WORK/$set"/{ag-whisper,ag-pocketsphinx,whisper-cli,whisper-cli-nt,ps-continuous}
  echo "$set: $(wc -l < "$refs") clips: $SYSTEMS ..." >&2
  while IFS=$'\t' read -r clip _; do
    [ -n "$clip" ] || continue
    wav="$dir/$clip.wav"
    for sys in ag-whisper ag-pocketsphinx; do
      has_system "$sys" || continue
      out="$WORK/$set/$sys/$clip.json"
      python3 "$EVAL_PY" config --out "$WORK/configs/$set-$sys-$clip.json" --input "$wav" \
        --engine "${sys#ag-}" --model "$MODEL" --sink "json:$out"
      if [ "$sys" = ag-whisper ]; then sets=("${SETS[@]}"); else sets=("${PS_SETS[@]}"); fi
      "$BINARY" run "$WORK/configs/$set-$sys-$clip.json" "${sets[@]}" --quiet > /dev/null 2> "$WORK/logs/$set-$sys-$clip.log" \
        || { echo "whisper.sh: $sys failed on $set/$clip (exit $?): $(tail -n 3 "$WORK/logs/$set-$sys-$clip.log")" >&2
             FAILED=$((FAILED + 1)); }
    done
    if has_system whisper-cli; then
      whisper-cli -m "$MODEL" -f "$wav" -t 2 -np -otxt -of "$WORK/$set/whisper-cli/$clip" \
        > /dev/null 2> "$WORK/logs/$set-whisper-cli-$clip.log" \
        || { echo "whisper.sh: whisper-cli failed on $set/$clip" >&2; FAILED=$((FAILED + 1)); }
    fi
    if has_system whisper-cli-nt; then
      whisper-cli -m "$MODEL" -f "$wav" -t 2 -nt -np -otxt -of "$WORK/$set/whisper-cli-nt/$clip" \
        > /dev/null 2> "$WORK/logs/$set-whisper-cli-nt-$clip.log" \
        || { echo "whisper.sh: whisper-cli -nt failed on $set/$clip" >&2; FAILED=$((FAILED + 1)); }
    fi
    has_system ps-continuous || continue
    pocketsphinx_continuous -infile "$wav" > "$WORK/$set/ps-continuous/$clip.txt" \
      2> "$WORK/logs/$set-ps-continuous-$clip.log" \
      || { echo "whisper.sh: pocketsphinx_continuous failed on $set/$clip" >&2; FAILED=$((FAILED + 1)); }
  done < "$refs"
  python3 "$WER_PY" score --refs "$refs" --title "$set" --json "$WORK/$set.json" \
    --system "ag-whisper=$WORK/$set/ag-whisper:json" --system "ag-pocketsphinx=$WORK/$set/ag-pocketsphinx:json" \
    --system "whisper-cli=$WORK/$set/whisper-cli:txt" --system "whisper-cli-nt=$WORK/$set/whisper-cli-nt:txt" \
    --system "ps-continuous=$WORK/$set/ps-continuous:txt"
  echo
}

WER_SETS=()
FIXTURES="$ROOT/Tests/AudioGraphSpeechTests/Fixtures"
if has_part accuracy; then
  refs="$FIXTURES/references.tsv"
  if [ "$SMOKE" = 1 ]; then grep $'^cards_001\t' "$refs" > "$WORK/fixture-refs.tsv"; refs="$WORK/fixture-refs.tsv"; fi
  transcribe fixtures "$FIXTURES" "$refs"
  WER_SETS+=(--wer "fixtures=$WORK/fixtures.json")
fi

if has_part unseen || has_part speed || has_part realtime; then
  if [ "$SMOKE" = 1 ]; then
    EVAL="$(bash "$ROOT/benchmarks/eval_speech.sh" --smoke --out "$WORK/eval-speech" 2> "$WORK/logs/eval-speech.log")" \
      || { cat "$WORK/logs/eval-speech.log" >&2; die "eval_speech.sh failed"; }
  else
    EVAL="$(bash "$ROOT/benchmarks/eval_speech.sh" 2> "$WORK/logs/eval-speech.log")" \
      || { cat "$WORK/logs/eval-speech.log" >&2; die "eval_speech.sh failed"; }
  fi
fi
# unseen_set NAME PREFIX FOLDER: NAME's clips, clean and (not in the smoke) with noise, as sets PREFIX-clean,
# PREFIX-10dB and PREFIX-5dB. The smoke scores one clean clip: the noisy ones run the same code (CI time).
unseen_set() {
  local name=$1 prefix=$2 folder=$3 refs="$3/references.tsv" condition conditions="clean snr10 snr5"
  if [ "$SMOKE" = 1 ]; then head -n 1 "$refs" > "$WORK/$prefix-refs.tsv"; refs="$WORK/$prefix-refs.tsv"; conditions="clean"; fi
  for condition in $conditions; do
    transcribe "$prefix-$condition" "$folder/$condition" "$refs"
  done
  WER_SETS+=(--wer "$prefix-clean=$WORK/$prefix-clean.json")
  [ "$SMOKE" = 1 ] || WER_SETS+=(--wer "$prefix-10dB=$WORK/$prefix-snr10.json" --wer "$prefix-5dB=$WORK/$prefix-snr5.json")
}
# other_set NAME: eval_speech.sh's set NAME (the smoke makes two of its clips in WORK), as unseen_set's NAME.
other_set() {
  local name=$1 folder args=(--set "$1")
  [ "$SMOKE" = 0 ] || args+=(--smoke --out "$WORK/eval-speech-$name")
  folder="$(bash "$ROOT/benchmarks/eval_speech.sh" "${args[@]}" 2> "$WORK/logs/eval-speech-$name.log")" \
    || { cat "$WORK/logs/eval-speech-$name.log" >&2; die "eval_speech.sh --set $name failed"; }
  unseen_set "$name" "$name" "$folder"
}
has_part unseen && unseen_set dev unseen "$EVAL"
has_part devpauses && other_set devpauses
has_part heldout && other_set heldout

CALL="$WORK/call.wav" CALL_UTTERANCES="$WORK/call-utterances.tsv" CALL_REFS="$WORK/call.tsv"
if has_part speed || has_part realtime; then
  if [ "$SMOKE" = 1 ]; then
    # The first 8 s and the sentences that end inside them.
    sox -R "$EVAL/call60.wav" "$CALL" trim 0 8
    awk -F'\t' '$2 <= 8' "$EVAL/call60-utterances.tsv" > "$CALL_UTTERANCES"
    printf 'call\t%s\n' "$(cut -f3 "$CALL_UTTERANCES" | tr '\n' ' ')" > "$CALL_REFS"
  else
    cp "$EVAL/call60.wav" "$CALL"
    cp "$EVAL/call60-utterances.tsv" "$CALL_UTTERANCES"
    cp "$EVAL/call60.tsv" "$CALL_REFS"
  fi
  CALL_S=$(soxi -D "$CALL")
fi

SPEED_JSON=""
if has_part speed; then
  python3 "$EVAL_PY" config --out "$WORK/configs/speed.json" --input "$CALL" --engine whisper --model "$MODEL" \
    --sink "json:$WORK/speed-ag.json" --sink "webvtt:$WORK/speed-ag.vtt"
  : > "$WORK/speed-records.tsv"
  for run in $(seq 1 "$REPEATS"); do
    echo "speed: round $run of $REPEATS ..." >&2
    time_run ag-whisper "$BINARY" run "$WORK/configs/speed.json" "${SETS[@]}" --quiet
    printf 'ag-whisper\t%s\t%s\t%s\n' "$run" "$(tr ' ' '\t' <<<"$TIMED_RUN")" "$WORK/speed-ag.json" >> "$WORK/speed-records.tsv"
    # whisper-cli as it runs by default (timestamps on), writing captions as ours does: the targets' anchor.
    time_run whisper-cli whisper-cli -m "$MODEL" -f "$CALL" -t 2 -np -ovtt -otxt -of "$WORK/speed-cli"
    printf 'whisper-cli\t%s\t%s\t%s\n' "$run" "$(tr ' ' '\t' <<<"$TIMED_RUN")" "$WORK/speed-cli.txt" >> "$WORK/speed-records.tsv"
    # whisper-cli -nt: text only, no times (so no captions); its decoding differs and is reported beside.
    time_run whisper-cli-nt whisper-cli -m "$MODEL" -f "$CALL" -t 2 -nt -np -otxt -of "$WORK/speed-cli-nt"
    printf 'whisper-cli-nt\t%s\t%s\t%s\n' "$run" "$(tr ' ' '\t' <<<"$TIMED_RUN")" "$WORK/speed-cli-nt.txt" >> "$WORK/speed-records.tsv"
  done
  SPEED_JSON="$WORK/speed.json"
  python3 "$EVAL_PY" speed --records "$WORK/speed-records.tsv" --refs "$CALL_REFS" --seconds "$CALL_S" \
    --repeats "$REPEATS" --json "$SPEED_JSON"
fi

REALTIME_JSON=""
if has_part realtime; then
  echo "real time: the call at 1x ($(printf '%.0f' "$CALL_S") s) ..." >&2
  python3 "$EVAL_PY" config --out "$WORK/configs/realtime.json" --input "$CALL" --engine whisper --model "$MODEL" \
    --realtime --sink "json:$WORK/realtime-ag.json" --sink "webvtt:$WORK/realtime-ag.vtt"
  "$BINARY" run "$WORK/configs/realtime.json" "${SETS[@]}" --events jsonl --stats json --quiet > "$WORK/realtime.events" \
    2> "$WORK/logs/realtime.log" || { cat "$WORK/logs/realtime.log" >&2; die "the real-time run failed"; }
  REALTIME_JSON="$WORK/realtime.json"
  python3 "$EVAL_PY" realtime --events "$WORK/realtime.events" --utterances "$CALL_UTTERANCES" --refs "$CALL_REFS" \
    --json "$REALTIME_JSON"
fi

META="$(python3 -c 'import json, sys; print(json.dumps(dict(zip(["date", "machine", "model", "binary", "commit", "smoke"], sys.argv[1:]))))' \
  "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(machine)" "$MODEL" "$BINARY" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')" "$SMOKE")"
python3 "$EVAL_PY" report "${WER_SETS[@]}" --accuracy-set fixtures ${SPEED_JSON:+--speed "$SPEED_JSON"} \
  ${REALTIME_JSON:+--realtime "$REALTIME_JSON"} --meta "$META" --summary "$WORK/whisper-summary.json"
[ -z "$JSON_COPY" ] || cp "$WORK/whisper-summary.json" "$JSON_COPY"
[ "$FAILED" = 0 ] || die "$FAILED run(s) failed (see above)"
