#!/usr/bin/env python3
"""benchmarks/vad_eval.py: test audio and frame-level scoring for benchmarks/vad.sh.

  vad_eval.py make FIXTURES OUT [--calls N]
                                     writes the test audio (16 kHz mono 16-bit WAVs) and OUT/manifest.json;
                                     N synthetic calls (default 8; vad.sh --smoke makes 1)
  vad_eval.py eval OUT [--ours LABEL=DIR]... [--silero] [--json FILE] [--markdown FILE]
                                     scores py-webrtcvad (modes 0-3), silero-vad (with --silero) and each --ours
                                     (the `--events jsonl` output of `audiograph run`, one DIR/<name>.jsonl per
                                     file; the first --ours is the one checked against the target)

Test sets (all deterministic, fixed seeds):
  real     the labelled fixtures as they are: librivox_0870 ... librivox_0930 and chan3_16k (vad_labels.tsv)
  calls    "synthetic calls": the five labelled librivox clips in a shuffled order with 0.5-2 s of silence
           between them (and before the first and after the last), 8 calls (about 4 minutes in all), each at
           its own overall level (-6 ... +6 dB). Labels are the clips' vad_labels.tsv segments, shifted.
           Mixed with noise at SNR 20, 10, 5, 0 dB, three kinds:
             white   Gaussian white noise
             pink    1/f noise (white noise shaped in the frequency domain)
             babble  six overlapping streams of the unlabelled fixtures (cards, forever, goforward, digits,
                     chan3: other speakers), each at a random offset, summed (speech-shaped and modulated,
                     the hardest kind)
           SNR = active speech power (the labelled speech frames) over the noise's mean power.
           Also "clean" (no noise).

Scoring: 10 ms frames; a frame is speech in the reference when its centre lies in a labelled segment, and in a
system's output when its centre lies in a detected segment (webrtcvad decides per 30 ms frame, silero per
32 ms chunk: each 10 ms frame takes the decision of the frame or chunk holding its centre). Precision, recall
and F1 of the speech class, pooled over every frame of the condition's files.

Needs python3 and numpy; webrtcvad (pip webrtcvad-wheels); for --silero: onnxruntime and silero-vad (its
ONNX model is run directly, without torch). vad.sh sets these up in a venv.
"""
import json
import math
import os
import sys
import time
import wave

import numpy as np

RATE = 16000
FRAME = 0.01  # scoring frame, seconds
LABELLED_REAL = ["librivox_0870", "librivox_0880", "librivox_0890", "librivox_0920", "librivox_0930", "chan3_16k"]
CLIPS = ["librivox_0870", "librivox_0880", "librivox_0890", "librivox_0920", "librivox_0930"]
BABBLE_SOURCES = ["cards_001", "cards_002", "cards_003", "cards_004", "cards_005", "forever_2", "forever_4",
                  "goforward", "digits_dhd_2934z", "chan3_16k"]
NOISES = ["white", "pink", "babble"]
SNRS = [20, 10, 5, 0]
CALLS = 8


# ------------------------------------------------------------------------------------------------ audio I/O

def read_wav(path):
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise SystemExit(f"{path}: expected 16-bit mono")
        rate = w.getframerate()
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768.0
    return data, rate


def write_wav(path, x, rate=RATE):
    peak = np.max(np.abs(x)) if len(x) else 0.0
    if peak > 0.999:  # keep the mix inside 16 bits without clipping
        x = x * (0.999 / peak)
    pcm = np.round(x * 32767.0).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())


def read_labels(fixtures):
    labels = {}
    with open(os.path.join(fixtures, "vad_labels.tsv")) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                labels.setdefault(parts[0], []).append((float(parts[1]), float(parts[2])))
    return labels


def frames_from_segments(segments, n_frames):
    """Boolean per 10 ms frame: the frame's centre lies in one of the segments [start, end)."""
    centres = (np.arange(n_frames) + 0.5) * FRAME
    out = np.zeros(n_frames, dtype=bool)
    for start, end in segments:
        out |= (centres >= start) & (centres < end)
    return out


# ------------------------------------------------------------------------------------------------ test audio

def pink_noise(n, rng):
    white = rng.standard_normal(n)
    spectrum = np.fft.rfft(white)
    f = np.arange(len(spectrum), dtype=np.float64)
    f[0] = 1.0
    spectrum /= np.sqrt(f)
    spectrum[0] = 0.0
    return np.fft.irfft(spectrum, n)


def babble_noise(n, rng, sources, streams=6):
    out = np.zeros(n)
    for _ in range(streams):
        stream = np.zeros(0)
        while len(stream) < n + RATE * 5:
            clip = sources[rng.integers(len(sources))]
            clip = clip / (np.sqrt(np.mean(clip ** 2)) + 1e-12)
            stream = np.concatenate([stream, clip])
        offset = rng.integers(RATE * 5)
        out += stream[offset:offset + n]
    return out


def make(fixtures, out, calls_wanted=CALLS):
    os.makedirs(out, exist_ok=True)
    labels = read_labels(fixtures)
    audio = {}
    for name in set(LABELLED_REAL + CLIPS + BABBLE_SOURCES):
        audio[name], rate = read_wav(os.path.join(fixtures, name + ".wav"))
        assert rate == RATE, name
    files = []

    # real: the labelled files as they are
    for name in LABELLED_REAL:
        path = os.path.join(out, f"real-{name}.wav")
        write_wav(path, audio[name])
        files.append({"name": f"real-{name}", "set": "real", "noise": "none", "snr": None,
                      "path": path, "seconds": len(audio[name]) / RATE, "segments": labels[name]})

    # calls: shuffled clips with pauses, then noise
    rng = np.random.default_rng(20261129)
    calls = []
    for c in range(calls_wanted):
        order = rng.permutation(len(CLIPS))
        gain = 10 ** (rng.uniform(-6, 6) / 20)
        pieces, segments, t = [], [], 0.0
        for k, index in enumerate(order):
            pause = rng.uniform(0.5, 2.0)
            pieces.append(np.zeros(int(round(pause * RATE))))
            t += len(pieces[-1]) / RATE
            clip = CLIPS[index]
            for start, end in labels[clip]:
                segments.append((t + start, t + end))
            pieces.append(audio[clip] * gain)
            t += len(audio[clip]) / RATE
        pieces.append(np.zeros(int(round(rng.uniform(0.5, 2.0) * RATE))))
        x = np.concatenate(pieces)
        calls.append((x, segments))

    babble_sources = [audio[name] for name in BABBLE_SOURCES]
    for c, (x, segments) in enumerate(calls):
        n = len(x)
        speech = frames_from_segments(segments, int(math.ceil(n / (RATE * FRAME))))
        mask = np.repeat(speech, int(RATE * FRAME))[:n]
        if len(mask) < n:
            mask = np.concatenate([mask, np.zeros(n - len(mask), dtype=bool)])
        speech_power = np.mean(x[mask] ** 2)
        conditions = [("clean", None, None)]
        for noise in NOISES:
            noise_rng = np.random.default_rng(1000 * (NOISES.index(noise) + 1) + c)
            if noise == "white":
                base = noise_rng.standard_normal(n)
            elif noise == "pink":
                base = pink_noise(n, noise_rng)
            else:
                base = babble_noise(n, noise_rng, babble_sources)
            base /= np.sqrt(np.mean(base ** 2))
            for snr in SNRS:
                conditions.append((noise, snr, base * math.sqrt(speech_power / 10 ** (snr / 10))))
        for noise, snr, noise_signal in conditions:
            y = x if noise_signal is None else x + noise_signal
            tag = "clean" if snr is None else f"{noise}{snr}"
            name = f"call{c}-{tag}"
            path = os.path.join(out, name + ".wav")
            write_wav(path, y)
            files.append({"name": name, "set": "calls", "noise": noise, "snr": snr, "path": path,
                          "seconds": n / RATE, "segments": segments})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"files": files}, f, indent=1)
    total = sum(f["seconds"] for f in files)
    print(f"wrote {len(files)} files, {total / 60:.1f} min of audio, to {out}", file=sys.stderr)


# ------------------------------------------------------------------------------------------------ systems

def webrtc_frames(x, mode):
    import webrtcvad
    vad = webrtcvad.Vad(mode)
    step = int(0.03 * RATE)
    pcm = np.round(np.clip(x, -1, 32767 / 32768) * 32768).astype("<i2").tobytes()
    decisions = []
    for start in range(0, len(x) - step + 1, step):
        decisions.append(vad.is_speech(pcm[2 * start:2 * (start + step)], RATE))
    return np.array(decisions, dtype=bool), 0.03


class Silero:
    """silero-vad's ONNX model run with onnxruntime and numpy (what its OnnxWrapper does, without torch)."""

    def __init__(self):
        import importlib.util
        import onnxruntime
        spec = importlib.util.find_spec("silero_vad")
        if spec is None:
            raise SystemExit("silero-vad is not installed (pip install --no-deps silero-vad onnxruntime)")
        model = os.path.join(os.path.dirname(spec.origin), "data", "silero_vad.onnx")
        opts = onnxruntime.SessionOptions()
        opts.inter_op_num_threads = 1
        opts.intra_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"], sess_options=opts)

    def probabilities(self, x):
        state = np.zeros((2, 1, 128), dtype=np.float32)
        context = np.zeros((1, 64), dtype=np.float32)
        sr = np.array(RATE, dtype=np.int64)
        probs = []
        x = x.astype(np.float32)
        for start in range(0, len(x) - 512 + 1, 512):
            chunk = np.concatenate([context, x[None, start:start + 512]], axis=1)
            out, state = self.session.run(None, {"input": chunk, "state": state, "sr": sr})
            context = chunk[:, -64:]
            probs.append(float(out[0][0]))
        return np.array(probs)


def silero_segments(probs, n_samples, threshold=0.5, min_speech_ms=250, min_silence_ms=100, speech_pad_ms=30):
    """silero-vad's get_speech_timestamps with its defaults (hysteresis threshold - 0.15, padding), in seconds."""
    window = 512
    neg_threshold = max(threshold - 0.15, 0.01)
    min_speech = RATE * min_speech_ms / 1000
    min_silence = RATE * min_silence_ms / 1000
    pad = RATE * speech_pad_ms / 1000
    triggered, temp_end, speeches, current = False, 0, [], {}
    for i, p in enumerate(probs):
        if p >= threshold and temp_end:
            temp_end = 0
        if p >= threshold and not triggered:
            triggered = True
            current = {"start": window * i}
            continue
        if p < neg_threshold and triggered:
            if not temp_end:
                temp_end = window * i
            if window * i - temp_end < min_silence:
                continue
            current["end"] = temp_end
            if current["end"] - current["start"] > min_speech:
                speeches.append(current)
            current, temp_end, triggered = {}, 0, False
    if current and n_samples - current["start"] > min_speech:
        current["end"] = n_samples
        speeches.append(current)
    for i, s in enumerate(speeches):
        if i == 0:
            s["start"] = int(max(0, s["start"] - pad))
        if i != len(speeches) - 1:
            gap = speeches[i + 1]["start"] - s["end"]
            if gap < 2 * pad:
                s["end"] += int(gap // 2)
                speeches[i + 1]["start"] = int(max(0, speeches[i + 1]["start"] - gap // 2))
            else:
                s["end"] = int(min(n_samples, s["end"] + pad))
                speeches[i + 1]["start"] = int(max(0, speeches[i + 1]["start"] - pad))
        else:
            s["end"] = int(min(n_samples, s["end"] + pad))
    return [(s["start"] / RATE, s["end"] / RATE) for s in speeches]


def resample_decisions(decisions, step, n_frames):
    """Per-10 ms-frame decisions from decisions made every `step` seconds (frames past the end: non-speech)."""
    centres = (np.arange(n_frames) + 0.5) * FRAME
    index = np.floor(centres / step).astype(int)
    out = np.zeros(n_frames, dtype=bool)
    valid = index < len(decisions)
    out[valid] = decisions[index[valid]]
    return out


def read_events(path):
    """Speech segments from `audiograph run --events jsonl` output."""
    segments, start = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            event = json.loads(line)
            if event.get("type") == "speechStarted":
                start = event["time"]
            elif event.get("type") == "speechEnded" and start is not None:
                segments.append((start, event["time"]))
                start = None
    if start is not None:
        segments.append((start, float("inf")))
    return segments


# ------------------------------------------------------------------------------------------------ scoring

def counts(ref, hyp):
    return np.array([np.sum(ref & hyp), np.sum(~ref & hyp), np.sum(ref & ~hyp)], dtype=np.int64)


def prf(c):
    tp, fp, fn = c
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def evaluate(out, ours=(), silero=False, json_path=None, markdown_path=None):
    """`ours`: (label, events folder) pairs; the first is the one checked against the target."""
    with open(os.path.join(out, "manifest.json")) as f:
        files = json.load(f)["files"]
    systems = [f"webrtc{m}" for m in range(4)]
    if silero:
        systems += ["silero", "silero-raw"]
        model = Silero()
    systems += [label for label, _ in ours]
    folders = dict(ours)
    table = {}  # (condition, system) -> counts
    seconds = {}
    timing = {s: 0.0 for s in systems}
    for entry in files:
        x, _ = read_wav(entry["path"])
        n_frames = int(len(x) // (RATE * FRAME))
        ref = frames_from_segments(entry["segments"], n_frames)
        condition = entry["name"][5:] if entry["set"] == "real" else (
            "clean" if entry["snr"] is None else f"{entry['noise']}{entry['snr']}")
        keys = [condition]
        if entry["set"] == "real":
            keys.append("real-all")
            if condition.startswith("librivox"):
                keys.append("real-librivox")
        elif entry["snr"] is not None:
            keys.append(f"snr{entry['snr']}")
        seconds[condition] = seconds.get(condition, 0.0) + entry["seconds"]
        for system in systems:
            t0 = time.perf_counter()
            if system.startswith("webrtc"):
                decisions, step = webrtc_frames(x, int(system[-1]))
                hyp = resample_decisions(decisions, step, n_frames)
            elif system == "silero":
                probs = model.probabilities(x)
                hyp = frames_from_segments(silero_segments(probs, len(x)), n_frames)
                silero_probs = probs
            elif system == "silero-raw":
                hyp = resample_decisions(silero_probs >= 0.5, 512 / RATE, n_frames)
            else:
                hyp = frames_from_segments(read_events(os.path.join(folders[system], entry["name"] + ".jsonl")),
                                           n_frames)
            timing[system] += time.perf_counter() - t0
            c = counts(ref, hyp)
            for key in keys:
                table[(key, system)] = table.get((key, system), 0) + c

    rows = [("Labelled real files, as they are", [(name, name) for name in LABELLED_REAL]
             + [("5 librivox", "real-librivox"), ("all six", "real-all")]),
            (f"Synthetic calls ({sum(e['set'] == 'calls' and e['snr'] is None for e in files)} calls, {seconds['clean'] / 60:.1f} min per condition)",
             [("clean", "clean")] + [row for snr in SNRS for row in
                                     [(f"{noise} {snr} dB", f"{noise}{snr}") for noise in NOISES]
                                     + [(f"all {snr} dB", f"snr{snr}")]])]
    width = max(10, max(len(s) for s in systems) + 2)

    def text_table(cell):
        for title, entries in rows:
            print(title)
            print(f"{'condition':<15}" + "".join(f"{s:>{width}}" for s in systems))
            for label, key in entries:
                print(f"{label:<15}" + "".join(f"{cell(prf(table[(key, s)])):>{width}}" for s in systems))
            print()

    print("Frame F1 of the speech class (10 ms frames)")
    print()
    text_table(lambda v: f"{v[2]:.3f}")
    print("Precision/recall")
    print()
    text_table(lambda v: f"{v[0]:.2f}/{v[1]:.2f}")
    # The target: ours above the best webrtcvad mode at every SNR (pooled over the noise kinds).
    if ours:
        target = ours[0][0]
        verdicts = []
        for snr in SNRS:
            mine = prf(table[(f"snr{snr}", target)])[2]
            best_mode = max(range(4), key=lambda m: prf(table[(f"snr{snr}", f"webrtc{m}")])[2])
            best = prf(table[(f"snr{snr}", f"webrtc{best_mode}")])[2]
            verdicts.append(mine > best)
            print(f"SNR {snr:>2} dB: {target} {mine:.3f} vs webrtcvad's best (mode {best_mode}) {best:.3f}: "
                  + ("above" if mine > best else "NOT above") + f" ({mine - best:+.3f})")
        print(f"Target, {target} F1 above webrtcvad's best mode at every SNR: " + ("met" if all(verdicts) else "NOT met"))
    total = sum(seconds.values())
    print()
    print(f"Python-side time for {total / 60:.1f} min of audio: "
          + ", ".join(f"{s} {timing[s]:.1f} s" for s in systems if s not in folders))
    if json_path:
        summary = {}
        for (key, system), c in table.items():
            summary.setdefault(key, {})[system] = dict(zip(("precision", "recall", "f1"), prf(c)))
        with open(json_path, "w") as f:
            json.dump(summary, f, indent=1)
    if markdown_path:
        with open(markdown_path, "w") as f:
            for title, entries in rows:
                f.write(f"{title}: frame F1 (best of each row in bold)\n\n")
                f.write("| condition | " + " | ".join(systems) + " |\n")
                f.write("|---|" + "---:|" * len(systems) + "\n")
                for label, key in entries:
                    values = [prf(table[(key, s)])[2] for s in systems]
                    top = max(values)
                    cells = [f"**{v:.3f}**" if v == top else f"{v:.3f}" for v in values]
                    f.write(f"| {label} | " + " | ".join(cells) + " |\n")
                f.write("\n")


def main(argv):
    if len(argv) in (3, 5) and argv[0] == "make":
        if len(argv) == 5 and (argv[3] != "--calls" or not argv[4].isdigit() or not 1 <= int(argv[4]) <= CALLS):
            print(__doc__, file=sys.stderr)
            return 64
        make(argv[1], argv[2], int(argv[4]) if len(argv) == 5 else CALLS)
    elif len(argv) >= 2 and argv[0] == "eval":
        ours, silero, json_path, markdown_path = [], False, None, None
        rest = argv[2:]
        while rest:
            if rest[0] == "--ours" and len(rest) > 1 and "=" in rest[1]:
                ours.append(tuple(rest[1].split("=", 1)))
                rest = rest[2:]
            elif rest[0] == "--silero":
                silero, rest = True, rest[1:]
            elif rest[0] == "--json" and len(rest) > 1:
                json_path, rest = rest[1], rest[2:]
            elif rest[0] == "--markdown" and len(rest) > 1:
                markdown_path, rest = rest[1], rest[2:]
            else:
                print(__doc__, file=sys.stderr)
                return 64
        evaluate(argv[1], ours, silero, json_path, markdown_path)
    else:
        print(__doc__, file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
