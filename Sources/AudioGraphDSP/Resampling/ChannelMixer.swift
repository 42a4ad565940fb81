/// Channel count conversion for interleaved float frames.
public enum ChannelMixer {
    /// down/up-mix interleaved frames from `from` to `to` channels, appending to output.
    ///
    /// Down-mix to mono = average of channels; mono to N = copy; N to M otherwise: channel i of
    /// output = input channel (i % from) when upmixing, average of input channels j where
    /// j % to == i when downmixing. Equal counts copy. `input.count` must be a multiple of
    /// `from`. Allocates only when `output` must grow.
    public static func mix(_ input: UnsafeBufferPointer<Float>, from: Int, to: Int, into output: inout [Float]) {
        precondition(from > 0 && to > 0, "channel counts must be positive (from \(from) to \(to))")
        precondition(input.count % from == 0,
                     "\(input.count) samples is not a whole number of \(from)-channel frames")
        let frames = input.count / from
        guard frames > 0, let source = input.baseAddress else { return }
        if from == to {
            output.append(contentsOf: input)
            return
        }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: frames * to))
        output.withUnsafeMutableBufferPointer { all in
            let destination = all.baseAddress! + start
            if to == 1 {
                let scale = 1 / Float(from)
                for frame in 0..<frames {
                    let row = source + frame * from
                    var sum: Float = 0
                    for channel in 0..<from { sum += row[channel] }
                    destination[frame] = sum * scale
                }
            } else if to > from {
                for frame in 0..<frames {
                    let row = source + frame * from
                    let out = destination + frame * to
                    for channel in 0..<to { out[channel] = row[channel % from] }
                }
            } else {
                // Input channel j feeds output channel j % to; output channel i gets the
                // average of the ceil((from - i) / to) input channels that map to it.
                for frame in 0..<frames {
                    let row = source + frame * from
                    let out = destination + frame * to
                    for channel in 0..<from { out[channel % to] += row[channel] }
                    for channel in 0..<to {
                        let count = (from - channel + to - 1) / to
                        out[channel] /= Float(count)
                    }
                }
            }
        }
    }
}
