#!/usr/bin/env python3
"""Scoring and tables for benchmarks/speech.sh (python3 standard library only).

Subcommands (speech.sh calls them; run with -h for the arguments):
  wer      word error rate of several systems on the fixture clips, with a per-clip table
  speed    median wall time, real-time factor, CPU, peak memory and WER of timed jobs on a long file
  overhead pocketsphinx_batch against our recognizer on the same audio, same decoder work, split into
           pocketsphinx's own decoding time (from its log) and the rest
  targets  the issue's targets, met or not, from the summaries the other subcommands wrote

Hypothesis files are read by extension: .json = caption-sink json (its utterances' texts), .vtt = WebVTT cue
text, .hyp = pocketsphinx_batch -hyp output ("text (id score)" per line), anything else = plain text
(pocketsphinx_continuous stdout: one utterance per line).

Normalization before scoring: lowercase, "mister" -> "mr" (the en-us LM writes "mr"), fillers such as
<sil>, [noise] and ++garbage++ dropped, alternate-pronunciation marks dropped (word(2) -> word), every
character other than a-z, 0-9 and the apostrophe treated as a space.
"""
import argparse
import json
import os
import re
import statistics
import sys


# --------------------------------------------------------------------------------------------------------
# Text

def normalize(text):
    words = []
    for token in text.lower().split():
        if token.startswith(("<", "[", "++")):
            continue
        token = re.sub(r"\(\d+\)$", "", token)
        for word in re.sub(r"[^a-z0-9']+", " ", token).split():
            words.append("mr" if word == "mister" else word)
    return words


def read_references(path):
    refs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            clip, text = line.split("\t", 1)
            refs[clip] = normalize(text)
    return refs


def read_batch_hyp(path):
    """pocketsphinx_batch -hyp: 'words (id score)' per line -> {id: text}."""
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^(.*?)\s*\((\S+)(?:\s+-?\d+)?\)\s*$", line.rstrip("\n"))
            if m:
                out[m.group(2)] = m.group(1)
    return out


def read_text(path):
    """The recognized text of one output file (see the module doc)."""
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        data = f.read()
    if path.endswith(".json"):
        doc = json.loads(data)
        return " ".join(u.get("text", "") for u in doc.get("utterances", []))
    if path.endswith(".vtt"):
        lines = []
        for block in data.split("\n\n"):
            rows = [r for r in block.strip().split("\n") if r.strip()]
            if not rows or rows[0].startswith("WEBVTT"):
                continue
            timing = next((i for i, r in enumerate(rows) if "-->" in r), None)
            if timing is None:
                continue
            lines.extend(rows[timing + 1:])
        return " ".join(lines)
    if path.endswith(".hyp"):
        return " ".join(read_batch_hyp(path).values())
    return " ".join(data.split("\n"))


def edit_counts(ref, hyp):
    """(substitutions, deletions, insertions) of a minimum-edit alignment of hyp to ref."""
    n, m = len(ref), len(hyp)
    # cost, subs, dels, ins
    prev = [(j, 0, 0, j) for j in range(m + 1)]
    for i in range(1, n + 1):
        cur = [(i, 0, i, 0)]
        for j in range(1, m + 1):
            c, s, d, k = prev[j - 1]
            best = (c, s, d, k) if ref[i - 1] == hyp[j - 1] else (c + 1, s + 1, d, k)
            c, s, d, k = prev[j]
            if c + 1 < best[0]:
                best = (c + 1, s, d + 1, k)
            c, s, d, k = cur[j - 1]
            if c + 1 < best[0]:
                best = (c + 1, s, d, k + 1)
            cur.append(best)
        prev = cur
    _, s, d, k = prev[m]
    return s, d, k


def pct(x):
    return f"{100 * x:.1f}"


# --------------------------------------------------------------------------------------------------------
# wer

def cmd_wer(args):
    refs = read_references(args.refs)
    clips = list(refs)
    total_words = sum(len(refs[c]) for c in clips)
    systems = []  # (name, description, {clip: words or None})
    for spec in args.system:
        name, source, description = spec.split("=", 2)
        hyps = {}
        if source.endswith(".hyp"):
            batch = read_batch_hyp(source) if os.path.exists(source) else {}
            for c in clips:
                hyps[c] = normalize(batch[c]) if c in batch else None
        else:
            folder, ext = source.rsplit(":", 1)
            for c in clips:
                text = read_text(os.path.join(folder, f"{c}.{ext}"))
                hyps[c] = None if text is None else normalize(text)
        systems.append((name, description, hyps))

    summary = {"words": total_words, "systems": {}}
    print(f"{len(clips)} clips, {total_words} reference words (lowercase, mister -> mr)")
    print(f"{'system':<18} {'errors/words':>12} {'WER %':>6} {'sub':>4} {'del':>4} {'ins':>4}  missing  what")
    per_clip = {}
    for name, description, hyps in systems:
        s = d = k = 0
        missing = [c for c in clips if hyps[c] is None]
        per_clip[name] = {}
        for c in clips:
            cs, cd, ck = edit_counts(refs[c], hyps[c] or [])
            per_clip[name][c] = cs + cd + ck
            s, d, k = s + cs, d + cd, k + ck
        errors = s + d + k
        summary["systems"][name] = {"errors": errors, "wer": errors / total_words, "missing": missing}
        print(f"{name:<18} {f'{errors}/{total_words}':>12} {pct(errors / total_words):>6} {s:>4} {d:>4} {k:>4}  "
              f"{len(missing):>7}  {description}")
    print()
    print("errors per clip (reference words in brackets)")
    names = [n for n, _, _ in systems]
    print(f"{'clip':<22}" + "".join(f"{n:>13}" for n in names))
    for c in clips:
        print(f"{c + f' [{len(refs[c])}]':<22}" + "".join(f"{per_clip[n][c]:>13}" for n in names))
    for a, b in args.same or []:
        ha = dict(next(h for n, _, h in systems if n == a))
        hb = dict(next(h for n, _, h in systems if n == b))
        differ = [c for c in clips if ha[c] != hb[c]]
        print(f"finals of {a} and {b}: " + ("identical on every clip" if not differ
                                             else "differ on " + ", ".join(differ)))
        summary.setdefault("same", {})[f"{a}|{b}"] = not differ
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(summary, f, indent=1)


# --------------------------------------------------------------------------------------------------------
# speed / overhead

def read_records(path):
    """TSV rows written by speech.sh: file job run rc wall user sys maxrss_kb output [stderr log]."""
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 9:
                continue
            file, job, run, rc, wall, user, sys_, rss, output = parts[:9]
            log = parts[9] if len(parts) > 9 else ""
            rows.append(dict(file=file, job=job, run=int(run), rc=int(rc), wall=float(wall),
                             cpu=float(user) + float(sys_), rss=int(rss), output=output,
                             search=search_seconds(log)))
    return rows


def search_seconds(log):
    """pocketsphinx's own decoding time, from its log: the sum of the wall seconds of its fwdtree, fwdflat and
    bestpath timers (the TOTAL lines it prints when a decoder is freed); None without such lines. The fwdtree
    timer runs from ps_start_utt to ps_end_utt, so feature extraction and acoustic scoring are in it; fwdflat
    and bestpath run after it, one after the other. Model loading is not."""
    if not log or not os.path.exists(log):
        return None
    total, found = 0.0, False
    with open(log, errors="replace") as f:
        for line in f:
            m = re.search(r"TOTAL (fwdtree|fwdflat|bestpath) ([0-9.]+) wall", line)
            if m:
                total += float(m.group(2))
                found = True
    return total if found else None


def job_stats(rows, file, job):
    runs = [r for r in rows if r["file"] == file and r["job"] == job]
    ok = [r for r in runs if r["rc"] == 0]
    if not ok:
        return None
    searches = [r["search"] for r in ok if r["search"] is not None]
    outsides = [r["wall"] - r["search"] for r in ok if r["search"] is not None]
    return dict(wall=statistics.median(r["wall"] for r in ok), cpu=statistics.median(r["cpu"] for r in ok),
                search=statistics.median(searches) if searches else None,
                outside=statistics.median(outsides) if outsides else None,
                rss=max(r["rss"] for r in ok) / 1024, runs=len(runs), failed=len(runs) - len(ok),
                walls=sorted(r["wall"] for r in ok), output=ok[-1]["output"])


def file_reference(refs_path, passes):
    refs = read_references(refs_path)
    return [w for _ in range(passes) for c in refs for w in refs[c]]


def wer_of(output, ref):
    text = read_text(output) if output else None
    if text is None:
        return None
    s, d, k = edit_counts(ref, normalize(text))
    return (s + d + k) / len(ref)


def cmd_speed(args):
    rows = read_records(args.records)
    ref = file_reference(args.refs, args.passes)
    summary = {}
    if os.path.exists(args.summary or ""):
        with open(args.summary) as f:
            summary = json.load(f)
    for spec in args.file:
        file, seconds, title = spec.split("=", 2)
        seconds = float(seconds)
        print(f"-- {file}: {title}, {seconds:.1f} s of audio")
        print(f"{'job':<16} {'wall s':>7} {'RTF':>6} {'ours/cont':>9} {'cpu s':>6} {'cpu o/c':>7} {'peak MB':>8} "
              f"{'WER %':>6}  runs (wall s)")
        base = job_stats(rows, file, args.baseline)
        summary.setdefault("speed", {})[file] = {"seconds": seconds}
        for job in args.jobs.split(","):
            st = job_stats(rows, file, job)
            if st is None:
                print(f"{job:<16} all runs failed")
                continue
            ratio = st["wall"] / base["wall"] if base and job != args.baseline else None
            cpu_ratio = st["cpu"] / base["cpu"] if base and job != args.baseline else None
            w = wer_of(st["output"], ref)
            runs = " ".join(f"{x:.2f}" for x in st["walls"]) + (f" ({st['failed']} FAILED)" if st["failed"] else "")
            print(f"{job:<16} {st['wall']:>7.2f} {st['wall'] / seconds:>6.3f} "
                  f"{(f'{ratio:.2f}' if ratio else '-'):>9} {st['cpu']:>6.2f} "
                  f"{(f'{cpu_ratio:.2f}' if cpu_ratio else '-'):>7} {st['rss']:>8.1f} "
                  f"{(pct(w) if w is not None else '-'):>6}  {runs}")
            summary["speed"][file][job] = dict(wall=st["wall"], rtf=st["wall"] / seconds, cpu=st["cpu"],
                                               rss=st["rss"], ratio=ratio, cpu_ratio=cpu_ratio, wer=w,
                                               failed=st["failed"])
        if base and base["wall"] > 1.1 * base["cpu"]:
            print(f"note: {args.baseline} (one thread) took {base['wall'] / base['cpu']:.2f}x its CPU time in wall "
                  f"time: the machine was busy; compare the cpu columns too")
        print()
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(summary, f, indent=1)


def cmd_overhead(args):
    rows = read_records(args.records)
    ref = file_reference(args.refs, args.passes)
    summary = {}
    if os.path.exists(args.summary or ""):
        with open(args.summary) as f:
            summary = json.load(f)
    base = job_stats(rows, args.file, args.baseline)
    base_words = normalize(read_text(base["output"]) or "") if base else None
    print(f"{'job':<12} {'wall s':>7} {'RTF':>6} {'cpu s':>6} {'peak MB':>8} {'decode s':>8} {'outside s':>9} "
          f"{'wall +%':>8} {'WER %':>6}  same words as batch  runs (wall s)")
    out = {}
    for job in args.jobs.split(","):
        st = job_stats(rows, args.file, job)
        if st is None:
            print(f"{job:<12} all runs failed")
            continue
        words = normalize(read_text(st["output"]) or "")
        same = "-" if job == args.baseline else ("yes" if words == base_words else
                                                 f"no ({sum(edit_counts(base_words, words))} word edits)")
        over_wall = (st["wall"] - base["wall"]) / base["wall"] if base and job != args.baseline else None
        w = wer_of(st["output"], ref)

        def num(x, width, fmt):
            return f"{format(x, fmt) if x is not None else '-':>{width}}"
        print(f"{job:<12} {st['wall']:>7.2f} {st['wall'] / args.seconds:>6.3f} {st['cpu']:>6.2f} {st['rss']:>8.1f} "
              f"{num(st['search'], 8, '.2f')} {num(st['outside'], 9, '.2f')} "
              f"{num(None if over_wall is None else 100 * over_wall, 8, '+.1f')} "
              f"{(pct(w) if w is not None else '-'):>6}  {same:<19}  " + " ".join(f"{x:.2f}" for x in st["walls"]))
        out[job] = dict(wall=st["wall"], cpu=st["cpu"], rss=st["rss"], search=st["search"], outside=st["outside"],
                        overhead_wall=over_wall, same=same)
    if base and base["outside"] is not None:
        print()
        for job, st in out.items():
            if job == args.baseline or st["outside"] is None or not st["search"]:
                continue
            added = st["outside"] - base["outside"]
            st["added"] = added / st["search"]
            st["outside_share"] = st["outside"] / st["search"]
            print(f"{job}: {st['outside']:.2f} s outside pocketsphinx's decode ({100 * st['outside_share']:.1f}% of "
                  f"its {st['search']:.2f} s); batch: {base['outside']:.2f} s "
                  f"({100 * base['outside'] / base['search']:.1f}% of {base['search']:.2f} s); the graph adds "
                  f"{added:+.2f} s = {100 * st['added']:+.1f}% of the decoding time")
    summary["overhead"] = out
    summary["overhead_base"] = dict(wall=base["wall"], search=base["search"], outside=base["outside"]) if base else None
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(summary, f, indent=1)


# --------------------------------------------------------------------------------------------------------
# targets

def cmd_targets(args):
    with open(args.wer) as f:
        wer = json.load(f)["systems"]
    with open(args.timing) as f:
        timing = json.load(f)

    def verdict(ok):
        return "met" if ok else "NOT met"

    oh = timing.get("overhead", {})
    one = oh.get(args.overhead_job)
    if one and one.get("added") is not None:
        print(f"Target 1, the graph adds under 5% to pocketsphinx's own decoding time ({args.overhead_job} vs "
              f"{args.overhead_base}, same audio, same single decode): time outside pocketsphinx's decode beyond "
              f"{args.overhead_base}'s = {100 * one['added']:+.1f}% of the decoding time "
              f"(whole process {100 * one['outside_share']:.1f}%); wall {100 * one['overhead_wall']:+.1f}% vs "
              f"{args.overhead_base}: {verdict(one['added'] < 0.05)}")
    sp = timing.get("speed", {})
    for file, job in [(args.speech_file, args.default_job), (args.half_file, args.default_job)]:
        st = sp.get(file, {}).get(job)
        if st and st["ratio"] is not None:
            print(f"  {job} on {file}: {st['rtf']:.3f} RTF, {st['ratio']:.2f}x pocketsphinx_continuous's wall time "
                  f"({st['cpu_ratio']:.2f}x its CPU time)")
    half = sp.get(args.half_file, {})
    st = half.get(args.default_job)
    if st and st["ratio"] is not None:
        faster = [j for j, v in half.items() if isinstance(v, dict) and v.get("ratio") is not None and v["ratio"] < 1]
        print(f"Target 2, on the half-silence file the whole pipeline ({args.default_job}) is faster than "
              f"pocketsphinx_continuous: {st['ratio']:.2f}x its wall time ({st['cpu_ratio']:.2f}x its CPU time): "
              f"{verdict(st['ratio'] < 1)}"
              f" (configs under 1.00x: {', '.join(faster) if faster else 'none'})")
    ours, batch, cont = wer.get(args.ours), wer.get(args.batch), wer.get(args.cont)
    if ours and batch and cont:
        d_batch = 100 * (ours["wer"] - batch["wer"])
        d_cont = 100 * (cont["wer"] - ours["wer"])
        ok = d_batch <= 2 and d_cont >= args.far
        print(f"Target 3, WER with the VAD ({args.ours}) within 2 points of whole-utterance decoding and far "
              f"(>= {args.far:g} points) below pocketsphinx_continuous: {pct(ours['wer'])}% vs batch "
              f"{pct(batch['wer'])}% ({d_batch:+.1f} points) and continuous {pct(cont['wer'])}% "
              f"({d_cont:.1f} points lower): {verdict(ok)}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)

    w = sub.add_parser("wer")
    w.add_argument("--refs", required=True)
    w.add_argument("--system", action="append", required=True,
                   help="NAME=SOURCE=DESCRIPTION; SOURCE is a batch .hyp file or FOLDER:EXT with one file per clip")
    w.add_argument("--same", nargs=2, action="append", metavar=("A", "B"), help="report whether A and B agree")
    w.add_argument("--summary")
    w.set_defaults(func=cmd_wer)

    s = sub.add_parser("speed")
    s.add_argument("--records", required=True)
    s.add_argument("--refs", required=True)
    s.add_argument("--passes", type=int, default=1)
    s.add_argument("--file", action="append", required=True, help="NAME=SECONDS=TITLE")
    s.add_argument("--jobs", required=True)
    s.add_argument("--baseline", required=True)
    s.add_argument("--summary")
    s.set_defaults(func=cmd_speed)

    o = sub.add_parser("overhead")
    o.add_argument("--records", required=True)
    o.add_argument("--refs", required=True)
    o.add_argument("--passes", type=int, default=1)
    o.add_argument("--file", required=True)
    o.add_argument("--seconds", type=float, required=True)
    o.add_argument("--jobs", required=True)
    o.add_argument("--baseline", required=True)
    o.add_argument("--summary")
    o.set_defaults(func=cmd_overhead)

    t = sub.add_parser("targets")
    t.add_argument("--wer", required=True)
    t.add_argument("--timing", required=True)
    t.add_argument("--overhead-job", required=True)
    t.add_argument("--overhead-base", required=True)
    t.add_argument("--speech-file", required=True)
    t.add_argument("--half-file", required=True)
    t.add_argument("--default-job", required=True)
    t.add_argument("--ours", required=True)
    t.add_argument("--batch", required=True)
    t.add_argument("--cont", required=True)
    t.add_argument("--far", type=float, default=5.0)
    t.set_defaults(func=cmd_targets)

    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    sys.exit(main())
