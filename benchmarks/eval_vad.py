"""benchmarks/eval_vad.py: unseen test audio and frame scoring for benchmarks/eval_vad.sh.

  eval_vad.py make FIXTURES OUT [--calls N] [--sentences K]
      writes OUT/real/*.wav (the labelled recordings of FIXTURES/vad_labels.tsv, as they are),
      OUT/calls/<call>_<condition>.wav (synthetic calls) and OUT/manifest.json
  eval_vad.py eval OUT [--ours LABEL=DIR]... [--silero] [--markdown FILE]
      scores each --ours (`audiograph run --events jsonl` output, DIR/<name>.jsonl), py-webrtcvad modes 0-3 and
      (with --silero) the Python silero-vad package, per set and condition

Synthetic calls (deterministic: espeak-ng is, and the noise has fixed seeds): K sentences a call from
benchmarks/eval/*.txt (written for evaluation; nothing was tuned on them), each in its own espeak-ng voice and
speed, at its own level (-8 ... +4 dB), with 0.8-2.5 s of silence between them. Reference labels: each
sentence from its first to its last sample above -60 dBFS (one segment a sentence, as vad_labels.tsv labels the
recordings). Conditions: clean, and white, pink and babble noise at 20, 10, 5 and 0 dB SNR (active speech power
over noise power); the babble is six streams of espeak-ng voices reading the other calls' sentences.

Scoring as benchmarks/vad_eval.py: 10 ms frames, precision, recall and F1 of the speech class pooled over the
condition's files.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vad_eval as V  # noqa: E402

RATE = V.RATE
VOICES = ["en-us+m3", "en-gb+f2", "en-us+f4", "en+m7", "en-sc+m2", "en-us+f2", "en-gb-x-rp+m4", "en-us+m1"]
SPEEDS = [130, 150, 170, 185]
NOISES = ["white", "pink", "babble"]
SNRS = [20, 10, 5, 0]


def sentences(root):
    texts = []
    for name in ["meeting.txt", "numbers.txt", "names.txt", "call.txt"]:
        with open(os.path.join(root, "benchmarks", "eval", name)) as f:
            texts += [line.strip() for line in f if line.strip() and not line.startswith("#")]
    return texts


def speak(text, voice, speed, tmp):
    wav = os.path.join(tmp, "s.wav")
    out = os.path.join(tmp, "r.wav")
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", wav, text], check=True)
    subprocess.run(["sox", "-R", wav, "-r", str(RATE), "-c", "1", "-b", "16", out], check=True)
    x, _ = V.read_wav(out)
    loud = np.nonzero(np.abs(x) > 1e-3)[0]
    return x[loud[0]:loud[-1] + 1] if len(loud) else x


def make(fixtures, out, calls=4, per_call=8):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    texts = sentences(root)
    os.makedirs(os.path.join(out, "real"), exist_ok=True)
    os.makedirs(os.path.join(out, "calls"), exist_ok=True)
    files = []
    labels = V.read_labels(fixtures)
    for name in V.LABELLED_REAL:
        x, rate = V.read_wav(os.path.join(fixtures, name + ".wav"))
        path = os.path.join(out, "real", name + ".wav")
        V.write_wav(path, x, rate)
        files.append({"name": name, "set": "real", "condition": "clean", "path": path,
                      "seconds": len(x) / rate, "labels": labels[name]})
    rng = np.random.default_rng(16)
    with tempfile.TemporaryDirectory() as tmp:
        spoken = []  # (call, audio)
        for i in range(calls * per_call):
            text = texts[i % len(texts)]
            spoken.append((i // per_call, speak(text, VOICES[i % len(VOICES)], SPEEDS[(i // 3) % len(SPEEDS)], tmp)))
        for call in range(calls):
            pieces, segments, t = [], [], 0.0
            gap = np.zeros(int(rng.uniform(0.8, 2.5) * RATE))
            pieces.append(gap)
            t += len(gap) / RATE
            for owner, audio in spoken:
                if owner != call:
                    continue
                audio = audio * 10 ** (rng.uniform(-8, 4) / 20) * 0.3 / (np.sqrt(np.mean(audio ** 2)) + 1e-12)
                pieces.append(audio)
                segments.append((t, t + len(audio) / RATE))
                t += len(audio) / RATE
                gap = np.zeros(int(rng.uniform(0.8, 2.5) * RATE))
                pieces.append(gap)
                t += len(gap) / RATE
            clean = np.concatenate(pieces)
            n = len(clean)
            ref = V.frames_from_segments(segments, n // int(RATE * V.FRAME))
            speech = np.repeat(ref, int(RATE * V.FRAME))
            active = np.mean(clean[:len(speech)][speech] ** 2)
            others = [a for owner, a in spoken if owner != call] or [a for _, a in spoken]
            noises = {"white": rng.standard_normal(n), "pink": V.pink_noise(n, rng),
                      "babble": V.babble_noise(n, rng, others)}
            conditions = [("clean", clean)]
            for kind in NOISES:
                noise = noises[kind] / np.sqrt(np.mean(noises[kind] ** 2))
                for snr in SNRS:
                    conditions.append((f"{kind}{snr}", clean + noise * np.sqrt(active / 10 ** (snr / 10))))
            for condition, x in conditions:
                name = f"call{call + 1}_{condition}"
                path = os.path.join(out, "calls", name + ".wav")
                V.write_wav(path, x)
                files.append({"name": name, "set": "calls", "condition": condition, "path": path,
                              "seconds": n / RATE, "labels": segments})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"files": files}, f, indent=1)


def snr_of(condition):
    return "clean" if condition == "clean" else condition.lstrip("abcdefghijklmnopqrstuvwxyz") + " dB"


def evaluate(out, ours, silero, markdown):
    files = json.load(open(os.path.join(out, "manifest.json")))["files"]
    systems = [label for label, _ in ours] + [f"webrtc{m}" for m in range(4)] + (["silero-vad (python)"] if silero else [])
    model = V.Silero() if silero else None
    groups = {}
    for f in files:
        x, _ = V.read_wav(f["path"])
        n = int(round(f["seconds"] / V.FRAME))
        ref = V.frames_from_segments(f["labels"], n)
        key = "real recordings" if f["set"] == "real" else "calls " + snr_of(f["condition"])
        hyps = {}
        for label, folder in ours:
            hyps[label] = V.frames_from_segments(V.read_events(os.path.join(folder, f["name"] + ".jsonl")), n)
        for mode in range(4):
            decisions, step = V.webrtc_frames(x, mode)
            hyps[f"webrtc{mode}"] = V.resample_decisions(decisions, step, n)
        if model:
            hyps["silero-vad (python)"] = V.frames_from_segments(V.silero_segments(model.probabilities(x), len(x)), n)
        g = groups.setdefault(key, {s: np.zeros(3, dtype=np.int64) for s in systems})
        for s in systems:
            g[s] += V.counts(ref, hyps[s])
    order = ["real recordings", "calls clean"] + [f"calls {snr} dB" for snr in SNRS]
    rows = [k for k in order if k in groups]
    lines = ["| set | " + " | ".join(systems) + " |", "|---|" + "---|" * len(systems)]
    for k in rows:
        lines.append(f"| {k} | " + " | ".join(f"{V.prf(groups[k][s])[2]:.3f}" for s in systems) + " |")
    table = "\n".join(lines)
    print("Frame F1 (10 ms frames; each SNR row pools white, pink and babble noise):")
    print(table)
    if markdown:
        with open(markdown, "w") as f:
            f.write(table + "\n")
    # Targets
    first = ours[0][0] if ours else None
    if first and silero:
        silero_ours = [label for label, _ in ours if "silero" in label]
        for label in silero_ours:
            worst = max(abs(V.prf(groups[k][label])[2] - V.prf(groups[k]["silero-vad (python)"])[2]) for k in rows)
            print(f"{label} vs silero-vad (python): largest F1 difference {worst:.3f}; target <= 0.01: "
                  + ("met" if worst <= 0.01 else "NOT met"))
    for label, _ in ours:
        behind = [k for k in rows if k.startswith("calls ") and k != "calls clean"
                  and V.prf(groups[k][label])[2] <= max(V.prf(groups[k][f"webrtc{m}"])[2] for m in range(4))]
        print(f"{label} ahead of every webrtcvad mode at every SNR: " + ("yes" if not behind else "no (" + ", ".join(behind) + ")"))


def main(argv):
    if len(argv) >= 3 and argv[0] == "make":
        calls = int(argv[argv.index("--calls") + 1]) if "--calls" in argv else 4
        per_call = int(argv[argv.index("--sentences") + 1]) if "--sentences" in argv else 8
        make(argv[1], argv[2], calls, per_call)
        return 0
    if len(argv) >= 2 and argv[0] == "eval":
        ours, silero, markdown, i = [], False, None, 2
        while i < len(argv):
            if argv[i] == "--ours":
                label, folder = argv[i + 1].split("=", 1)
                ours.append((label, folder))
                i += 2
            elif argv[i] == "--silero":
                silero, i = True, i + 1
            elif argv[i] == "--markdown":
                markdown, i = argv[i + 1], i + 2
            else:
                raise SystemExit(f"unknown argument {argv[i]}")
        evaluate(argv[1], ours, silero, markdown)
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
