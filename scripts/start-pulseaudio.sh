#!/usr/bin/env bash
# Makes sure a PulseAudio-protocol sound server is running with a null sink "audiograph_test" whose monitor
# works as a microphone: whatever is played into the sink (`paplay --device=audiograph_test speech.wav`) is
# what `mic-source` with device "audiograph_test.monitor" hears. For the microphone tests and CI.
#
# Idempotent: reuses a running server (PulseAudio or PipeWire's pipewire-pulse) and an existing sink. Makes the
# sink and its monitor the defaults only on a server with no real devices (one it started, or one whose
# default sink is PulseAudio's "auto_null" placeholder), so a desktop's own microphone is left alone.
set -euo pipefail

SINK="${AUDIOGRAPH_TEST_SINK:-audiograph_test}"

say() { echo "start-pulseaudio: $*"; }

if ! command -v pactl >/dev/null; then
  say "pactl not found: install pulseaudio and pulseaudio-utils (scripts/install-deps.sh)" >&2
  exit 69
fi

started=0
if pactl info >/dev/null 2>&1; then
  say "sound server already running: $(pactl info | sed -n 's/^Server Name: //p')"
else
  if ! command -v pulseaudio >/dev/null; then
    say "no sound server is running and pulseaudio is not installed (scripts/install-deps.sh)" >&2
    exit 69
  fi
  # As root in a container there is no session and no autospawn; the plain user-mode daemon works (it warns
  # that it is not meant for root). It must not exit when idle between tests.
  pulseaudio -D --exit-idle-time=-1 --disallow-exit --log-target=stderr --log-level=error
  started=1
  for _ in $(seq 1 50); do                      # up to 10 s
    if pactl info >/dev/null 2>&1; then break; fi
    sleep 0.2
  done
  if ! pactl info >/dev/null 2>&1; then
    say "pulseaudio started but does not answer (pactl info)" >&2
    exit 69
  fi
  say "started pulseaudio"
fi

if pactl list short sinks | awk '{print $2}' | grep -qx "$SINK"; then
  say "null sink $SINK already loaded"
else
  module=$(pactl load-module module-null-sink "sink_name=$SINK" "sink_properties=device.description=$SINK")
  say "loaded null sink $SINK (module $module)"
fi

default_sink=$(pactl get-default-sink 2>/dev/null || true)
if [ "$started" = 1 ] || [ "$default_sink" = "auto_null" ] || [ "$default_sink" = "$SINK" ]; then
  pactl set-default-sink "$SINK"
  pactl set-default-source "$SINK.monitor"
  say "default sink $SINK, default source $SINK.monitor"
else
  say "left the defaults alone (default sink: ${default_sink:-none}); capture from $SINK.monitor explicitly"
fi
