#!/usr/bin/env bash
# benchmarks/latency.sh: caption latency on paced (1x, real-time) playback of real speech, with the default
# settings and with each knob that trades latency against accuracy or CPU turned.
#
# Input: the transcribed clips of Tests/AudioGraphSpeechTests/Fixtures (16 kHz mono; --clips N of the 14),
# each followed by 2 s of white noise at -60 dBFS (long enough for the longest hangover tried to end speech).
# Every job plays it at 1x (file-source "realtime": true) through vad -> recognizer -> caption-sink{srt} and
# reads the runtime's `latency` events (`audiograph run --events jsonl`): for each final, speech end -> final
# (from where the VAD says speech stopped, hangover included, to the final's emission, on the audio clock) and
# speech start -> first partial. Jobs, one run each (a run takes as long as the audio: 80 s for 14 clips):
#   default        vad and recognizer defaults (hangoverMs 650, pauseHintMs 200, partialIntervalMs 250,
#                  finalPass utterance)
#   eager-off      vad pauseHintMs 0: no eager final pass (the final decode starts at speechEnded)
#   hangover-300   vad hangoverMs 300           hangover-1000  vad hangoverMs 1000
#   partials-0     recognizer partialIntervalMs 0 (finals only)
#   partials-1000  recognizer partialIntervalMs 1000
#   streaming      recognizer finalPass streaming (the final is the live pass's result, no second decode)
#   queue-8        the recognizer's queue at 8 frames instead of 256 ("queue": 8)
#   hmm-30000      recognizer maxActiveHMMs 30000 (pocketsphinx's own default) instead of 3000
# Reported per job: finals, median and p95 of speech end -> final and of first partial, CPU seconds (GNU time);
# the default's median is checked against the target hangoverMs + 300 ms. No other tool reports caption
# latency on the same input, so there is no ratio column: pocketsphinx_continuous prints a result only when
# its own endpointer closes an utterance and timestamps nothing.
#
# Usage: benchmarks/latency.sh [--binary PATH] [--work DIR] [--clips N] [--jobs "default streaming ..."] [--smoke]
#   --binary PATH  the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR     folder for audio, configs and outputs (default: a mktemp folder, removed at the end)
#   --clips N      how many of the 14 clips to play (default 14)
#   --jobs LIST    which jobs to run, space-separated (default: all, in the order above)
#   --smoke        one clip, the default job (CI; see lib.sh)
#
# Needs sox, soxi, python3, GNU time. Run it on an otherwise idle machine: latency is wall-clock.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BINARY="" WORK="" CLIPS_WANTED=14
JOBS="default eager-off hangover-300 hangover-1000 partials-0 partials-1000 streaming queue-8 hmm-30000"
while [ $# -gt 0 ]; do
  case "$1" in
    --clips) [ $# -ge 2 ] && is_count "$2" || die "--clips needs a count"; CLIPS_WANTED="$2"; shift 2 ;;
    --jobs) [ $# -ge 2 ] || die "--jobs needs a list"; JOBS="$2"; shift 2 ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
if [ "$SMOKE" = 1 ]; then CLIPS_WANTED=1 JOBS="default"; smoke_banner; fi
require_tools "" sox soxi python3
require_gnu_time
resolve_binary
make_work audiograph-latency

FIXTURES="$ROOT/Tests/AudioGraphSpeechTests/Fixtures"
mapfile -t CLIPS < <(cut -f1 "$FIXTURES/references.tsv" | head -n "$CLIPS_WANTED")
parts=()
sox -R -n -r 16000 -c 1 -b 16 "$WORK/gap.wav" synth 2 whitenoise gain -n -60
for clip in "${CLIPS[@]}"; do parts+=("$FIXTURES/$clip.wav" "$WORK/gap.wav"); done
sox -R "${parts[@]}" "$WORK/speech.wav"
AUDIO_S=$(soxi -D "$WORK/speech.wav")

job_settings() {  # NAME -> "vad-json|asr-json|asr-extra"
  case "$1" in
    default) echo '{}|{}' ;;
    eager-off) echo '{"pauseHintMs": 0}|{}' ;;
    hangover-300) echo '{"hangoverMs": 300}|{}' ;;
    hangover-1000) echo '{"hangoverMs": 1000}|{}' ;;
    partials-0) echo '{}|{"partialIntervalMs": 0}' ;;
    partials-1000) echo '{}|{"partialIntervalMs": 1000}' ;;
    streaming) echo '{}|{"finalPass": "streaming"}' ;;
    queue-8) echo '{}|{"queue": 8}' ;;
    hmm-30000) echo '{}|{"maxActiveHMMs": 30000}' ;;
    *) die "unknown job $1" ;;
  esac
}

echo "audiograph latency benchmark: $(machine)"
echo "input: ${#CLIPS[@]} clips + 2 s of -60 dBFS noise after each = ${AUDIO_S} s, played at 1x"
printf '%-14s %6s %12s %12s %12s %12s %8s\n' job finals "end→final" "p95" "1st partial" "p95" "cpu s"
for job in $JOBS; do
  IFS='|' read -r vad asr <<<"$(job_settings "$job")"
  python3 - "$WORK/$job.json" "$vad" "$asr" <<'PY'
import json, sys
path, vad, asr = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
config = {"version": 1, "session": {"autoStartTranscription": True},
          "nodes": {"src": {"type": "file-source", "path": "speech.wav", "realtime": True},
                    "vad": dict({"type": "vad"}, **vad), "asr": dict({"type": "recognizer", "engine": "pocketsphinx"}, **asr),
                    "cc": {"type": "caption-sink", "format": "srt", "path": "out/cc.srt"}},
          "links": ["src -> vad -> asr -> cc"]}
json.dump(config, open(path, "w"))
PY
  pushd "$WORK" >/dev/null
  time_run "$job" "$BINARY" run "$job.json" --events jsonl --quiet
  popd >/dev/null
  cp "$WORK/job.log" "$WORK/$job.events"
  read -r _ _ user sys <<<"$TIMED_RUN"
  python3 - "$WORK/$job.events" "$job" "$user" "$sys" <<'PY'
import json, math, sys
events = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
lat = [e for e in events if e.get("type") == "latency"]
if not lat:
    sys.exit(f"latency.sh: job {sys.argv[2]} reported no latency events (no finals): see {sys.argv[1]}")
def pct(values, q):
    if not values: return "-"
    s = sorted(values)
    return "%.3f s" % s[max(0, math.ceil(q * len(s)) - 1)]  # nearest rank
end = [e["speechEndToFinal"] for e in lat]
first = [e["firstPartial"] for e in lat if "firstPartial" in e]
print("%-14s %6d %12s %12s %12s %12s %8.1f" % (sys.argv[2], len(lat), pct(end, 0.5), pct(end, 0.95),
      pct(first, 0.5), pct(first, 0.95), float(sys.argv[3]) + float(sys.argv[4])))
PY
done
if [[ " $JOBS " == *" default "* ]]; then
  python3 - "$WORK/default.events" <<'PY'
import json, sys
end = sorted(json.loads(l)["speechEndToFinal"] for l in open(sys.argv[1])
             if l.startswith("{") and json.loads(l).get("type") == "latency")
median = end[(len(end) - 1) // 2]
target = 0.650 + 0.300
print("default: median speech end -> final %.3f s, target < %.3f s (hangoverMs 650 + 300 ms): %s"
      % (median, target, "met" if median < target else "NOT met"))
PY
fi
