import Foundation

/// Word error rate with the normalizer of `benchmarks/wer.py`: lower case, numbers written as words ("10" →
/// "ten", "29340" → "two nine three four zero", "$3.50" → "three dollars fifty cents", "9:05" → "nine oh five",
/// "21st" → "twenty first", "471-19" → "four seven one one nine"), "Mr." → "mister", annotations (`[BLANK_AUDIO]`, `<sil>`, `(phone ringing)`) and
/// punctuation out. The rules and their order are in wer.py's module doc; `WordErrorRateTests` checks that both
/// give the same words on `benchmarks/wer_cases.tsv`. Change both together.
public enum WordErrorRate {
    /// The words of `text` as scored.
    public static func normalize(_ text: String) -> [String] {
        var text = text.lowercased()
            .replacingOccurrences(of: "\u{2019}", with: "'")
            .replacingOccurrences(of: "\u{2018}", with: "'")
        text = Rules.annotationMark.stringByReplacingMatches(in: text, range: whole(text), withTemplate: "")
        text = Rules.annotations.stringByReplacingMatches(in: text, range: whole(text), withTemplate: " ")
        text = Rules.percent.stringByReplacingMatches(in: text, range: whole(text), withTemplate: "$1 percent ")
        for rule in Rules.numbers {
            text = substitute(rule.pattern, in: text, with: rule.words)
        }
        text = text.replacingOccurrences(of: "&", with: " and ")
        let cleaned = Rules.nonWord.stringByReplacingMatches(in: text, range: whole(text), withTemplate: " ")
        let words = cleaned.split(separator: " ").compactMap { raw -> String? in
            let word = String(raw).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            return word.isEmpty ? nil : (Numbers.abbreviations[word] ?? word)
        }
        var out: [String] = []
        for (index, word) in words.enumerated() {
            if word == "and", let previous = out.last, Numbers.scaleWords.contains(previous),
               index + 1 < words.count, Numbers.numberWords.contains(words[index + 1]) {
                continue
            }
            out.append(word == "ok" ? "okay" : word)
        }
        return out
    }

    /// Errors (substitutions + deletions + insertions of a minimum-edit alignment) of `hypothesis` against
    /// `reference`, and the reference's word count, both after `normalize`.
    public static func errors(reference: String, hypothesis: String) -> (errors: Int, words: Int) {
        let ref = normalize(reference)
        let hyp = normalize(hypothesis)
        return (editDistance(ref, hyp), ref.count)
    }

    /// Word-level Levenshtein distance.
    static func editDistance(_ a: [String], _ b: [String]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            previous = current
        }
        return previous[b.count]
    }

    private static func whole(_ text: String) -> NSRange { NSRange(text.startIndex..., in: text) }

    /// Replaces each match of `pattern` by " " + its words + " ", as wer.py's `substitute` does.
    private static func substitute(_ pattern: NSRegularExpression, in text: String,
                                   with words: ([String?]) -> [String]) -> String {
        let source = text as NSString
        var result = ""
        var last = 0
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            let groups = (0..<match.numberOfRanges).map { index -> String? in
                let range = match.range(at: index)
                return range.location == NSNotFound ? nil : source.substring(with: range)
            }
            result += source.substring(with: NSRange(location: last, length: match.range.location - last))
            result += " " + words(groups).joined(separator: " ") + " "
            last = match.range.location + match.range.length
        }
        result += source.substring(from: last)
        return result
    }
}

/// The patterns of wer.py, character for character (ASCII classes and lookarounds only, so ICU and Python's `re`
/// match the same text).
private enum Rules {
    struct NumberRule: Sendable {
        let pattern: NSRegularExpression
        let words: @Sendable ([String?]) -> [String]
    }

    static let annotationMark = regex(#"(?<=[a-z'])\([0-9]+\)"#)
    static let annotations = regex(#"\[[^\]]*\]|<[^>]*>|\([^)]*\)|\+\+[^+]*\+\+"#)
    static let percent = regex(#"([0-9]) ?%"#)
    static let nonWord = regex(#"[^a-z0-9']+"#)

    static let numbers: [NumberRule] = [
        NumberRule(pattern: regex(#"\$([0-9][0-9,]*)(?:\.([0-9]{2}))?(?![0-9])"#)) { g in
            let dollars = Numbers.cardinal(of: g[1]!.replacingOccurrences(of: ",", with: "")) + ["dollars"]
            guard let cents = g[2].flatMap({ Int($0) }), cents > 0 else { return dollars }
            return dollars + Numbers.cardinal(cents) + ["cents"]
        },
        NumberRule(pattern: regex(#"(?<![0-9.,-])[0-9]+(?:-[0-9]+)+(?![0-9,]|\.[0-9])"#)) { g in
            Numbers.digitByDigit(g[0]!.replacingOccurrences(of: "-", with: ""))
        },
        NumberRule(pattern: regex(#"(?<![0-9:])([0-9]{1,2}):([0-9]{2})(?![0-9:])"#)) { g in
            let hours = Numbers.cardinal(Int(g[1]!)!)
            let minutes = Int(g[2]!)!
            if minutes == 0 { return hours }
            return hours + (minutes < 10 ? ["oh", Numbers.ones[minutes]] : Numbers.cardinal(minutes))
        },
        NumberRule(pattern: regex(#"(?<![0-9])([0-9]+)(st|nd|rd|th)(?![0-9a-z])"#)) { g in
            g[1]!.count <= 12 ? Numbers.ordinal(Int(g[1]!)!) : Numbers.digitByDigit(g[1]!)
        },
        NumberRule(pattern: regex(#"(?<![0-9,])([0-9]{1,3}(?:,[0-9]{3})+)(?:\.([0-9]+))?(?![0-9])"#)) { g in
            Numbers.cardinal(of: g[1]!.replacingOccurrences(of: ",", with: ""))
                + (g[2].map { ["point"] + Numbers.digitByDigit($0) } ?? [])
        },
        NumberRule(pattern: regex(#"(?<![0-9.])([0-9]+)\.([0-9]+)(?![0-9])"#)) { g in
            Numbers.digitRun(g[1]!) + ["point"] + Numbers.digitByDigit(g[2]!)
        },
        NumberRule(pattern: regex("[0-9]+")) { g in Numbers.digitRun(g[0]!) },
    ]

    private static func regex(_ pattern: String) -> NSRegularExpression {
        // The patterns are constants of this file: a bad one is a programming error caught by the first test.
        try! NSRegularExpression(pattern: pattern)
    }
}

/// Numbers as words, as wer.py writes them.
enum Numbers {
    static let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                       "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                       "nineteen"]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    static let scales: [(value: Int, name: String)] = [(1_000_000_000, "billion"), (1_000_000, "million"),
                                                       (1000, "thousand")]
    static let scaleWords: Set<String> = ["hundred", "thousand", "million", "billion"]
    static let numberWords: Set<String> = Set(ones).union(tens.dropFirst(2)).union(scaleWords)
    static let abbreviations = ["mr": "mister", "mrs": "missus", "dr": "doctor"]
    private static let irregularOrdinals = ["one": "first", "two": "second", "three": "third", "five": "fifth",
                                            "eight": "eighth", "nine": "ninth", "twelve": "twelfth"]

    /// The words of a whole number >= 0, without "and": 1200 → one thousand two hundred.
    static func cardinal(_ n: Int) -> [String] {
        if n < 20 { return [ones[n]] }
        if n < 100 { return [tens[n / 10]] + (n % 10 == 0 ? [] : [ones[n % 10]]) }
        if n < 1000 { return [ones[n / 100], "hundred"] + (n % 100 == 0 ? [] : cardinal(n % 100)) }
        let scale = scales.first { n >= $0.value }!
        return cardinal(n / scale.value) + [scale.name] + (n % scale.value == 0 ? [] : cardinal(n % scale.value))
    }

    static func ordinal(_ n: Int) -> [String] {
        var words = cardinal(n)
        let last = words[words.count - 1]
        if let irregular = irregularOrdinals[last] {
            words[words.count - 1] = irregular
        } else if last.hasSuffix("y") {
            words[words.count - 1] = String(last.dropLast()) + "ieth"
        } else {
            words[words.count - 1] = last + "th"
        }
        return words
    }

    static func digitByDigit(_ digits: String) -> [String] {
        digits.compactMap { $0.wholeNumberValue.map { ones[$0] } }
    }

    /// A cardinal of a digit string; digit by digit past 12 digits (so that Int never overflows).
    static func cardinal(of digits: String) -> [String] {
        digits.count > 12 ? digitByDigit(digits) : cardinal(Int(digits)!)
    }

    /// A bare run of digits: digit by digit with 5+ digits or a leading zero, else a cardinal.
    static func digitRun(_ digits: String) -> [String] {
        if digits.count >= 5 || (digits.count > 1 && digits.hasPrefix("0")) { return digitByDigit(digits) }
        return cardinal(Int(digits)!)
    }
}
