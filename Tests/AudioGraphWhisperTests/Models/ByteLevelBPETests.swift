/// Issue 15, install (model conversion): vocabulary.txt's byte-level BPE strings map back to raw bytes, and
/// half floats convert exactly.
import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct ByteLevelBPETests {
    @Test func printableBytesStandForThemselvesAndTheRestAreShifted() {
        #expect(ByteLevelBPE.bytes(ofToken: "the") == Array("the".utf8))
        #expect(ByteLevelBPE.bytes(ofToken: "Ġthe") == Array(" the".utf8))  // U+0120 is the space
        #expect(ByteLevelBPE.bytes(ofToken: "Ċ") == [0x0a])                  // U+010A is the newline
        #expect(ByteLevelBPE.bytes(ofToken: "Ā") == [0x00])                  // U+0100 is byte 0
        #expect(ByteLevelBPE.bytes(ofToken: "¡") == [0xa1])                  // printable Latin-1 stays
        #expect(ByteLevelBPE.bytes(ofToken: "Ń") == [0xad])                  // the soft hyphen is shifted: U+0143
        // "é" in UTF-8 is C3 A9, written as the two characters Ã and ©.
        #expect(ByteLevelBPE.bytes(ofToken: "Ã©") == [0xc3, 0xa9])
    }

    @Test func theAlphabetIsAOneToOneMapOfAll256Bytes() {
        let scalars = ByteLevelBPE.characterForByte
        #expect(scalars.count == 256 && Set(scalars).count == 256)
        for (byte, scalar) in scalars.enumerated() {
            #expect(ByteLevelBPE.bytes(ofToken: String(Character(scalar))) == [UInt8(byte)])
        }
    }

    @Test func aCharacterOutsideTheAlphabetIsRefused() {
        #expect(ByteLevelBPE.bytes(ofToken: "a b") == nil)  // a raw space is never in a token
        #expect(ByteLevelBPE.bytes(ofToken: "€") == nil)
    }

    @Test func halfFloatsConvertBothWays() {
        let cases: [(UInt16, Float)] = [(0x0000, 0), (0x3c00, 1), (0xc000, -2), (0x3555, 0.333251953125),
                                        (0x7bff, 65504), (0x0001, 0x1p-24), (0x0400, 0x1p-14)]
        for (bits, value) in cases {
            #expect(HalfFloat.float(fromBits: bits) == value)
            #expect(HalfFloat.bits(from: value) == bits)
        }
        #expect(HalfFloat.float(fromBits: 0x7c00) == .infinity)
        #expect(HalfFloat.float(fromBits: 0x8000).sign == .minus)
        #expect(HalfFloat.bits(from: 1e6) == 0x7c00)                   // overflow: infinity
        #expect(HalfFloat.bits(from: 1 + 0x1p-11) == 0x3c00)           // a tie rounds to even
        #expect(HalfFloat.bits(from: 1 + 0x1p-11 + 0x1p-20) == 0x3c01) // above the tie rounds up
        for bits in stride(from: UInt16(0), to: 0x7c00, by: 7) {
            #expect(HalfFloat.bits(from: HalfFloat.float(fromBits: bits)) == bits)
        }
    }
}
