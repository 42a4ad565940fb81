#!/usr/bin/env python3
"""Word error rate with a normalizer that writes numbers as words (python3 standard library only).

The same normalizer is in Swift, Sources/AudioGraphTestKit/WordErrorRate.swift; WordErrorRateTests runs both on
benchmarks/wer_cases.tsv and checks they agree. Change both together.

Normalization, in this order (see normalize()):
  1. lower case; curly apostrophes become '.
  2. annotations dropped: pocketsphinx's alternate-pronunciation marks (word(2) -> word), then anything in
     [...], <...>, (...) or ++...++ (pocketsphinx fillers such as <sil>, [noise]; whisper's [BLANK_AUDIO],
     (phone ringing)).
  3. numbers written as words:
     - "$12" -> "twelve dollars", "$3.50" -> "three dollars fifty cents";
     - "5%" / "5 %" -> "five percent";
     - digit groups joined by hyphens, digit by digit: "471-19" -> "four seven one one nine", "555-0123";
     - times "9:30" -> "nine thirty", "9:05" -> "nine oh five", "9:00" -> "nine";
     - ordinals "21st" -> "twenty first";
     - "12,500" -> "twelve thousand five hundred" (comma groups are a cardinal), with ".5" -> "point five";
     - decimals "2.75" -> "two point seven five";
     - any other digit run: read digit by digit when it has 5 or more digits or a leading zero ("29340" ->
       "two nine three four zero", "007" -> "zero zero seven": codes, phone and account numbers, as the
       references say them), else as a cardinal ("10" -> "ten", "1200" -> "one thousand two hundred").
       Years are not special: "1995" is "one thousand nine hundred ninety five".
  4. "mr" -> "mister", "mrs" -> "missus", "dr" -> "doctor" (with or without the period); "&" -> "and".
  5. every character other than a-z, 0-9 and the apostrophe is a space (hyphens split words); apostrophes at
     the ends of a word are dropped.
  6. "and" between "hundred"/"thousand"/"million"/"billion" and a number word is dropped ("three hundred and
     forty" = "three hundred forty"); "ok" -> "okay".

WER = (substitutions + deletions + insertions) / reference words, from a minimum-edit alignment.

Usage:
  wer.py score --refs REFS.tsv --system NAME=FOLDER:EXT [--system ...] [--json OUT] [--title TEXT]
      REFS.tsv: "clip<TAB>reference text" per line; FOLDER/CLIP.EXT is each system's hypothesis for a clip
      (.json = caption-sink json, .vtt = WebVTT, anything else = plain text; a missing file counts as an empty
      hypothesis and is listed as missing). Prints WER per clip and in total for each system, side by side.
  wer.py normalize          each stdin line -> its normalized words, space-separated, one line each
  wer.py errors REF HYP     "errors words" of one pair
  wer.py selftest [CASES]   checks benchmarks/wer_cases.tsv ("input<TAB>expected words"); exit 1 on a mismatch
  wer.py paired --ours E1,E2,... --theirs E1,E2,...
      two systems' errors on the same clips, in the same order: prints "difference low high better worse ties
      verdict" (see paired()); whisper_eval.py's report uses it for each of issue 16's pairs

Paired comparison (paired()): the difference in total errors (ours - theirs) with a 95 % interval from a
percentile bootstrap over clips (10000 resamples of the clips with replacement, seeded: the same input gives the
same interval), and how many clips each system did better on. The verdict: "ahead" or "behind" when the interval
leaves out 0; "within noise" when it holds 0 (another set of clips of the same kind could reverse the sign); "too
few clips" under 5 clips, where a bootstrap cannot tell the clips' spread.
"""
import argparse
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speech_eval import edit_counts, read_text  # noqa: E402  (the alignment and the hypothesis readers)

ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen").split()
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
SCALES = [(10 ** 9, "billion"), (10 ** 6, "million"), (1000, "thousand")]
NUMBER_WORDS = set(ONES) | set(TENS[2:]) | {"hundred"} | {name for _, name in SCALES}
ORDINAL_IRREGULAR = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
                     "nine": "ninth", "twelve": "twelfth"}
ABBREVIATIONS = {"mr": "mister", "mrs": "missus", "dr": "doctor"}


def cardinal(n):
    """The words of a whole number >= 0, without "and": 1200 -> one thousand two hundred."""
    if n < 20:
        return [ONES[n]]
    if n < 100:
        return [TENS[n // 10]] + ([ONES[n % 10]] if n % 10 else [])
    if n < 1000:
        return [ONES[n // 100], "hundred"] + (cardinal(n % 100) if n % 100 else [])
    for scale, name in SCALES:
        if n >= scale:
            return cardinal(n // scale) + [name] + (cardinal(n % scale) if n % scale else [])
    raise AssertionError("unreachable")


def ordinal(n):
    words = cardinal(n)
    last = words[-1]
    if last in ORDINAL_IRREGULAR:
        words[-1] = ORDINAL_IRREGULAR[last]
    elif last.endswith("y"):
        words[-1] = last[:-1] + "ieth"
    else:
        words[-1] = last + "th"
    return words


def digit_by_digit(digits):
    return [ONES[int(c)] for c in digits]


def cardinal_of(digits):
    """A cardinal of a digit string; digit by digit past 12 digits (so that Swift's Int never overflows)."""
    return digit_by_digit(digits) if len(digits) > 12 else cardinal(int(digits))


def digit_run(digits):
    """A bare run of digits: digit by digit with 5+ digits or a leading zero, else a cardinal."""
    if len(digits) >= 5 or (len(digits) > 1 and digits[0] == "0"):
        return digit_by_digit(digits)
    return cardinal(int(digits))


# (pattern, words of a match) in the order they apply; every pattern uses explicit ASCII classes and
# lookarounds only, so that NSRegularExpression (ICU) in the Swift copy matches exactly the same text.
NUMBER_RULES = [
    (r"\$([0-9][0-9,]*)(?:\.([0-9]{2}))?(?![0-9])",
     lambda m: cardinal_of(m.group(1).replace(",", "")) + ["dollars"]
     + (cardinal(int(m.group(2))) + ["cents"] if m.group(2) and int(m.group(2)) else [])),
    (r"(?<![0-9.,-])[0-9]+(?:-[0-9]+)+(?![0-9,]|\.[0-9])", lambda m: digit_by_digit(m.group(0).replace("-", ""))),
    (r"(?<![0-9:])([0-9]{1,2}):([0-9]{2})(?![0-9:])",
     lambda m: cardinal(int(m.group(1))) + ([] if int(m.group(2)) == 0 else
                                             ["oh", ONES[int(m.group(2))]] if int(m.group(2)) < 10 else
                                             cardinal(int(m.group(2))))),
    (r"(?<![0-9])([0-9]+)(st|nd|rd|th)(?![0-9a-z])", lambda m: ordinal(int(m.group(1))) if len(m.group(1)) <= 12 else digit_by_digit(m.group(1))),
    (r"(?<![0-9,])([0-9]{1,3}(?:,[0-9]{3})+)(?:\.([0-9]+))?(?![0-9])",
     lambda m: cardinal_of(m.group(1).replace(",", "")) + (["point"] + digit_by_digit(m.group(2))
                                                            if m.group(2) else [])),
    (r"(?<![0-9.])([0-9]+)\.([0-9]+)(?![0-9])",
     lambda m: digit_run(m.group(1)) + ["point"] + digit_by_digit(m.group(2))),
    (r"[0-9]+", lambda m: digit_run(m.group(0))),
]
ANNOTATION_MARK = r"(?<=[a-z'])\([0-9]+\)"
ANNOTATIONS = r"\[[^\]]*\]|<[^>]*>|\([^)]*\)|\+\+[^+]*\+\+"
PERCENT = r"([0-9]) ?%"


def substitute(pattern, words_of, text):
    return re.sub(pattern, lambda m: " " + " ".join(words_of(m)) + " ", text)


def normalize(text):
    """The words of `text` as scored (see the module doc)."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(ANNOTATION_MARK, "", text)
    text = re.sub(ANNOTATIONS, " ", text)
    text = re.sub(PERCENT, r"\1 percent ", text)
    for pattern, words_of in NUMBER_RULES:
        text = substitute(pattern, words_of, text)
    text = text.replace("&", " and ")
    words = []
    for raw in re.sub(r"[^a-z0-9']+", " ", text).split():
        word = raw.strip("'")
        if word:
            words.append(ABBREVIATIONS.get(word, word))
    out = []
    for i, word in enumerate(words):
        if (word == "and" and out and out[-1] in ("hundred", "thousand", "million", "billion")
                and i + 1 < len(words) and words[i + 1] in NUMBER_WORDS):
            continue
        out.append("okay" if word == "ok" else word)
    return out


def errors(reference, hypothesis):
    """(errors, reference words) of two texts, after normalize()."""
    ref, hyp = normalize(reference), normalize(hypothesis)
    return sum(edit_counts(ref, hyp)), len(ref)


# --------------------------------------------------------------------------------------------------------

def read_references(path):
    refs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.strip():
                clip, text = line.split("\t", 1)
                refs[clip] = text
    return refs


def score(refs, systems):
    """{system: {"clips": {clip: {errors, words, wer, missing}}, "errors", "words", "wer", "missing"}}."""
    result = {}
    for name, (folder, ext) in systems.items():
        clips, total_e, total_w, missing = {}, 0, 0, []
        for clip, ref in refs.items():
            text = read_text(os.path.join(folder, f"{clip}.{ext}"))
            if text is None:
                missing.append(clip)
            e, w = errors(ref, text or "")
            clips[clip] = {"errors": e, "words": w, "wer": e / w if w else 0.0,
                           "hypothesis": " ".join(normalize(text or ""))}
            total_e, total_w = total_e + e, total_w + w
        result[name] = {"clips": clips, "errors": total_e, "words": total_w,
                        "wer": total_e / total_w if total_w else 0.0, "missing": missing}
    return result


def cell(counts, fmt):
    """"WER (errors/words)" of a clip or a total."""
    return f"{fmt % (100 * counts['wer'])} ({counts['errors']}/{counts['words']})"


def print_table(title, refs, result, out=sys.stdout):
    names = list(result)
    width = max(12, *(len(n) + 2 for n in names))
    print(f"-- {title}: WER % per clip (errors/words), normalized (numbers as words)", file=out)
    print(f"{'clip':<24}" + "".join(f"{n:>{width}}" for n in names), file=out)
    for clip in refs:
        cells = [cell(result[n]["clips"][clip], "%.0f") for n in names]
        print(f"{clip:<24}" + "".join(f"{c:>{width}}" for c in cells), file=out)
    print(f"{'total':<24}" + "".join(f"{cell(result[n], '%.1f'):>{width}}" for n in names), file=out)
    for n in names:
        if result[n]["missing"]:
            print(f"  {n}: no output for {len(result[n]['missing'])} clip(s): {', '.join(result[n]['missing'])}",
                  file=out)


def cmd_score(args):
    refs = read_references(args.refs)
    systems = {}
    for spec in args.system:
        name, source = spec.split("=", 1)
        folder, ext = source.rsplit(":", 1)
        systems[name] = (folder, ext)
    result = score(refs, systems)
    print_table(args.title, refs, result)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


BOOTSTRAP_RESAMPLES = 10000
BOOTSTRAP_SEED = 16


def paired(ours, theirs, resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED):
    """Paired comparison of two systems' errors per clip (same clips, same order): {difference, low, high,
    better, worse, ties}; difference = sum(ours) - sum(theirs); [low, high] its 95 % percentile-bootstrap
    interval over clips; better/worse/ties count the clips where ours made fewer/more/as many errors."""
    if len(ours) != len(theirs) or not ours:
        raise ValueError("paired: both systems need errors for the same, non-empty list of clips")
    diffs = [a - b for a, b in zip(ours, theirs)]
    rng = random.Random(seed)
    n = len(diffs)
    totals = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) for _ in range(resamples))
    return {"difference": sum(diffs),
            "low": totals[int(0.025 * resamples)], "high": totals[int(0.975 * resamples) - 1],
            "better": sum(d < 0 for d in diffs), "worse": sum(d > 0 for d in diffs),
            "ties": sum(d == 0 for d in diffs)}


MIN_CLIPS_FOR_VERDICT = 5


def paired_verdict(result):
    """"ahead", "behind" (the interval excludes 0), "within noise", or "too few clips" (under
    MIN_CLIPS_FOR_VERDICT: a bootstrap over so few clips cannot tell their spread)."""
    if result["better"] + result["worse"] + result["ties"] < MIN_CLIPS_FOR_VERDICT:
        return "too few clips"
    if result["high"] < 0:
        return "ahead"
    if result["low"] > 0:
        return "behind"
    return "within noise"


def cmd_paired(args):
    ours = [int(x) for x in args.ours.split(",")]
    theirs = [int(x) for x in args.theirs.split(",")]
    try:
        r = paired(ours, theirs)
    except ValueError as error:
        print(f"wer.py: {error}", file=sys.stderr)
        return 2
    print(r["difference"], r["low"], r["high"], r["better"], r["worse"], r["ties"], paired_verdict(r))
    return 0


def cmd_normalize(_args):
    for line in sys.stdin:
        print(" ".join(normalize(line.rstrip("\n"))))


def cmd_errors(args):
    e, w = errors(args.reference, args.hypothesis)
    print(e, w)


def cmd_selftest(args):
    failed = 0
    cases = 0
    with open(args.cases, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            text, expected = line.split("\t", 1)
            cases += 1
            got = " ".join(normalize(text))
            if got != expected:
                failed += 1
                print(f"normalize({text!r}) = {got!r}, expected {expected!r}")
    print(f"wer.py selftest: {cases - failed}/{cases} cases agree")
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("score")
    s.add_argument("--refs", required=True)
    s.add_argument("--system", action="append", required=True, help="NAME=FOLDER:EXT")
    s.add_argument("--json")
    s.add_argument("--title", default="WER")
    s.set_defaults(func=cmd_score)
    sub.add_parser("normalize").set_defaults(func=cmd_normalize)
    e = sub.add_parser("errors")
    e.add_argument("reference")
    e.add_argument("hypothesis")
    e.set_defaults(func=cmd_errors)
    t = sub.add_parser("selftest")
    t.add_argument("cases", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                            "wer_cases.tsv"))
    t.set_defaults(func=cmd_selftest)
    c = sub.add_parser("paired")
    c.add_argument("--ours", required=True, help="errors per clip, comma-separated")
    c.add_argument("--theirs", required=True, help="the other system's, same clips in the same order")
    c.set_defaults(func=cmd_paired)
    args = p.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
