import Foundation

/// Character error rate as benchmarks/languages_eval.py scores it: edit distance over the reference's characters,
/// after NFKC, lower case, and dropping everything but letters, marks and digits (punctuation and spaces are no
/// errors). Change both together.
public enum CharacterErrorRate {
    /// The characters of `text` as scored.
    public static func normalize(_ text: String) -> [Unicode.Scalar] {
        text.precomposedStringWithCompatibilityMapping.lowercased().unicodeScalars.filter { scalar in
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
                return true
            default:
                return false
            }
        }
    }

    /// Edit distance / reference characters (1 and more when the hypothesis is all wrong or longer).
    public static func rate(reference: String, hypothesis: String) -> Double {
        let ref = normalize(reference), hyp = normalize(hypothesis)
        var previous = Array(0...hyp.count)
        for (i, r) in ref.enumerated() {
            var current = [i + 1]
            for (j, h) in hyp.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (r == h ? 0 : 1)))
            }
            previous = current
        }
        return Double(previous[hyp.count]) / Double(max(1, ref.count))
    }
}
