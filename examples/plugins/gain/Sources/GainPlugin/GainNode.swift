import AudioGraphPluginKit
import Foundation

/// `gain`: multiplies every sample by a gain in dB, optionally limiting to full scale. Each buffer it had to
/// limit is reported as a `clipped` event (kind `clip`) with how many samples were over.
public final class GainNode: AudioNode {
    static let gainDb = Parameter.number("gainDb", range: -96...48, default: 0,
                                         doc: "Gain in dB (6.02 doubles the amplitude).")
    static let limit = Parameter.boolean("limit", default: true,
                                         doc: "Clamp samples to -1…1 and emit a `clipped` event for each buffer that needed it.")

    public static let descriptor = NodeDescriptor(
        type: "gain",
        summary: "Changes the level by a gain in dB; with limit, clamps to full scale and reports clipped buffers.",
        category: .filter,
        parameters: [gainDb.spec, limit.spec],
        inputs: [.init(requires: [.audio])],
        outputs: [.init(produces: [.audio, "clip"], forwardsInput: true)])

    private let factor: Float
    private let limit: Bool

    public init(configuration: NodeConfiguration) throws {
        factor = Float(pow(10, configuration[Self.gainDb] / 20))
        limit = configuration[Self.limit]
    }

    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        var output = buffer
        var clipped = 0
        for index in output.samples.indices {
            var sample = output.samples[index] * factor
            if limit, abs(sample) > 1 {
                sample = sample > 0 ? 1 : -1
                clipped += 1
            }
            output.samples[index] = sample
        }
        context.emit(output)
        if clipped > 0 {
            context.emit(.custom(type: "clipped", kind: "clip", fields: ["samples": .number(Double(clipped))]),
                         at: buffer.startTime)
        }
    }
}

@_cdecl("audiograph_plugin_entry")
public func audiographPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    AudioGraphPlugin.export(name: "gain", version: "1.0.0", nodes: [GainNode.self])
}
