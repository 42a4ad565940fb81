#!/usr/bin/env bash
# benchmarks/speech.sh: the speech pipeline (vad -> recognizer -> caption-sink) against pocketsphinx's own
# tools: word error rate on the fixture clips, speed on long files, and the graph's overhead over the decoder.
#
# 1. WER on the 14 transcribed clips of Tests/AudioGraphSpeechTests/Fixtures (references.tsv, 115 words;
#    lowercase, "mister" -> "mr"), each system on each clip:
#      batch        pocketsphinx_batch -adcin yes -adchdr 44 -remove_silence no + the en-us model (one process,
#                   one ctl entry per clip): whole-utterance decoding
#      continuous   pocketsphinx_continuous -infile CLIP, one process per clip
#      ours-vad     audiograph run: file-source -> vad -> recognizer -> caption-sink{json}, defaults
#      ours-novad   file-source -> recognizer -> caption-sink{json} (the recognizer finds utterances itself)
#      ours-vad-p0  ours-vad with recognizer partialIntervalMs 0 (finals only)
#      ours-vad-str ours-vad with recognizer finalPass "streaming" (finals from the live pass)
# 2. Speed on two files made here from the same clips (44.1 kHz stereo, so the resampler works):
#      speech       the 14 clips, each followed by 0.3 s of noise (white, peak -60 dBFS), --passes times
#      half         the 14 clips, each followed by as much noise as the clip is long (half is non-speech),
#                   --passes times: the same speech as `speech`, plus the noise
#    Jobs: pocketsphinx_continuous -infile on a 16 kHz mono copy (converted beforehand, not timed); ours
#    file-source -> resampler -> vad -> recognizer -> caption-sink{webvtt}, with defaults (ours-default),
#    partialIntervalMs 0 (ours-p0), finalPass streaming (ours-streaming). Median of --repeats interleaved runs,
#    GNU time for wall, CPU and max RSS; RTF = wall / audio seconds; ratio = ours / continuous.
# 3. Graph overhead: on the 16 kHz mono copy of `speech` (no resampling needed), one finals-only decode of the
#    whole file both ways: pocketsphinx_batch (one ctl entry) against file-source -> recognizer
#    {partialIntervalMs 0, maxUtteranceSeconds 600, silenceMs 10000} -> caption-sink{webvtt}, which hands
#    pocketsphinx the same samples as one utterance; plus the recognizer's default segmentation (ours-seg).
#    Both log pocketsphinx's own decoding time (the wall of its fwdtree + fwdflat + bestpath timers, TOTAL lines
#    of its log; ours with --verbose; fwdtree runs from ps_start_utt to ps_end_utt, features and acoustic
#    scoring included), so each run splits into decoding and everything else; the graph's overhead is our
#    "everything else" minus pocketsphinx_batch's (model loading, reading the file), as a share of the decoding
#    time. Both parts come from the same run, so a slow phase of a shared machine does not decide it.
#
# Usage: benchmarks/speech.sh [--binary PATH] [--work DIR] [--repeats R] [--passes N] [--smoke]
#   --binary PATH  the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR     folder for audio, configs and outputs (default: a mktemp folder, removed at the end;
#                  a folder you name is kept)
#   --repeats R    timed runs of each speed and overhead job (default 3)
#   --passes N     how many times the clip set repeats in the long files (default 1: speech 53 s, half 97 s;
#                  at most 11). The default keeps the whole run near 10 minutes on 2 cores.
#   --smoke        the shortest clip (cards_001, 1.1 s), every WER system, the speed jobs continuous and
#                  ours-default, one run of each (CI; see lib.sh)
#
# Needs pocketsphinx_batch and pocketsphinx_continuous (Debian pocketsphinx) with pocketsphinx-en-us, sox,
# GNU time at /usr/bin/time and python3 (standard library). Report on stdout, progress on stderr.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BINARY=""
WORK=""
REPEATS=3
PASSES=1

while [ $# -gt 0 ]; do
  case "$1" in
    --passes) [ $# -ge 2 ] || die "--passes needs a value"; PASSES="$2"; shift 2 ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
is_count "$REPEATS" && [ "$REPEATS" -ge 1 ] || die "--repeats must be a whole number >= 1"
is_count "$PASSES" && [ "$PASSES" -ge 1 ] && [ "$PASSES" -le 11 ] || die "--passes must be a whole number 1-11"
[ "$SMOKE" = 0 ] || { REPEATS=1 PASSES=1; smoke_banner; }
require_tools "" pocketsphinx_batch pocketsphinx_continuous sox soxi python3
[ -x /usr/bin/time ] || die "GNU time is not at /usr/bin/time (apt-get install time)"

MODEL=/usr/share/pocketsphinx/model/en-us
[ -d "$MODEL/en-us" ] || die "no pocketsphinx model at $MODEL (apt-get install pocketsphinx-en-us)"
PS_MODEL=(-hmm "$MODEL/en-us" -lm "$MODEL/en-us.lm.bin" -dict "$MODEL/cmudict-en-us.dict")

FIXTURES="$ROOT/Tests/AudioGraphSpeechTests/Fixtures"
REFS="$FIXTURES/references.tsv"
EVAL="$ROOT/benchmarks/speech_eval.py"
resolve_binary
make_work audiograph-speech
mkdir -p "$WORK/audio" "$WORK/configs" "$WORK/wer" "$WORK/out" "$WORK/logs"
if [ "$SMOKE" = 1 ]; then
  grep $'^cards_001\t' "$REFS" > "$WORK/references.tsv"
  REFS="$WORK/references.tsv"
fi
RECORDS="$WORK/records.tsv"
: > "$RECORDS"
SCRIPT_START=$(date +%s)
mapfile -t CLIPS < <(cut -f1 "$REFS" | sed '/^$/d')

# timed FILE JOB RUN OUTPUT STDOUT STDERR COMMAND...: run COMMAND under GNU time, append a record
# (file job run rc wall user sys maxrss_kb output stderr) to $RECORDS. A failed run is recorded and reported, not fatal.
timed() {
  local file=$1 job=$2 run=$3 output=$4 stdout=$5 stderr=$6 rc=0
  shift 6
  /usr/bin/time -o "$WORK/time.txt" -f $'%e\t%U\t%S\t%M' "$@" >"$stdout" 2>"$stderr" || rc=$?
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$file" "$job" "$run" "$rc" "$(tail -n1 "$WORK/time.txt")" "$output" "$stderr" \
    >> "$RECORDS"
  [ "$rc" = 0 ] || { echo "speech.sh: $job on $file (run $run) exited $rc; stderr in $stderr" >&2; FAILED=$((FAILED + 1)); }
}
FAILED=0  # runs that failed: reported where they happen, and the script exits 1 after its report

# config NAME SOURCE_WAV LINKS SINK_FORMAT OUTPUT [NODE_JSON...]: write $WORK/configs/NAME.json with nodes
# src (file-source) and out (caption-sink), plus the extra nodes given as '"id": {...}'. The session turns
# transcription on from the start (without it the recognizer waits for a startTranscription command).
config() {
  local name=$1 source=$2 links=$3 format=$4 output=$5 extra=""
  shift 5
  for node in "$@"; do extra="$extra $node,"; done
  cat > "$WORK/configs/$name.json" <<EOF
{ "version": 1,
  "session": { "autoStartTranscription": true },
  "nodes": { "src": { "type": "file-source", "path": "$source" },$extra
             "out": { "type": "caption-sink", "format": "$format", "path": "$output" } },
  "links": ["$links"] }
EOF
  echo "$WORK/configs/$name.json"
}
run_ours() { "$BINARY" run "$1" --quiet; }

PS_VERSION="$(dpkg-query -W -f '${Version}' pocketsphinx 2>/dev/null || echo unknown)"
echo "audiograph speech benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
echo "tools: pocketsphinx $PS_VERSION (model $MODEL), $(sox --version | sed 's/.*SoX/SoX/')"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
echo "binary: $BINARY, built $(date -u -r "$BINARY" '+%Y-%m-%d %H:%M UTC'); tree now: git $(
  git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(
  [ -n "$(git -C "$ROOT" status --porcelain -- Sources 2>/dev/null)" ] && echo ' + uncommitted edits in Sources')"
echo

# ---------------------------------------------------------------------------------------------------------
# 1. WER on the clips

echo "WER: decoding the ${#CLIPS[@]} clips with 6 systems ..." >&2
printf '%s\n' "${CLIPS[@]}" > "$WORK/wer/clips.ctl"
pocketsphinx_batch -adcin yes -adchdr 44 -remove_silence no "${PS_MODEL[@]}" -cepdir "$FIXTURES" -cepext .wav \
  -ctl "$WORK/wer/clips.ctl" -hyp "$WORK/wer/batch.hyp" > "$WORK/logs/wer-batch.log" 2>&1 \
  || die "pocketsphinx_batch failed; see $WORK/logs/wer-batch.log"
mkdir -p "$WORK/wer/continuous" "$WORK/wer/ours-vad" "$WORK/wer/ours-novad" "$WORK/wer/ours-vad-p0" "$WORK/wer/ours-vad-str"
VAD='"vad": { "type": "vad" }'
for clip in "${CLIPS[@]}"; do
  wav="$FIXTURES/$clip.wav"
  pocketsphinx_continuous -infile "$wav" > "$WORK/wer/continuous/$clip.txt" 2> "$WORK/logs/wer-continuous-$clip.log" \
    || die "pocketsphinx_continuous failed on $clip; see $WORK/logs/wer-continuous-$clip.log"
  for sys in ours-vad ours-novad ours-vad-p0 ours-vad-str; do
    out="$WORK/wer/$sys/$clip.json"
    case $sys in
      ours-vad)     cfg=$(config "wer-$sys-$clip" "$wav" "src -> vad -> asr -> out" json "$out" "$VAD" \
                      '"asr": { "type": "recognizer", "engine": "pocketsphinx" }') ;;
      ours-novad)   cfg=$(config "wer-$sys-$clip" "$wav" "src -> asr -> out" json "$out" \
                      '"asr": { "type": "recognizer", "engine": "pocketsphinx" }') ;;
      ours-vad-p0)  cfg=$(config "wer-$sys-$clip" "$wav" "src -> vad -> asr -> out" json "$out" "$VAD" \
                      '"asr": { "type": "recognizer", "engine": "pocketsphinx", "partialIntervalMs": 0 }') ;;
      ours-vad-str) cfg=$(config "wer-$sys-$clip" "$wav" "src -> vad -> asr -> out" json "$out" "$VAD" \
                      '"asr": { "type": "recognizer", "engine": "pocketsphinx", "finalPass": "streaming" }') ;;
    esac
    run_ours "$cfg" > /dev/null 2> "$WORK/logs/wer-$sys-$clip.log" \
      || { echo "speech.sh: $sys failed on $clip (exit $?); see $WORK/logs/wer-$sys-$clip.log" >&2; FAILED=$((FAILED + 1)); }
  done
done

echo "== 1. WER on the fixture clips (errors = substitutions + deletions + insertions)"
python3 "$EVAL" wer --refs "$REFS" --summary "$WORK/wer-summary.json" \
  --system "batch=$WORK/wer/batch.hyp=pocketsphinx_batch -adcin yes -adchdr 44 -remove_silence no (whole utterance)" \
  --system "continuous=$WORK/wer/continuous:txt=pocketsphinx_continuous -infile CLIP" \
  --system "ours-vad=$WORK/wer/ours-vad:json=file-source -> vad -> recognizer -> caption-sink json (defaults)" \
  --system "ours-novad=$WORK/wer/ours-novad:json=file-source -> recognizer -> caption-sink json" \
  --system "ours-vad-p0=$WORK/wer/ours-vad-p0:json=ours-vad, partialIntervalMs 0" \
  --system "ours-vad-str=$WORK/wer/ours-vad-str:json=ours-vad, finalPass streaming" \
  --same ours-vad ours-vad-p0 --same ours-vad batch
echo

# ---------------------------------------------------------------------------------------------------------
# 2. Long files

echo "Making the long files ($PASSES pass(es) of the clip set) ..." >&2
A="$WORK/audio"
noise() { sox -R -n -r 16000 -c 1 -b 16 "$2" synth "$1" whitenoise gain -n -60; }
noise 0.3 "$A/gap.wav"
speech_parts=()
half_parts=()
for clip in "${CLIPS[@]}"; do
  noise "$(soxi -D "$FIXTURES/$clip.wav")" "$A/noise-$clip.wav"
  speech_parts+=("$FIXTURES/$clip.wav" "$A/gap.wav")
  half_parts+=("$FIXTURES/$clip.wav" "$A/noise-$clip.wav")
done
sox -R "${speech_parts[@]}" "$A/speech-once.wav"
sox -R "${half_parts[@]}" "$A/half-once.wav"
for f in speech half; do
  sox -R "$A/$f-once.wav" "$A/$f-16k-src.wav" repeat $((PASSES - 1))
  # 44.1 kHz stereo (both channels the same); 1 dB of headroom so the upsampler does not clip.
  sox -R "$A/$f-16k-src.wav" -r 44100 -c 2 "$A/$f.wav" gain -1
  # What pocketsphinx_continuous reads: our input converted back to 16 kHz mono (not timed).
  sox -R "$A/$f.wav" -r 16000 -c 1 "$A/$f-16k.wav"
done
SPEECH_S=$(soxi -D "$A/speech.wav")
HALF_S=$(soxi -D "$A/half.wav")

JOBS=(continuous ours-default ours-p0 ours-streaming)
[ "$SMOKE" = 0 ] || JOBS=(continuous ours-default)
for f in speech half; do
  RS='"rs": { "type": "resampler", "sampleRate": 16000, "channels": 1 }'
  config "$f-ours-default" "$A/$f.wav" "src -> rs -> vad -> asr -> out" webvtt "$WORK/out/$f.ours-default.vtt" \
    "$RS" "$VAD" '"asr": { "type": "recognizer", "engine": "pocketsphinx" }' > /dev/null
  config "$f-ours-p0" "$A/$f.wav" "src -> rs -> vad -> asr -> out" webvtt "$WORK/out/$f.ours-p0.vtt" \
    "$RS" "$VAD" '"asr": { "type": "recognizer", "engine": "pocketsphinx", "partialIntervalMs": 0 }' > /dev/null
  config "$f-ours-streaming" "$A/$f.wav" "src -> rs -> vad -> asr -> out" webvtt "$WORK/out/$f.ours-streaming.vtt" \
    "$RS" "$VAD" '"asr": { "type": "recognizer", "engine": "pocketsphinx", "finalPass": "streaming" }' > /dev/null
done
for run in $(seq 1 "$REPEATS"); do
  for f in speech half; do
    echo "Speed: $f, round $run of $REPEATS ..." >&2
    for job in "${JOBS[@]}"; do
      log="$WORK/logs/$f-$job-$run.log"
      if [ "$job" = continuous ]; then
        timed "$f" "$job" "$run" "$WORK/out/$f.continuous.txt" "$WORK/out/$f.continuous.txt" "$log" \
          pocketsphinx_continuous -infile "$A/$f-16k.wav"
      else
        timed "$f" "$job" "$run" "$WORK/out/$f.$job.vtt" /dev/null "$log" \
          "$BINARY" run "$WORK/configs/$f-$job.json" --quiet
      fi
    done
  done
done

echo "== 2. Speed: real-time factor on long files, median of $REPEATS interleaved runs"
echo "   RTF = median wall / audio seconds; ours/cont = wall time against pocketsphinx_continuous -infile on the"
echo "   same audio as 16 kHz mono; cpu s = median user+sys; cpu o/c = ours / continuous in CPU time;"
echo "   peak MB = highest max RSS; WER % = this file's transcript (last run) against the clips' references."
echo "   ours-*: file-source -> resampler -> vad -> recognizer -> caption-sink webvtt on 44.1 kHz stereo;"
echo "   ours-p0: partialIntervalMs 0; ours-streaming: finalPass streaming."
python3 "$EVAL" speed --records "$RECORDS" --refs "$REFS" --passes "$PASSES" --summary "$WORK/timing-summary.json" \
  --jobs "$(IFS=,; echo "${JOBS[*]}")" --baseline continuous \
  --file "speech=$SPEECH_S=the clips with 0.3 s gaps" \
  --file "half=$HALF_S=the clips, each followed by as much -60 dBFS noise"

# ---------------------------------------------------------------------------------------------------------
# 3. Graph overhead

config ov-ours-1utt "$A/speech-16k.wav" "src -> asr -> out" webvtt "$WORK/out/ov.ours-1utt.vtt" \
  '"asr": { "type": "recognizer", "engine": "pocketsphinx", "partialIntervalMs": 0, "maxUtteranceSeconds": 600, "silenceMs": 10000 }' > /dev/null
config ov-ours-seg "$A/speech-16k.wav" "src -> asr -> out" webvtt "$WORK/out/ov.ours-seg.vtt" \
  '"asr": { "type": "recognizer", "engine": "pocketsphinx", "partialIntervalMs": 0 }' > /dev/null
echo "speech-16k" > "$WORK/ov.ctl"
for run in $(seq 1 "$REPEATS"); do
  echo "Overhead: round $run of $REPEATS ..." >&2
  timed ov batch "$run" "$WORK/out/ov.batch.hyp" /dev/null "$WORK/logs/ov-batch-$run.log" \
    pocketsphinx_batch -adcin yes -adchdr 44 -remove_silence no "${PS_MODEL[@]}" -cepdir "$A" -cepext .wav \
    -ctl "$WORK/ov.ctl" -hyp "$WORK/out/ov.batch.hyp"
  for job in ours-1utt ours-seg; do
    timed ov "$job" "$run" "$WORK/out/ov.$job.vtt" /dev/null "$WORK/logs/ov-$job-$run.log" \
      "$BINARY" run "$WORK/configs/ov-$job.json" --quiet --verbose
  done
done

echo "== 3. Graph overhead: one finals-only decode of the speech file (16 kHz mono, $(printf '%.1f' "$SPEECH_S") s)," \
  "median of $REPEATS"
echo "   batch:     pocketsphinx_batch -adcin yes -adchdr 44 -remove_silence no, the whole file as one utterance"
echo "              (pocketsphinx's own decoding time, model loading included)"
echo "   ours-1utt: file-source -> recognizer{partialIntervalMs 0, maxUtteranceSeconds 600, silenceMs 10000}"
echo "              -> caption-sink webvtt: the same samples decoded whole as one utterance (no resampler, no vad)"
echo "   ours-seg:  the same with the recognizer's default segmentation (cut at 1 s silences and every 30 s)"
echo "   decode s: pocketsphinx's own decoding time (wall of its fwdtree + fwdflat + bestpath timers, from its log;"
echo "   ours with --verbose; ps_start_utt to ps_end_utt, features and acoustic scoring included); outside s:"
echo "   wall - decode (model loading, reading the file, and for ours the graph); medians over the runs."
echo "   wall +% = (ours - batch) / batch, the plain wall-time comparison."
python3 "$EVAL" overhead --records "$RECORDS" --refs "$REFS" --passes "$PASSES" --summary "$WORK/timing-summary.json" \
  --file ov --seconds "$SPEECH_S" --jobs batch,ours-1utt,ours-seg --baseline batch
echo

echo "== Targets"
python3 "$EVAL" targets --wer "$WORK/wer-summary.json" --timing "$WORK/timing-summary.json" \
  --overhead-job ours-1utt --overhead-base batch --speech-file speech --half-file half --default-job ours-default \
  --ours ours-vad --batch batch --cont continuous
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
echo "Total benchmark time: $(( $(date +%s) - SCRIPT_START )) s"
[ "$FAILED" = 0 ] || die "$FAILED run(s) failed (see above)"
