#!/usr/bin/env python3
"""Helpers of benchmarks/eval_languages.sh (issue 16, languages): the espeak-ng set, the configs, the scoring.

  make   --set TSV --out DIR [--codes "A B"] [--per-code N]
         DIR/CODE.wav per caption code: its sentences read by espeak-ng (16 kHz mono via sox), 0.5 s of silence
         before, 2.5 s between and after (the VAD ends each sentence, the packer keeps them apart); and
         DIR/references.tsv: code, voice, the references joined by spaces, the sentence count.
  config --out FILE --input WAV --model PATH --language CODE --sink json:PATH [--threads N]
         file-source -> resampler (16 kHz mono) -> vad -> recognizer{whisper, MODEL, CODE} -> caption-sink json
  score  --set DIR --outputs DIR --times TSV [--json FILE]
         per code: character error rate, the script of the output and of the reference, the language the finals
         carry, seconds per utterance (wall of the run / sentences); a table on stdout and a JSON summary.

CER = character edit distance / reference characters, after NFKC, lower case, and removing punctuation, symbols
and white space (so a comma or a space whisper adds or drops is not an error; digits count as characters).
The script of a text is the Unicode script of most of its letters: Latn, Cyrl, Deva, Arab (Urdu script), Hang
(Korean), Jpan (any kana), Hans / Hant (Hanzi with more Simplified-only / Traditional-only characters of a
common table), Hani (Hanzi with neither).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import unicodedata

# Common characters that differ between Simplified and Traditional Chinese (Simplified, Traditional).
HAN_PAIRS = ("们們 这這 个個 来來 说說 时時 国國 会會 对對 过過 还還 没沒 东東 车車 气氣 请請 问問 里裡 饭飯 钱錢 买買 "
             "见見 话話 语語 学學 长長 门門 开開 关關 电電 间間 发發 后後 点點 样樣 现現 为為 书書 边邊 机機 动動 实實 "
             "经經 头頭 让讓 认認 识識 难難 欢歡 乐樂 爱愛 马馬 鸟鳥 鱼魚 飞飛 场場 报報 站站 岁歲 号號 热熱 冷冷 "
             "几幾 买買 卖賣 红紅 绿綠 蓝藍 写寫 读讀 听聽 谁誰 谢謝 题題 员員 总總 区區 业業 从從 应應 单單 网網 "
             "们們 吗嗎 么麼 给給 视視 觉覺 边邊 远遠 进進 运運 还還 华華 汉漢 们們 丽麗 广廣 义義 亲親 币幣 铁鐵").split()
SIMPLIFIED = {p[0] for p in HAN_PAIRS if p[0] != p[1]}
TRADITIONAL = {p[1] for p in HAN_PAIRS if p[0] != p[1]}


def normalize(text):
    text = unicodedata.normalize("NFKC", text).lower()
    return "".join(c for c in text if unicodedata.category(c)[0] in "LNM")


def distance(a, b):
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def cer(reference, hypothesis):
    ref, hyp = normalize(reference), normalize(hypothesis)
    return distance(ref, hyp) / max(1, len(ref))


def script(text):
    counts = {}
    han = []
    for c in text:
        if not c.isalpha():
            continue
        name = unicodedata.name(c, "")
        if name.startswith("CJK") or name.startswith("CJK COMPATIBILITY"):
            han.append(c)
            key = "Hani"
        elif name.startswith(("HIRAGANA", "KATAKANA")):
            key = "Jpan"
        else:
            key = {"LATIN": "Latn", "CYRILLIC": "Cyrl", "DEVANAGARI": "Deva", "ARABIC": "Arab", "HANGUL": "Hang",
                   "GREEK": "Grek", "HEBREW": "Hebr", "THAI": "Thai"}.get(name.split(" ")[0], name.split(" ")[0].title())
        counts[key] = counts.get(key, 0) + 1
    if not counts:
        return "none"
    if counts.get("Jpan"):
        return "Jpan"
    top = max(counts, key=counts.get)
    if top == "Hani":
        simplified = sum(c in SIMPLIFIED for c in han)
        traditional = sum(c in TRADITIONAL for c in han)
        return "Hans" if simplified > traditional else "Hant" if traditional > simplified else "Hani"
    return top


def read_set(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            code, voice, spoken, reference = line.rstrip("\n").split("\t")
            rows.append((code, voice, spoken, reference))
    return rows


def cmd_make(args):
    rows = read_set(args.set)
    codes = args.codes.split() if args.codes else list(dict.fromkeys(r[0] for r in rows))
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, open(os.path.join(args.out, "references.tsv"), "w", encoding="utf-8") as refs:
        lead, gap = os.path.join(tmp, "lead.wav"), os.path.join(tmp, "gap.wav")
        subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", lead, "trim", "0", "0.5"], check=True)
        subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", gap, "trim", "0", "2.5"], check=True)
        for code in codes:
            sentences = [r for r in rows if r[0] == code][: args.per_code]
            if not sentences:
                sys.exit(f"languages_eval.py: no sentences for {code} in {args.set}")
            parts = [lead]
            for i, (_, voice, spoken, _) in enumerate(sentences):
                raw, wav = os.path.join(tmp, f"{code}-{i}.raw.wav"), os.path.join(tmp, f"{code}-{i}.wav")
                subprocess.run(["espeak-ng", "-v", voice, "-s", "150", "-w", raw, spoken], check=True)
                subprocess.run(["sox", raw, "-r", "16000", "-c", "1", "-b", "16", wav], check=True)
                parts += [wav, gap]
            subprocess.run(["sox", *parts, os.path.join(args.out, f"{code}.wav")], check=True)
            voice = sentences[0][1]
            refs.write(f"{code}\t{voice}\t{' '.join(r[3] for r in sentences)}\t{len(sentences)}\n")
    print(args.out)


def cmd_config(args):
    fmt, path = args.sink.split(":", 1)
    nodes = {"src": {"type": "file-source", "path": args.input},
             "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
             "vad": {"type": "vad"},
             "asr": {"type": "recognizer", "engine": "whisper", "model": args.model, "language": args.language,
                     "threads": args.threads},
             "cc": {"type": "caption-sink", "format": fmt, "path": path}}
    config = {"version": 1, "session": {"autoStartTranscription": True, "captionLanguage": args.language},
              "nodes": nodes, "links": ["src -> rs -> vad -> asr -> cc"]}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=1, ensure_ascii=False)


def expected_script(code, reference):
    return {"ja-JP": "Jpan", "zh": "Hans", "zh-TW": "Hant"}.get(code, script(reference))


def cmd_score(args):
    times = {}
    with open(args.times) as f:
        for line in f:
            code, seconds = line.split()
            times[code] = float(seconds)
    rows = []
    with open(os.path.join(args.set, "references.tsv"), encoding="utf-8") as f:
        for line in f:
            code, voice, reference, count = line.rstrip("\n").split("\t")
            out = os.path.join(args.outputs, f"{code}.json")
            text, tags = "", []
            if os.path.exists(out):
                with open(out, encoding="utf-8") as g:
                    doc = json.load(g)
                text = " ".join(u.get("text", "") for u in doc.get("utterances", []))
                tags = sorted({u.get("language", "?") for u in doc.get("utterances", [])})
            rows.append({"code": code, "voice": voice, "cer": round(cer(reference, text), 3), "script": script(text),
                         "expected_script": expected_script(code, reference), "tagged": tags,
                         "seconds_per_utterance": round(times.get(code, float("nan")) / int(count), 2),
                         "utterances": int(count), "reference": reference, "hypothesis": text})
    print(f"{'code':7} {'voice':16} {'CER':>6} {'script':>7} {'want':>5} {'s/utt':>6}  tagged  hypothesis")
    for r in rows:
        mark = "" if r["script"] == r["expected_script"] else " !"
        print(f"{r['code']:7} {r['voice']:16} {r['cer']:6.3f} {r['script']:>7} {r['expected_script']:>5} "
              f"{r['seconds_per_utterance']:6.2f}  {','.join(r['tagged']) or '-':6}  {r['hypothesis']}{mark}")
    good = sum(r["cer"] <= 0.25 for r in rows)
    right_script = sum(r["script"] == r["expected_script"] for r in rows)
    tagged = sum(r["tagged"] == [r["code"]] for r in rows)
    print(f"codes at CER <= 0.25: {good} of {len(rows)}; in their own script: {right_script} of {len(rows)}; "
          f"finals tagged with their code: {tagged} of {len(rows)}")
    summary = {"codes": rows, "cer_at_most_0.25": good, "own_script": right_script, "tagged": tagged, "count": len(rows)}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=1, ensure_ascii=False)
    return 0 if tagged == len(rows) else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("--set", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--codes")
    m.add_argument("--per-code", type=int, default=3)
    c = sub.add_parser("config")
    c.add_argument("--out", required=True)
    c.add_argument("--input", required=True)
    c.add_argument("--model", required=True)
    c.add_argument("--language", required=True)
    c.add_argument("--sink", required=True)
    c.add_argument("--threads", type=int, default=1)
    s = sub.add_parser("score")
    s.add_argument("--set", required=True)
    s.add_argument("--outputs", required=True)
    s.add_argument("--times", required=True)
    s.add_argument("--json")
    args = parser.parse_args()
    return {"make": cmd_make, "config": cmd_config, "score": cmd_score}[args.command](args) or 0


if __name__ == "__main__":
    sys.exit(main())
