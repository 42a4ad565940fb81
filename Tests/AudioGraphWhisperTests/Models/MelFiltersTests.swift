/// Issue 15, install (model conversion): the Slaney mel filter bank CTranslate2 models lack is computed as
/// librosa computes it (and as Whisper's mel_filters.npz holds it).
import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct MelFiltersTests {
    // Reference numbers from a one-off numpy computation of librosa.filters.mel(sr=16000, n_fft=400,
    // n_mels=80) (htk=False, norm="slaney"), written independently of the Swift code.
    @Test func matchesLibrosaReferenceValues() {
        let weights = MelFilters.slaney()
        #expect(weights.count == 80 * 201)
        let references: [(row: Int, column: Int, value: Float)] = [
            (0, 1, 0.02486259490251541), (0, 2, 0), (1, 2, 0.022871771827340126), (79, 190, 0.0022320549469441175),
        ]
        for reference in references {
            #expect(abs(weights[reference.row * 201 + reference.column] - reference.value) < 1e-8,
                    "weight [\(reference.row)][\(reference.column)]")
        }
        // Row sums (numpy): 0.02486259490251541, 0.026664860546588898 (row 40), 0.024925339967012405 (row 79).
        func rowSum(_ row: Int) -> Float { weights[row * 201..<(row + 1) * 201].reduce(0, +) }
        #expect(abs(rowSum(0) - 0.024862595) < 1e-7)
        #expect(abs(rowSum(40) - 0.026664861) < 1e-7)
        #expect(abs(rowSum(79) - 0.024925340) < 1e-7)
        // Row 0 has one non-zero bin; the last row covers bins 186...199.
        #expect(weights[0..<201].indices.filter { weights[$0] != 0 } == [1])
        let last = (0..<201).filter { weights[79 * 201 + $0] != 0 }
        #expect(last.first == 186 && last.last == 199)
    }

    /// whisper.cpp's own files carry Whisper's filters: the computed bank equals them to float precision.
    @Test func equalsTheFiltersInWhisperCppsModelFile() throws {
        let preamble = try ModelTestSupport.readPreamble(try ModelTestSupport.fixture("for-tests-ggml-tiny.en.bin"))
        #expect(preamble.filterRows == 80 && preamble.filterColumns == 201)
        let computed = MelFilters.slaney()
        let worst = zip(computed, preamble.filters).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-8)
    }

    @Test func slaneyMelScaleIsLinearBelowOneKilohertzAndLogarithmicAbove() {
        #expect(abs(MelFilters.hertzToMel(1000) - 15) < 1e-12)
        #expect(abs(MelFilters.hertzToMel(200) - 3) < 1e-12)
        #expect(abs(MelFilters.hertzToMel(6400) - (15 + 27)) < 1e-9)  // a factor 6.4 above 1 kHz is 27 mels
        for hertz in [0.0, 440, 999, 1000, 3000, 8000] {
            #expect(abs(MelFilters.melToHertz(MelFilters.hertzToMel(hertz)) - hertz) < 1e-9)
        }
    }
}
