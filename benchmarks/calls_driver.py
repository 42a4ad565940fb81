#!/usr/bin/env python3
"""benchmarks/calls_driver.py: the call benchmark's audio, sender and scoring (used by benchmarks/calls.sh).

  make  --participants N --seconds S --out DIR [--seed K]
        A call of N espeak-ng voices taking turns (sentences of benchmarks/eval/heldout, which nothing is tuned
        on), about 10 % of turns starting before the previous one ended. Writes DIR/pK.raw (s16le 16 kHz mono,
        the whole call, silence and a -55 dBFS noise floor where pK is quiet), DIR/pK.wav, and DIR/script.tsv:
        participant, start s, end s, overlapped (0/1), text.
  send  --base http://HOST:PORT --session ID --tokens FILE --dir DIR --out FILE.json
        Opens the session's caption stream (SSE) as the first token's user, then every participant's WebSocket
        at once, and sends each pK.raw at 1x in 20 ms messages (a real RFC 6455 client: python3-websockets).
        Records when each final arrived. FILE: participant<TAB>token per line.
  score --dir DIR --result FILE.json
        One line of numbers: finals, end of speech -> final (median, p95, seconds), words on the right speaker
        outside overlaps (%), reference words recognized (%), the senders' worst lag behind 1x (s).
"""
import argparse
import asyncio
import json
import random
import statistics
import struct
import subprocess
import sys
import time
import wave
from pathlib import Path

RATE = 16000
VOICES = ["en-us+m3", "en-gb+f2", "en-029+m1", "en-us+f4", "en-gb-x-rp+m4", "en-us-nyc+f1", "en+m2", "en-gb+f3"]
SPEEDS = [160, 175, 150, 185, 165, 170, 155, 180]


def sentences(root):
    found = []
    for path in sorted((root / "benchmarks/eval/heldout").glob("*.txt")):
        found += [line.strip() for line in path.read_text().splitlines() if line.strip()]
    return found


def speak(text, voice, speed, work):
    """16 kHz mono int16 samples of espeak-ng saying text."""
    raw = work / "say.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(work / "say22.wav"), text], check=True)
    subprocess.run(["sox", str(work / "say22.wav"), "-r", str(RATE), "-c", "1", "-b", "16", str(raw)], check=True)
    with wave.open(str(raw)) as f:
        data = f.readframes(f.getnframes())
    return list(struct.unpack("<%dh" % (len(data) // 2), data))


def make(args):
    root = Path(__file__).resolve().parent.parent
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    texts = sentences(root)
    n = args.participants
    turns = []  # (participant, start, samples, text)
    t = 1.0
    previous = None
    index = 0
    while t < args.seconds - 2:
        speaker = rng.randrange(n) if n > 1 else 0
        if n > 1:
            while speaker == previous:
                speaker = rng.randrange(n)
        text = texts[index % len(texts)]
        index += 1
        samples = speak(text, VOICES[speaker % len(VOICES)], SPEEDS[speaker % len(SPEEDS)], out)
        seconds = len(samples) / RATE
        if t + seconds > args.seconds - 0.5:
            break
        turns.append([speaker, t, samples, text, 0])
        previous = speaker
        overlap = n > 1 and rng.random() < 0.1
        gap = -min(0.8, 0.3 * seconds) if overlap else rng.uniform(0.4, 1.2)
        t = t + seconds + gap
    # Mark both turns of each overlap.
    for i in range(len(turns) - 1):
        a, b = turns[i], turns[i + 1]
        if b[1] < a[1] + len(a[2]) / RATE:
            a[4] = b[4] = 1
    total = int(args.seconds * RATE)
    noise = random.Random(args.seed + 1)
    floor = 32768 * 10 ** (-55 / 20)
    for p in range(n):
        track = [int(noise.gauss(0, floor)) for _ in range(total)]
        for speaker, start, samples, _, _ in turns:
            if speaker != p:
                continue
            offset = int(start * RATE)
            for i, s in enumerate(samples[: total - offset]):
                track[offset + i] = max(-32768, min(32767, track[offset + i] + s))
        data = struct.pack("<%dh" % total, *track)
        (out / f"p{p + 1}.raw").write_bytes(data)
        with wave.open(str(out / f"p{p + 1}.wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(RATE)
            w.writeframes(data)
    with open(out / "script.tsv", "w") as f:
        for speaker, start, samples, text, overlapped in turns:
            f.write(f"p{speaker + 1}\t{start:.3f}\t{start + len(samples) / RATE:.3f}\t{overlapped}\t{text}\n")
    for name in ("say.wav", "say22.wav"):
        (out / name).unlink(missing_ok=True)


async def captions(base, session, token, finals, t0_box, ready):
    host, port = base.split("//")[1].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write((f"GET /v1/sessions/{session}/captions HTTP/1.0\r\nHost: {host}\r\n"
                  f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n").encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n")[0]:
        raise SystemExit(f"captions: {head.decode(errors='replace')}")
    ready.set()
    buffer = b""
    try:
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                return
            buffer += chunk
            while b"\n\n" in buffer:
                event, buffer = buffer.split(b"\n\n", 1)
                for line in event.split(b"\n"):
                    # HTTP/1.0: no chunked framing; only data lines are JSON.
                    if line.startswith(b"data: "):
                        try:
                            payload = json.loads(line[6:])
                        except ValueError:
                            continue
                        if isinstance(payload, dict) and payload.get("type") == "final" and t0_box:
                            payload["arrived"] = time.monotonic() - t0_box[0]
                            finals.append(payload)
    finally:
        writer.close()


async def sender(base, session, participant, token, raw, t0, lags):
    import websockets
    url = base.replace("http://", "ws://") + f"/v1/sessions/{session}/participants/{participant}/audio?sampleRate={RATE}"
    data = raw.read_bytes()
    step = RATE // 50 * 2
    async with websockets.connect(url, extra_headers={"Authorization": f"Bearer {token}"}, max_size=None,
                                  ping_interval=None, open_timeout=30, close_timeout=120) as ws:
        worst = 0.0
        for k, offset in enumerate(range(0, len(data), step)):
            due = t0 + (k + 1) * 0.02  # a message goes when its 20 ms have been "spoken"
            now = time.monotonic()
            if due > now:
                await asyncio.sleep(due - now)
            else:
                worst = max(worst, now - due)
            await ws.send(data[offset:offset + step])
        lags[participant] = worst


async def send_all(args):
    tokens = [line.split("\t") for line in Path(args.tokens).read_text().splitlines() if line]
    finals = []
    t0_box = []
    ready = asyncio.Event()
    viewer = asyncio.create_task(captions(args.base, args.session, tokens[0][1], finals, t0_box, ready))
    await asyncio.wait_for(ready.wait(), 30)
    t0 = time.monotonic() + 0.5
    t0_box.append(t0)
    lags = {}
    await asyncio.gather(*(sender(args.base, args.session, p, tok, Path(args.dir) / f"{p}.raw", t0, lags)
                           for p, tok in tokens))
    sent = time.monotonic() - t0
    # Finals of the last sentences: wait until every participant's last turn has one, or 20 s.
    script = read_script(Path(args.dir))
    last_end = {p: max(t["end"] for t in script if t["p"] == p) for p in {t["p"] for t in script}}
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if all(any(f.get("speaker") == p and f.get("end", 0) >= end - 1.5 for f in finals) for p, end in last_end.items()):
            break
        await asyncio.sleep(0.2)
    viewer.cancel()
    Path(args.out).write_text(json.dumps({"finals": finals, "lags": lags, "sent": sent}))


def read_script(folder):
    turns = []
    for line in (folder / "script.tsv").read_text().splitlines():
        p, start, end, overlapped, text = line.split("\t")
        turns.append({"p": p, "start": float(start), "end": float(end), "overlapped": overlapped == "1", "text": text})
    return turns


def words(text):
    return [w.strip(".,?!;:'\"").lower() for w in text.split() if w.strip(".,?!;:'\"")]


def score(args):
    turns = read_script(Path(args.dir))
    result = json.loads(Path(args.result).read_text())
    finals = result["finals"]
    latencies = []
    for turn in turns:
        mine = [f for f in finals if f.get("speaker") == turn["p"]
                and f.get("start", 0) < turn["end"] + 0.5 and f.get("end", 0) > turn["start"]]
        if mine:
            last = max(mine, key=lambda f: f.get("end", 0))
            latencies.append(last["arrived"] - turn["end"])
    right = total = 0
    for final in finals:
        overlapping = [t for t in turns if t["start"] - 0.3 < final.get("end", 0) and t["end"] + 0.5 > final.get("start", 0)]
        if not overlapping or any(t["overlapped"] for t in overlapping):
            continue
        n = len(words(final.get("text", "")))
        total += n
        if any(t["p"] == final.get("speaker") for t in overlapping):
            right += n
    hits = refs = 0
    for p in {t["p"] for t in turns}:
        reference = [w for t in turns if t["p"] == p for w in words(t["text"])]
        hypothesis = [w for f in finals if f.get("speaker") == p for w in words(f.get("text", ""))]
        refs += len(reference)
        pool = {}
        for w in hypothesis:
            pool[w] = pool.get(w, 0) + 1
        for w in reference:
            if pool.get(w, 0) > 0:
                pool[w] -= 1
                hits += 1
    latencies.sort()
    median = statistics.median(latencies) if latencies else float("nan")
    p95 = latencies[min(len(latencies) - 1, int(round(0.95 * (len(latencies) - 1))))] if latencies else float("nan")
    lag = max(result["lags"].values()) if result["lags"] else 0.0
    print(f"{len(finals)} {len(latencies)} {len(turns)} {median:.3f} {p95:.3f} "
          f"{100 * right / total if total else float('nan'):.1f} {100 * hits / refs if refs else float('nan'):.1f} {lag:.3f}")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("--participants", type=int, required=True)
    m.add_argument("--seconds", type=float, required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--seed", type=int, default=7)
    s = sub.add_parser("send")
    for name in ("--base", "--session", "--tokens", "--dir", "--out"):
        s.add_argument(name, required=True)
    c = sub.add_parser("score")
    c.add_argument("--dir", required=True)
    c.add_argument("--result", required=True)
    args = parser.parse_args()
    if args.command == "make":
        make(args)
    elif args.command == "send":
        asyncio.run(send_all(args))
    else:
        score(args)


if __name__ == "__main__":
    sys.exit(main())
