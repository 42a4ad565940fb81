/// IEEE 754 half-precision conversions done on bit patterns (`Float16` is not available on every platform).
enum HalfFloat {
    /// The float value of a half-precision bit pattern.
    static func float(fromBits half: UInt16) -> Float {
        let sign = UInt32(half >> 15) << 31
        let exponent = UInt32(half >> 10) & 0x1f
        let mantissa = UInt32(half) & 0x3ff
        if exponent == 0 {
            let magnitude = Float(mantissa) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        }
        if exponent == 0x1f { return Float(bitPattern: sign | 0x7f80_0000 | mantissa << 13) }
        return Float(bitPattern: sign | (exponent + 112) << 23 | mantissa << 13)
    }

    /// The half-precision bit pattern nearest to a float (round to nearest even; overflow gives infinity).
    static func bits(from value: Float) -> UInt16 {
        let bits = value.bitPattern
        let sign = UInt16((bits >> 16) & 0x8000)
        let exponent = Int((bits >> 23) & 0xff)
        let mantissa = bits & 0x7f_ffff
        if exponent == 0xff { return sign | 0x7c00 | (mantissa != 0 ? 0x200 : 0) }
        let halfExponent = exponent - 127 + 15
        if halfExponent >= 0x1f { return sign | 0x7c00 }
        if halfExponent <= 0 {
            guard halfExponent >= -10 else { return sign }
            let full = mantissa | 0x80_0000
            let shift = UInt32(14 - halfExponent)
            var result = full >> shift
            let remainder = full & ((1 << shift) - 1), half = UInt32(1) << (shift - 1)
            if remainder > half || (remainder == half && result & 1 == 1) { result += 1 }
            return sign | UInt16(result)
        }
        var result = UInt32(halfExponent) << 10 | mantissa >> 13
        let remainder = mantissa & 0x1fff
        if remainder > 0x1000 || (remainder == 0x1000 && result & 1 == 1) { result += 1 }
        return sign | UInt16(result)
    }
}
