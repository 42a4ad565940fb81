#!/usr/bin/env bash
# benchmarks/eval_speech.sh: makes the evaluation speech that the tuning never sees, deterministically, from
# committed sentences written for this (none comes from the test fixtures), and prints the folder it is in on
# stdout. Run again, it reuses the folder when its stamp (a hash of this script and the texts) matches, so
# benchmarks call it every time. Three sets:
#   dev        (the default) benchmarks/eval/{meeting,numbers,names}.txt: 12 clips and the 60 s call. Decoding
#              and segmentation choices have been compared on it since issue 16, so it is no longer unseen in
#              the strict sense: it is where a change is tried.
#   heldout    benchmarks/eval/heldout/{support,travel,kitchen,clinic}.txt: 12 clips, other voices, speeds,
#              pauses and noise (below), made for reporting a choice made on dev (or devpauses). Nothing is
#              tuned on it.
#   devpauses  benchmarks/eval/devpauses/{banking,garden,weekend}.txt: 9 clips, dev's voices with short pauses
#              like heldout's (below). A second dev set, for trying changes on short pauses without looking at
#              heldout: none of its sentences, voices or speeds.
#
# Output folder: ${AUDIOGRAPH_CACHE:-$HOME/.cache/audiograph}/eval-speech/ (heldout: eval-speech-heldout/,
# devpauses: eval-speech-devpauses/; or --out DIR):
#   clean/CLIP.wav, snr10/CLIP.wav, snr5/CLIP.wav   16 kHz mono 16-bit WAV
#   references.tsv   CLIP<TAB>what is said (wer.py score reads it)
#   clips.tsv        CLIP, voice, speed (words/min), noise kind, seconds, speech seconds
#   call60.wav       (dev) the 60 s call, half of it silence (benchmarks/whisper.sh's speed and real-time jobs)
#   call60.tsv       (dev) call60<TAB>what is said;  call60-utterances.tsv: start s, end s, text of each sentence
#   STAMP
# dev clips: two sentences a clip (12 clips), each clip one espeak-ng voice and speed from the cycles below, 0.5 s
# of digital silence, a sentence, a 2.5 s pause, a sentence, 1.0 s of silence. Noise: pink noise (odd clips) or a
# babble of 6 espeak-ng voices reading other sentences (even clips; each talker's sentences are other clips'
# text), mixed at 10 dB and 5 dB SNR against the RMS of the clip's speech alone (pauses left out).
# heldout clips: three sentences a clip, voices and speeds none of dev's (en-029, en-gb-x-rp, en-us-nyc, ...;
# 160/190/145/215 words/min), a 0.4 s hesitation at every comma (each part said on its own, the short pause
# inside a sentence that fragments utterances), 0.35/1.0/0.6/1.8 s between sentences, a white noise floor at
# -60 dBFS instead of digital silence; brown noise (odd clips) or a babble of heldout voices (even clips).
# devpauses clips: three sentences a clip (9 clips), dev's voices at other speeds (170/140/195/155 words/min), a
# 0.3 s hesitation at every comma, 0.5/1.2/0.3/0.8 s between sentences, 0.6 s before and 0.9 s after, the white
# noise floor at -60 dBFS; pink noise (odd clips) or a babble of dev voices reading devpauses sentences (even
# clips).
# call60 (dev): call.txt, one voice a sentence (the cycle again), gaps of equal length so that the file is 60.0 s
# and about half of it is silence (digital silence plus white noise at -60 dBFS).
#
# Usage: benchmarks/eval_speech.sh [--set dev|heldout|devpauses] [--out DIR] [--force] [--smoke]
#   --set NAME which set (default dev)
#   --out DIR  where to make it (default: the cache folder above)
#   --force    make it again even when the stamp matches
#   --smoke    two clips (and dev's call), in a temporary folder removed at the end (or in --out DIR, kept);
#              scripts/bench-smoke.sh runs it so (--binary PATH is accepted and ignored: no audiograph is needed)
#
# Needs espeak-ng, sox and soxi. Deterministic: espeak-ng is, and every sox call runs with -R (repeatable noise).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT="" SET=dev
FORCE=0 OUT_GIVEN=0
while [ $# -gt 0 ]; do
  case "$1" in
    --set) [ $# -ge 2 ] || die "--set needs dev, heldout or devpauses"; SET="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; OUT="$2" OUT_GIVEN=1; shift 2 ;;
    --force) FORCE=1; shift ;;
    --smoke) SMOKE=1; shift ;;
    --binary) [ $# -ge 2 ] || die "--binary needs a path"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 64 ;;
  esac
done
require_tools " (apt-get install espeak-ng sox)" espeak-ng sox soxi
case "$SET" in
  dev)
    TOPICS=(meeting numbers names) TEXTS="$ROOT/benchmarks/eval" PER_CLIP=2 NOISES=(pink babble)
    VOICES=(en-us en-gb en-us+f3 en+m3 en-gb-scotland en-us+f4) SPEEDS=(150 175 200 135)
    PAUSES=(2.5) LEAD=0.5 TAIL=1.0 COMMA_PAUSE="" FLOOR="" CALL=1 BABBLE_VOICE=0
    BABBLE_TEXTS=("$TEXTS/names.txt" "$TEXTS/meeting.txt" "$TEXTS/numbers.txt") ;;
  heldout)
    TOPICS=(support travel kitchen clinic) TEXTS="$ROOT/benchmarks/eval/heldout" PER_CLIP=3 NOISES=(brown babble)
    VOICES=(en-029 en-gb-x-rp en-us-nyc en-gb-x-gbcwmd en-gb-x-gbclan en-us+Annie en+Andy en-gb+Linda)
    SPEEDS=(160 190 145 215) PAUSES=(0.35 1.0 0.6 1.8) LEAD=0.7 TAIL=0.8 COMMA_PAUSE=0.4 FLOOR=-60 CALL=0
    BABBLE_VOICE=3 BABBLE_TEXTS=("$TEXTS/clinic.txt" "$TEXTS/kitchen.txt" "$TEXTS/travel.txt" "$TEXTS/support.txt") ;;
  devpauses)
    TOPICS=(banking garden weekend) TEXTS="$ROOT/benchmarks/eval/devpauses" PER_CLIP=3 NOISES=(pink babble)
    VOICES=(en-us en-gb en-us+f3 en+m3 en-gb-scotland en-us+f4) SPEEDS=(170 140 195 155)
    PAUSES=(0.5 1.2 0.3 0.8) LEAD=0.6 TAIL=0.9 COMMA_PAUSE=0.3 FLOOR=-60 CALL=0 BABBLE_VOICE=2
    BABBLE_TEXTS=("$TEXTS/banking.txt" "$TEXTS/garden.txt" "$TEXTS/weekend.txt") ;;
  *) die "--set: no set $SET (dev, heldout or devpauses)" ;;
esac
[ "$OUT_GIVEN" = 1 ] || OUT="${AUDIOGRAPH_CACHE:-$HOME/.cache/audiograph}/eval-speech$([ "$SET" = dev ] || echo "-$SET")"
if [ "$SMOKE" = 1 ] && [ "$OUT_GIVEN" = 1 ]; then
  FORCE=1
elif [ "$SMOKE" = 1 ]; then
  SMOKE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/eval-speech-smoke.XXXXXX")"
  OUT="$SMOKE_DIR/eval-speech" FORCE=1
fi
TEXT_FILES=()
for topic in "${TOPICS[@]}"; do TEXT_FILES+=("$TEXTS/$topic.txt"); done
[ "$CALL" = 0 ] || TEXT_FILES+=("$TEXTS/call.txt")
STAMP="$(cat "$0" "${TEXT_FILES[@]}" | sha256sum | cut -d' ' -f1)"
[ "$SMOKE" = 0 ] || STAMP="$STAMP smoke"  # a smoke folder is never taken for a full one
if [ "$FORCE" = 0 ] && [ "$(cat "$OUT/STAMP" 2>/dev/null)" = "$STAMP" ]; then
  echo "$OUT"
  exit 0
fi
# A folder that exists without our stamp file is not ours to replace.
if [ -e "$OUT" ] && [ ! -f "$OUT/STAMP" ]; then
  die "$OUT exists and was not made by this script (no STAMP file); remove it or pass --out"
fi

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
# silence SECONDS OUT: digital silence, or the set's noise floor.
silence() {
  if [ -z "$FLOOR" ]; then sox -R -n -r 16000 -c 1 -b 16 "$2" trim 0 "$1"
  else sox -R -n -r 16000 -c 1 -b 16 "$2" synth "$1" whitenoise gain -n "$FLOOR"; fi
}
rms_db() { sox -R "$1" -n stats 2>&1 | awk '/^RMS lev dB/ { print $4 }'; }
# sentence VOICE SPEED TEXT OUT: say, and with COMMA_PAUSE each comma's part on its own with that pause between.
sentence() {
  if [ -z "$COMMA_PAUSE" ] || [[ "$3" != *,* ]]; then say "$1" "$2" "$3" "$4"; return; fi
  local parts=() part i=0
  silence "$COMMA_PAUSE" "$T/comma.wav"
  while IFS= read -r part; do
    [ "$i" = 0 ] || parts+=("$T/comma.wav")
    say "$1" "$2" "$part" "$T/part$i.wav"; parts+=("$T/part$i.wav"); i=$((i + 1))
  done < <(sed 's/, */,\n/g' <<<"$3" | sed 's/^ *//')
  sox -R "${parts[@]}" "$4"
}

# babble SECONDS OUT: 6 voices reading 5 of the sentences each (from the last line up, 4 lines apart), repeated
# to SECONDS and mixed. The talkers are the voice cycle from BABBLE_VOICE on.
babble() {
  local seconds=$1 out=$2 i parts=()
  for i in 0 1 2 3 4 5; do
    local text
    text="$(cat "${BABBLE_TEXTS[@]}" | tac | tail -n +$((1 + 4 * i)) | head -n 5 | tr '\n' ' ')"
    say "${VOICES[(i + BABBLE_VOICE) % ${#VOICES[@]}]}" "${SPEEDS[i % ${#SPEEDS[@]}]}" "$text" "$T/talker$i.wav"
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
index=0 pause_index=0
for topic in "${TOPICS[@]}"; do
  mapfile -t lines < <(sed '/^$/d' "$TEXTS/$topic.txt")
  for ((k = 0; k + PER_CLIP <= ${#lines[@]}; k += PER_CLIP)); do
    [ "$SMOKE" = 0 ] || [ "$index" -lt 2 ] || break  # --smoke: two clips (one of each noise kind)
    clip="$topic-$(printf '%02d' $((k / PER_CLIP + 1)))"
    voice=${VOICES[index % ${#VOICES[@]}]} speed=${SPEEDS[index % ${#SPEEDS[@]}]}
    silence "$LEAD" "$T/lead.wav"; silence "$TAIL" "$T/tail.wav"
    parts=("$T/lead.wav") spoken=() text=""
    for ((j = 0; j < PER_CLIP; j++)); do
      if [ "$j" -gt 0 ]; then
        silence "${PAUSES[pause_index % ${#PAUSES[@]}]}" "$T/pause$j.wav"; parts+=("$T/pause$j.wav")
        pause_index=$((pause_index + 1))
      fi
      sentence "$voice" "$speed" "${lines[k + j]}" "$T/s$j.wav"
      parts+=("$T/s$j.wav"); spoken+=("$T/s$j.wav"); text="$text${text:+ }${lines[k + j]}"
    done
    parts+=("$T/tail.wav")
    sox -R "${parts[@]}" "$NEW/clean/$clip.wav"
    sox -R "${spoken[@]}" "$T/speech.wav"
    speech_db=$(rms_db "$T/speech.wav")
    seconds=$(soxi -D "$NEW/clean/$clip.wav")
    noise=${NOISES[index % 2]}
    if [ "$noise" = babble ]; then
      babble "$seconds" "$T/noise.wav"
    else
      sox -R -n -r 16000 -c 1 -b 16 "$T/noise.wav" synth "$seconds" "${noise}noise"
    fi
    mix "$NEW/clean/$clip.wav" "$T/noise.wav" 10 "$speech_db" "$NEW/snr10/$clip.wav"
    mix "$NEW/clean/$clip.wav" "$T/noise.wav" 5 "$speech_db" "$NEW/snr5/$clip.wav"
    printf '%s\t%s\n' "$clip" "$text" >> "$NEW/references.tsv"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$clip" "$voice" "$speed" "$noise" "$seconds" "$(soxi -D "$T/speech.wav")" \
      >> "$NEW/clips.tsv"
    index=$((index + 1))
  done
done

# The 60 s call (dev): sentences in turn, equal gaps, 60.0 s in all.
speech_total=0
if [ "$CALL" = 1 ]; then
  mapfile -t lines < <(sed '/^$/d' "$TEXTS/call.txt")
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
fi

rm -rf "$T"
echo "$STAMP" > "$NEW/STAMP"
[ ! -e "$OUT" ] || rm -rf "$OUT"   # ours: it has a STAMP (checked above)
mv "$NEW" "$OUT"
[ -n "${SMOKE_DIR:-}" ] || trap - EXIT
echo "eval_speech.sh: made the $SET set, $(($(wc -l < "$OUT/references.tsv"))) clips x 3 conditions$([ "$CALL" = 0 ] \
  || printf ' and call60.wav (%.1f s of speech in 60 s)' "$speech_total") in $OUT" >&2
echo "$OUT"
