#!/usr/bin/env bash
# benchmarks/eval_speech.sh: makes the evaluation speech that the tuning never sees, deterministically, from the
# committed sentences in benchmarks/eval/*.txt (written for this; none comes from the test fixtures), and prints
# the folder it is in on stdout. Run again, it reuses the folder when its stamp (a hash of this script and the
# texts) matches, so benchmarks call it every time.
#
# Output folder: ${AUDIOGRAPH_CACHE:-$HOME/.cache/audiograph}/eval-speech/ (or --out DIR):
#   clean/CLIP.wav, snr10/CLIP.wav, snr5/CLIP.wav   16 kHz mono 16-bit WAV
#   references.tsv   CLIP<TAB>what is said (wer.py score reads it)
#   clips.tsv        CLIP, voice, speed (words/min), noise kind, seconds, speech seconds
#   call60.wav       the 60 s call, half of it silence (benchmarks/whisper.sh's speed and real-time jobs)
#   call60.tsv       call60<TAB>what is said;  call60-utterances.tsv: start s, end s, text of each sentence
#   STAMP
# Clips: meeting.txt, numbers.txt and names.txt, two sentences a clip (12 clips), each clip one espeak-ng voice
# and speed from the cycles below, 0.5 s of silence, a sentence, a 2.5 s pause, a sentence, 1.0 s of silence.
# Noise (the same clips): pink noise (odd clips) or a babble of 6 espeak-ng voices reading other sentences (even
# clips; each talker's sentences are other clips' text), mixed at 10 dB and 5 dB SNR against the RMS of the clip's speech alone (pauses left out).
# call60: call.txt, one voice a sentence (the cycle again), gaps of equal length so that the file is 60.0 s and
# about half of it is silence (digital silence plus white noise at -60 dBFS).
#
# Usage: benchmarks/eval_speech.sh [--out DIR] [--force] [--smoke]
#   --out DIR  where to make it (default: the cache folder above)
#   --force    make it again even when the stamp matches
#   --smoke    two clips and the call, in a temporary folder removed at the end (or in --out DIR, kept);
#              scripts/bench-smoke.sh runs it so (--binary PATH is accepted and ignored: no audiograph is needed)
#
# Needs espeak-ng, sox and soxi. Deterministic: espeak-ng is, and every sox call runs with -R (repeatable noise).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT="${AUDIOGRAPH_CACHE:-$HOME/.cache/audiograph}/eval-speech"
FORCE=0 OUT_GIVEN=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || die "--out needs a folder"; OUT="$2" OUT_GIVEN=1; shift 2 ;;
    --force) FORCE=1; shift ;;
    --smoke) SMOKE=1; shift ;;
    --binary) [ $# -ge 2 ] || die "--binary needs a path"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 64 ;;
  esac
done
require_tools " (apt-get install espeak-ng sox)" espeak-ng sox soxi
if [ "$SMOKE" = 1 ] && [ "$OUT_GIVEN" = 1 ]; then
  FORCE=1
elif [ "$SMOKE" = 1 ]; then
  SMOKE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/eval-speech-smoke.XXXXXX")"
  OUT="$SMOKE_DIR/eval-speech" FORCE=1
fi
TEXTS="$ROOT/benchmarks/eval"
STAMP="$(cat "$0" "$TEXTS"/meeting.txt "$TEXTS"/numbers.txt "$TEXTS"/names.txt "$TEXTS"/call.txt | sha256sum | cut -d' ' -f1)"
[ "$SMOKE" = 0 ] || STAMP="$STAMP smoke"  # a smoke folder is never taken for a full one
if [ "$FORCE" = 0 ] && [ "$(cat "$OUT/STAMP" 2>/dev/null)" = "$STAMP" ]; then
  echo "$OUT"
  exit 0
fi
# A folder that exists without our stamp file is not ours to replace.
if [ -e "$OUT" ] && [ ! -f "$OUT/STAMP" ]; then
  die "$OUT exists and was not made by this script (no STAMP file); remove it or pass --out"
fi

VOICES=(en-us en-gb en-us+f3 en+m3 en-gb-scotland en-us+f4)
SPEEDS=(150 175 200 135)
mkdir -p "$(dirname "$OUT")"
NEW="$(mktemp -d "$(dirname "$OUT")/.eval-speech.XXXXXX")"
trap 'rm -rf "$NEW" ${SMOKE_DIR:+"$SMOKE_DIR"}' EXIT
mkdir -p "$NEW/clean" "$NEW/snr10" "$NEW/snr5" "$NEW/tmp"
T="$NEW/tmp"

# say VOICE SPEED TEXT OUT: espeak-ng at 16 kHz mono, peak -8 dBFS.
say() {
  espeak-ng -v "$1" -s "$2" -w "$T/say.wav" "$3"
  sox -R "$T/say.wav" -r 16000 -c 1 -b 16 "$4" gain -n -8 rate -v
}
silence() { sox -R -n -r 16000 -c 1 -b 16 "$2" trim 0 "$1"; }
rms_db() { sox -R "$1" -n stats 2>&1 | awk '/^RMS lev dB/ { print $4 }'; }

# babble SECONDS OUT: 6 voices reading 5 of the sentences each (from the last line up, 4 lines apart), repeated
# to SECONDS and mixed.
babble() {
  local seconds=$1 out=$2 i parts=()
  for i in 0 1 2 3 4 5; do
    local text
    text="$(cat "$TEXTS"/names.txt "$TEXTS"/meeting.txt "$TEXTS"/numbers.txt | tac | tail -n +$((1 + 4 * i)) | head -n 5 \
      | tr '\n' ' ')"
    say "${VOICES[i]}" "${SPEEDS[i % 4]}" "$text" "$T/talker$i.wav"
    sox -R "$T/talker$i.wav" "$T/talker$i-cut.wav" repeat 3 trim "$(awk -v i="$i" 'BEGIN { print 0.7 * i }')" "$seconds"
    parts+=(-v 1 "$T/talker$i-cut.wav")
  done
  sox -R -m "${parts[@]}" "$out" gain -n -6
}

# mix CLEAN NOISE SNR SPEECH_RMS_DB OUT: CLEAN + NOISE scaled to SPEECH_RMS_DB - SNR dB RMS.
mix() {
  local gain
  gain=$(awk -v s="$4" -v snr="$3" -v n="$(rms_db "$2")" 'BEGIN { printf "%.3f", s - snr - n }')
  sox -R "$2" "$T/noise-scaled.wav" gain "$gain"
  sox -R -G -m -v 1 "$1" -v 1 "$T/noise-scaled.wav" -b 16 "$5"
}

printf '' > "$NEW/references.tsv"
printf 'clip\tvoice\tspeed\tnoise\tseconds\tspeech_seconds\n' > "$NEW/clips.tsv"
index=0
for topic in meeting numbers names; do
  mapfile -t lines < <(sed '/^$/d' "$TEXTS/$topic.txt")
  for ((k = 0; k + 1 < ${#lines[@]}; k += 2)); do
    [ "$SMOKE" = 0 ] || [ "$index" -lt 2 ] || break  # --smoke: two clips (one of each noise kind)
    clip="$topic-$(printf '%02d' $((k / 2 + 1)))"
    voice=${VOICES[index % ${#VOICES[@]}]} speed=${SPEEDS[index % ${#SPEEDS[@]}]}
    say "$voice" "$speed" "${lines[k]}" "$T/a.wav"
    say "$voice" "$speed" "${lines[k + 1]}" "$T/b.wav"
    silence 0.5 "$T/lead.wav"; silence 2.5 "$T/pause.wav"; silence 1.0 "$T/tail.wav"
    sox -R "$T/lead.wav" "$T/a.wav" "$T/pause.wav" "$T/b.wav" "$T/tail.wav" "$NEW/clean/$clip.wav"
    sox -R "$T/a.wav" "$T/b.wav" "$T/speech.wav"
    speech_db=$(rms_db "$T/speech.wav")
    seconds=$(soxi -D "$NEW/clean/$clip.wav")
    if [ $((index % 2)) = 0 ]; then
      noise=pink
      sox -R -n -r 16000 -c 1 -b 16 "$T/noise.wav" synth "$seconds" pinknoise
    else
      noise=babble
      babble "$seconds" "$T/noise.wav"
    fi
    mix "$NEW/clean/$clip.wav" "$T/noise.wav" 10 "$speech_db" "$NEW/snr10/$clip.wav"
    mix "$NEW/clean/$clip.wav" "$T/noise.wav" 5 "$speech_db" "$NEW/snr5/$clip.wav"
    printf '%s\t%s %s\n' "$clip" "${lines[k]}" "${lines[k + 1]}" >> "$NEW/references.tsv"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$clip" "$voice" "$speed" "$noise" "$seconds" "$(soxi -D "$T/speech.wav")" \
      >> "$NEW/clips.tsv"
    index=$((index + 1))
  done
done

# The 60 s call: sentences in turn, equal gaps, 60.0 s in all.
mapfile -t lines < <(sed '/^$/d' "$TEXTS/call.txt")
speech_total=0
for i in "${!lines[@]}"; do
  say "${VOICES[i % ${#VOICES[@]}]}" "${SPEEDS[i % ${#SPEEDS[@]}]}" "${lines[i]}" "$T/call-$i.wav"
  speech_total=$(awk -v a="$speech_total" -v b="$(soxi -D "$T/call-$i.wav")" 'BEGIN { print a + b }')
done
gap=$(awk -v s="$speech_total" -v n="${#lines[@]}" 'BEGIN { g = (60 - s) / (n + 1); if (g < 1) exit 1; printf "%.4f", g }') \
  || die "call.txt is too long for a 60 s call that is half silence"
sox -R -n -r 16000 -c 1 -b 16 "$T/gap.wav" synth "$gap" whitenoise gain -n -60
parts=("$T/gap.wav") t=$gap
printf '' > "$NEW/call60-utterances.tsv"
for i in "${!lines[@]}"; do
  d=$(soxi -D "$T/call-$i.wav")
  printf '%.3f\t%.3f\t%s\n' "$t" "$(awk -v t="$t" -v d="$d" 'BEGIN { print t + d }')" "${lines[i]}" \
    >> "$NEW/call60-utterances.tsv"
  parts+=("$T/call-$i.wav" "$T/gap.wav")
  t=$(awk -v t="$t" -v d="$d" -v g="$gap" 'BEGIN { print t + d + g }')
done
sox -R "${parts[@]}" "$NEW/call60.wav" pad 0 1 trim 0 60
printf 'call60\t%s\n' "$(tr '\n' ' ' < "$TEXTS/call.txt" | sed 's/ *$//')" > "$NEW/call60.tsv"

rm -rf "$T"
echo "$STAMP" > "$NEW/STAMP"
[ ! -e "$OUT" ] || rm -rf "$OUT"   # ours: it has a STAMP (checked above)
mv "$NEW" "$OUT"
[ -n "${SMOKE_DIR:-}" ] || trap - EXIT
echo "eval_speech.sh: made $(($(wc -l < "$OUT/references.tsv"))) clips x 3 conditions and call60.wav" \
  "($(printf '%.1f' "$speech_total") s of speech in 60 s) in $OUT" >&2
echo "$OUT"
