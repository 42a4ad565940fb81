#!/usr/bin/env python3
"""Configs, event parsing and the report of benchmarks/whisper.sh (python3 standard library only).

Subcommands (whisper.sh calls them; -h for the arguments):
  config    writes a pipeline: file-source [realtime] -> resampler (16 kHz mono) -> vad -> recognizer -> caption
            sink(s), for one engine (whisper or pocketsphinx)
  speed     medians of the timed runs on the call (wall, CPU, peak memory) and each job's WER
  realtime  reads one paced run's `--events jsonl` + `--stats json` output: speech end -> final latency, partials
            during every utterance longer than 2 s, dropped audio and full-queue waits, the captions' WER
  report    the side-by-side tables and the targets, from the JSON files whisper.sh wrote; writes the summary
"""
import argparse
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speech_eval import read_text  # noqa: E402
from wer import errors, paired, paired_verdict, read_references  # noqa: E402

SYSTEMS = ["ag-whisper", "ag-pocketsphinx", "whisper-cli", "whisper-cli-nt", "ps-continuous"]
# Issue 16's pairs: ours against the tool a user would pick instead, on the same clips in the same run.
PAIRS = [("ag-whisper", "whisper-cli"), ("ag-pocketsphinx", "ps-continuous")]
# The sets of unseen speech, pooled by condition (the part of the set's name after its last "-").
UNSEEN_PREFIXES = ("unseen-", "devpauses-", "heldout-")


def cmd_config(args):
    recognizer = {"type": "recognizer", "engine": args.engine}
    if args.engine == "whisper" and args.model:
        recognizer["model"] = args.model
    source = {"type": "file-source", "path": args.input}
    if args.realtime:
        source["realtime"] = True
    nodes = {"src": source, "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
             "vad": {"type": "vad"}, "asr": recognizer}
    links = []
    for i, spec in enumerate(args.sink):
        fmt, path = spec.split(":", 1)
        sink_id = f"cc{i + 1}"
        nodes[sink_id] = {"type": "caption-sink", "format": fmt, "path": path}
        links.append(f"src -> rs -> vad -> asr -> {sink_id}" if i == 0 else f"asr -> {sink_id}")
    config = {"version": 1, "session": {"autoStartTranscription": True}, "nodes": nodes, "links": links}
    with open(args.out, "w") as f:
        json.dump(config, f, indent=1)


def nearest_rank(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def cmd_speed(args):
    """Records "job run wall_ns peak_kb user_s sys_s output" (one a line) -> medians, peak, WER of the last run."""
    refs = read_references(args.refs)
    reference = " ".join(refs.values())
    runs = {}
    with open(args.records) as f:
        for line in f:
            job, run, wall_ns, peak_kb, user, sys_, output = line.rstrip("\n").split("\t")
            runs.setdefault(job, []).append(dict(wall=int(wall_ns) / 1e9, rss=int(peak_kb) / 1024,
                                                 cpu=float(user) + float(sys_), output=output))
    jobs = {}
    for job, rs in runs.items():
        e, w = errors(reference, read_text(rs[-1]["output"]) or "")
        jobs[job] = dict(wall=statistics.median_low([r["wall"] for r in rs]),
                         cpu=statistics.median_low([r["cpu"] for r in rs]), rss_mb=max(r["rss"] for r in rs),
                         walls=sorted(r["wall"] for r in rs), wer=e / w if w else 0.0, errors=e, words=w)
    with open(args.json, "w") as f:
        json.dump({"seconds": args.seconds, "repeats": args.repeats, "jobs": jobs}, f, indent=1)


def cmd_realtime(args):
    events = []
    stats = None
    with open(args.events, errors="replace") as f:
        for line in f:
            if not line.startswith("{"):
                continue
            e = json.loads(line)
            if e.get("type") == "stats":
                stats = e
            else:
                events.append(e)
    finals = [e for e in events if e.get("type") == "transcript" and e.get("final")]
    partials = [e for e in events if e.get("type") == "transcript" and not e.get("final")]
    latency = [e for e in events if e.get("type") == "latency"]
    end_to_final = [e["speechEndToFinal"] for e in latency if "speechEndToFinal" in e]
    first_partial = [e["firstPartial"] for e in latency if "firstPartial" in e]
    # Utterances longer than 2 s (the reference sentences of the call, by their times in the file): each must
    # have had a partial while it was spoken, i.e. a partial whose audio ended before the sentence did.
    long_utterances, covered = [], []
    with open(args.utterances) as f:
        for line in f:
            start, end, text = line.rstrip("\n").split("\t", 2)
            start, end = float(start), float(end)
            if end - start > 2.0:
                long_utterances.append((start, end, text))
                during = [p for p in partials if p.get("end", 0) > start and p.get("end", 0) < end]
                covered.append(bool(during))
    dropped = full_waits = 0
    if stats:
        for node in stats.get("nodes", {}).values():
            dropped += node.get("dropped", 0) or 0
            full_waits += (node.get("queue") or {}).get("fullWaits", 0) or 0
    refs = read_references(args.refs)
    text = " ".join(e.get("text", "") for e in finals)
    e, w = errors(" ".join(refs.values()), text)
    out = {"finals": len(finals), "partials": len(partials),
           "speech_end_to_final_median": statistics.median(end_to_final) if end_to_final else None,
           "speech_end_to_final_p95": nearest_rank(end_to_final, 0.95),
           "first_partial_median": statistics.median(first_partial) if first_partial else None,
           "long_utterances": len(long_utterances), "long_utterances_with_partials": sum(covered),
           "long_utterances_without": [t for (_, _, t), c in zip(long_utterances, covered) if not c],
           "dropped": dropped, "full_waits": full_waits, "stats_found": stats is not None,
           "wer": e / w if w else 0.0, "errors": e, "words": w, "wall": stats.get("wallSeconds") if stats else None}
    with open(args.json, "w") as f:
        json.dump(out, f, indent=1)
    if not finals:
        sys.exit(f"whisper_eval.py realtime: no finals in {args.events}")


def load(path):
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return None


def fmt(x, spec, dash="-"):
    return dash if x is None else format(x, spec)


def verdict(ok):
    return "met" if ok else "NOT met"


def pair_rows(wer):
    """(label, ours, theirs, ours' errors per clip, theirs') for every set where both systems of a pair gave
    output, then each condition pooled over the unseen sets ("all unseen clean", …)."""
    rows = []
    for ours, theirs in PAIRS:
        pooled = {}
        for name, systems in wer.items():
            a, b = systems.get(ours), systems.get(theirs)
            if not a or not b or len(a["missing"]) == len(a["clips"]) or len(b["missing"]) == len(b["clips"]):
                continue
            clips = sorted(a["clips"])
            rows.append((name, ours, theirs, [a["clips"][c] for c in clips], [b["clips"][c] for c in clips]))
            if name.startswith(UNSEEN_PREFIXES):
                condition = name.rsplit("-", 1)[1]
                into = pooled.setdefault(condition, ([], []))
                into[0].extend(a["clips"][c] for c in clips)
                into[1].extend(b["clips"][c] for c in clips)
        for condition, (a, b) in pooled.items():
            rows.append((f"all unseen {condition}", ours, theirs, a, b))
    return rows


def report_pairs(summary):
    """Issue 16's comparisons: ours - theirs in errors per set, with a 95 % bootstrap interval over clips."""
    rows = pair_rows(summary["wer"])
    if not rows:
        return
    summary["pairs"] = []
    print("== Pairs: ours - theirs in errors (negative: ours made fewer), 95 % bootstrap interval over clips "
          "(wer.py paired); clips better / worse / tied")
    print(f"{'set':<24} {'ours':<16} {'theirs':<14} {'difference':>10} {'interval':>12}  {'clips':<9} verdict")
    for name, ours, theirs, a, b in rows:
        r = paired(a, b)
        verdict = paired_verdict(r)
        summary["pairs"].append({"set": name, "ours": ours, "theirs": theirs, "clips": len(a)} | r
                                | {"verdict": verdict, "at_most_theirs": r["difference"] <= 0})
        print(f"{name:<24} {ours:<16} {theirs:<14} {r['difference']:>+10d} {'[%+d, %+d]' % (r['low'], r['high']):>12}  "
              f"{'%d/%d/%d' % (r['better'], r['worse'], r['ties']):<9} {verdict}")
    print("(ahead / behind: the interval excludes 0; within noise: another set of clips like these could reverse it)")
    print()


def cmd_report(args):
    summary = {"meta": json.loads(args.meta), "wer": {}, "targets": {}}
    print("== WER % (errors/words), numbers written as words (benchmarks/wer.py); lower is better")
    print(f"{'set':<28}" + "".join(f"{s:>18}" for s in SYSTEMS))
    for spec in args.wer:
        name, path = spec.split("=", 1)
        data = load(path)
        if data is None:
            continue
        summary["wer"][name] = {s: {k: data[s][k] for k in ("errors", "words", "wer", "missing")}
                                | {"clips": {c: v["errors"] for c, v in data[s]["clips"].items()}}
                                for s in SYSTEMS if s in data}
        cells = []
        for s in SYSTEMS:
            r = data.get(s)
            if r is None or len(r["missing"]) == len(r["clips"]):
                cells.append("no output")
            else:
                cells.append(f"{100 * r['wer']:.1f} ({r['errors']}/{r['words']})" + ("*" if r["missing"] else ""))
        print(f"{name:<28}" + "".join(f"{c:>18}" for c in cells))
    print("(* = some clips had no output; they count as empty transcripts)")
    print()
    report_pairs(summary)
    fixtures = summary["wer"].get(args.accuracy_set, {}).get("ag-whisper")
    if fixtures and len(fixtures["missing"]) < len(fixtures["clips"]):
        summary["targets"]["accuracy"] = fixtures["wer"] <= 0.05
        print(f"Target, audiograph whisper on the fixture clips (through the VAD) <= 5.0 % WER: "
              f"{100 * fixtures['wer']:.1f} %: {verdict(fixtures['wer'] <= 0.05)}")

    speed = load(args.speed)
    if speed:
        summary["speed"] = speed
        print()
        print(f"== Speed on the 60 s half-silence call ({speed['seconds']:.1f} s), median of {speed['repeats']} "
              f"interleaved runs; peak MB = highest max RSS (GNU time)")
        print(f"{'job':<14} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'WER %':>6}  runs (wall s)")
        for job in ("ag-whisper", "whisper-cli", "whisper-cli-nt"):
            j = speed["jobs"].get(job)
            if not j:
                continue
            print(f"{job:<14} {j['wall']:>7.2f} {j['cpu']:>7.2f} {j['rss_mb']:>8.1f} {100 * j['wer']:>6.1f}  "
                  + " ".join(f"{x:.2f}" for x in j["walls"]))
        ag, cli = speed["jobs"].get("ag-whisper"), speed["jobs"].get("whisper-cli")
        if ag and cli:
            ratio = ag["wall"] / cli["wall"]
            speed["ratio"] = ratio
            wer_ok = ag["wer"] <= cli["wer"] / 2
            summary["targets"]["speed_ratio"] = ratio <= 1.0
            summary["targets"]["speed_wer"] = wer_ok
            summary["targets"]["memory"] = ag["rss_mb"] < 300
            print(f"Target, wall time <= 1.0x whisper-cli's (its default decoding, captions): {ratio:.2f}x: {verdict(ratio <= 1.0)}")
            print(f"Target, WER <= half of whisper-cli's: {100 * ag['wer']:.1f} % vs {100 * cli['wer']:.1f} % "
                  f"(half: {50 * cli['wer']:.1f} %): {verdict(wer_ok)}")
            print(f"Target, peak memory < 300 MB: audiograph {ag['rss_mb']:.1f} MB, whisper-cli "
                  f"{cli['rss_mb']:.1f} MB: {verdict(ag['rss_mb'] < 300)}")
        text_only = speed["jobs"].get("whisper-cli-nt")
        if ag and text_only:
            ratio = ag["wall"] / text_only["wall"]
            speed["ratio_text_only"] = ratio
            print(f"Beside it, whisper-cli -nt (text only, no captions): {ratio:.2f}x its wall time; WER "
                  f"{100 * ag['wer']:.1f} % vs {100 * text_only['wer']:.1f} % (half: {50 * text_only['wer']:.1f} %)")

    rt = load(args.realtime)
    if rt:
        summary["realtime"] = rt
        print()
        print("== Real time: the call paced at 1x (file-source realtime) through the same pipeline")
        print(f"finals {rt['finals']}, partials {rt['partials']}; speech end -> final median "
              f"{fmt(rt['speech_end_to_final_median'], '.3f')} s, p95 {fmt(rt['speech_end_to_final_p95'], '.3f')} s; "
              f"first partial median {fmt(rt['first_partial_median'], '.3f')} s; captions' WER "
              f"{100 * rt['wer']:.1f} % ({rt['errors']}/{rt['words']})")
        median = rt["speech_end_to_final_median"]
        summary["targets"]["latency"] = median is not None and median <= 1.2
        print(f"Target, median speech end -> final <= 1.2 s: {fmt(median, '.3f')} s: "
              f"{verdict(summary['targets']['latency'])}")
        ok = rt["long_utterances"] > 0 and rt["long_utterances_with_partials"] == rt["long_utterances"]
        summary["targets"]["partials"] = ok
        print(f"Target, partials during every utterance longer than 2 s: {rt['long_utterances_with_partials']}/"
              f"{rt['long_utterances']}: {verdict(ok)}"
              + (f" (none during: {'; '.join(rt['long_utterances_without'])})" if rt["long_utterances_without"] else ""))
        ok = rt["stats_found"] and rt["dropped"] == 0 and rt["full_waits"] == 0
        summary["targets"]["no_drops"] = ok
        print(f"Target, no audio dropped: {rt['dropped']} frames dropped, {rt['full_waits']} full-queue waits (a paced "
              f"file source waits where a live one would drop): {verdict(ok)}")
    with open(args.summary, "w") as f:
        json.dump(summary, f, indent=1)
    print()
    print(f"summary: {args.summary}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("config")
    c.add_argument("--out", required=True)
    c.add_argument("--input", required=True)
    c.add_argument("--engine", required=True, choices=["whisper", "pocketsphinx"])
    c.add_argument("--model")
    c.add_argument("--realtime", action="store_true")
    c.add_argument("--sink", action="append", required=True, help="FORMAT:PATH (json, webvtt, srt)")
    c.set_defaults(func=cmd_config)
    sp = sub.add_parser("speed")
    sp.add_argument("--records", required=True)
    sp.add_argument("--refs", required=True)
    sp.add_argument("--seconds", type=float, required=True)
    sp.add_argument("--repeats", type=int, required=True)
    sp.add_argument("--json", required=True)
    sp.set_defaults(func=cmd_speed)
    r = sub.add_parser("realtime")
    r.add_argument("--events", required=True)
    r.add_argument("--utterances", required=True)
    r.add_argument("--refs", required=True)
    r.add_argument("--json", required=True)
    r.set_defaults(func=cmd_realtime)
    t = sub.add_parser("report")
    t.add_argument("--wer", action="append", default=[], help="SET=wer.py score --json file")
    t.add_argument("--accuracy-set", required=True)
    t.add_argument("--speed")
    t.add_argument("--realtime")
    t.add_argument("--meta", default="{}")
    t.add_argument("--summary", required=True)
    t.set_defaults(func=cmd_report)
    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    sys.exit(main())
