#!/usr/bin/env bash
# benchmarks/final-pass.sh: what the recognizer's `maxActiveHMMs` (pocketsphinx's -maxhmmpf) costs and buys in
# the whole-utterance final pass, measured on pocketsphinx_batch itself (the final pass is the same decode:
# Tests/AudioGraphSpeechTests/RecognizerTests.swift checks words and word times against it on every clip).
#
# Input: the 14 transcribed clips of Tests/AudioGraphSpeechTests/Fixtures (references.tsv, 115 words).
# Jobs: pocketsphinx_batch -adcin yes -adchdr 44 -remove_silence no + the en-us model, one process per clip (a
# decoder carries its front end's noise estimate from one utterance to the next; the recognizer's real-time
# finals each start a fresh stream, and RecognizerTests decodes one clip per process too), with -maxhmmpf 30000
# (pocketsphinx's default), 10000, 5000, 4000 (audiograph's default), 3000 and 2000.
# Reported per job: the decode time (pocketsphinx's own TOTAL fwdtree + fwdflat + bestpath wall, so model
# loading is left out), its real-time factor, the ratio to 30000, WER against the references, and on how many
# clips the words equal those of 30000. Median of --repeats runs, interleaved.
#
# Usage: benchmarks/final-pass.sh [--work DIR] [--repeats R] [--smoke]
#   --work DIR     folder for outputs (default: a mktemp folder, removed at the end)
#   --repeats R    runs of each job (default 3)
#   --smoke        1 clip, -maxhmmpf 30000 and 4000, one run (CI; see lib.sh)
#
# Needs pocketsphinx_batch (Debian pocketsphinx) with pocketsphinx-en-us, and python3. Run it on an otherwise
# idle machine: it measures time.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WORK="" REPEATS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) die "final-pass.sh runs pocketsphinx_batch only; it takes no --binary" ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
is_count "$REPEATS" && [ "$REPEATS" -ge 1 ] || die "--repeats must be a whole number >= 1"
require_tools "" pocketsphinx_batch soxi python3
MODEL=/usr/share/pocketsphinx/model/en-us
[ -d "$MODEL/en-us" ] || die "no pocketsphinx model at $MODEL (apt-get install pocketsphinx-en-us)"
make_work audiograph-final-pass

FIXTURES="$ROOT/Tests/AudioGraphSpeechTests/Fixtures"
REFS="$FIXTURES/references.tsv"
SETTINGS="30000 10000 5000 4000 3000 2000"
if [ "$SMOKE" = 1 ]; then
  smoke_banner
  REPEATS=1 SETTINGS="30000 4000"
  sed "/^$/d" "$REFS" | head -n 1 > "$WORK/references.tsv"
  REFS="$WORK/references.tsv"
fi
cut -f1 "$REFS" | sed '/^$/d' > "$WORK/clips.ctl"

AUDIO_S=$(while read -r clip; do soxi -D "$FIXTURES/$clip.wav"; done < "$WORK/clips.ctl" | awk '{ s += $1 } END { printf "%.2f", s }')
echo "audiograph final-pass benchmark: $(machine)"
echo "input: $(wc -l < "$WORK/clips.ctl") clips, $AUDIO_S s of audio"
for run in $(seq 1 "$REPEATS"); do
  for hmm in $SETTINGS; do
    : > "$WORK/$hmm.hyp"
    : > "$WORK/$hmm.$run.log"
    while read -r clip; do
      echo "$clip" > "$WORK/one.ctl"
      pocketsphinx_batch -adcin yes -adchdr 44 -remove_silence no -hmm "$MODEL/en-us" -lm "$MODEL/en-us.lm.bin" \
        -dict "$MODEL/cmudict-en-us.dict" -maxhmmpf "$hmm" -cepdir "$FIXTURES" -cepext .wav -ctl "$WORK/one.ctl" \
        -hyp "$WORK/one.hyp" > "$WORK/one.log" 2>&1 || { cat "$WORK/one.log" >&2; die "pocketsphinx_batch -maxhmmpf $hmm failed on $clip"; }
      cat "$WORK/one.hyp" >> "$WORK/$hmm.hyp"
      cat "$WORK/one.log" >> "$WORK/$hmm.$run.log"
    done < "$WORK/clips.ctl"
  done
done

python3 - "$ROOT/benchmarks" "$WORK" "$REFS" "$REPEATS" "$AUDIO_S" $SETTINGS <<'PY'
import statistics, sys
sys.path.insert(0, sys.argv[1])
from speech_eval import read_references, read_batch_hyp, normalize, edit_counts, search_seconds
work, refs_path, repeats, audio, settings = sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), sys.argv[6:]
refs = read_references(refs_path)
words = sum(len(r) for r in refs.values())

def decode(log):
    seconds = search_seconds(log)
    if seconds is None:
        sys.exit("final-pass.sh: no TOTAL fwdtree/fwdflat/bestpath lines in %s" % log)
    return seconds

hyps = {s: read_batch_hyp("%s/%s.hyp" % (work, s)) for s in settings}
base = settings[0]
print("%-8s %9s %7s %8s %7s %12s" % ("maxhmmpf", "decode s", "RTF", "ratio", "WER %", "same words"))
base_wall = None
for s in settings:
    wall = statistics.median(decode("%s/%s.%d.log" % (work, s, r)) for r in range(1, repeats + 1))
    base_wall = base_wall or wall
    errors = 0
    for clip, ref in refs.items():
        sub, dele, ins = edit_counts(ref, normalize(hyps[s].get(clip, "")))
        errors += sub + dele + ins
    same = sum(normalize(hyps[s].get(c, "")) == normalize(hyps[base].get(c, "")) for c in refs)
    print("%-8s %9.3f %7.3f %8.3f %7.1f %9d/%d" % (s, wall, wall / audio, wall / base_wall,
                                                  100.0 * errors / words, same, len(refs)))
print("decode s: median of %d runs of the sum over the clips' processes of pocketsphinx's own timers (model loading left out); ratio: to %s, "
      "pocketsphinx's default; WER over %d reference words; same words: clips whose words equal %s's"
      % (repeats, base, words, base))
PY
