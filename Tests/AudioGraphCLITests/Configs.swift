import Foundation

/// Config files the CLI tests write into their temp folders. Paths are relative to the config's folder.
enum Configs {
    /// file-source -> resampler (16 kHz mono) -> level-meter (250 ms) -> wav-sink: examples/levels.json in
    /// small.
    static func levels(input: String = "in.wav", output: String = "out/levels.wav") -> String {
        """
        {
          "version": 1,
          "session": { "id": "cli-tests", "room": "tests" },
          "nodes": {
            "src":   { "type": "file-source", "path": "\(input)" },
            "rs":    { "type": "resampler", "sampleRate": 16000, "channels": 1 },
            "level": { "type": "level-meter", "intervalMs": 250 },
            "out":   { "type": "wav-sink", "path": "\(output)" }
          },
          "links": ["src -> rs -> level -> out"]
        }
        """
    }

    /// file-source straight into wav-sink; with a 10-channel input the builder must insert a resampler
    /// (wav-sink takes 1...8 channels), or fail under strictFormats.
    static func direct(input: String, output: String = "out.wav", strictFormats: Bool = false,
                       extraTopLevel: String = "", sinkExtra: String = "") -> String {
        """
        {
          "version": 1,\(strictFormats ? "\n  \"strictFormats\": true," : "")\(extraTopLevel)
          "nodes": {
            "src": { "type": "file-source", "path": "\(input)" },
            "out": { "type": "wav-sink", "path": "\(output)"\(sinkExtra) }
          },
          "links": ["src -> out"]
        }
        """
    }

    /// A real-time file source through a fast level meter into a WAV: for the Ctrl-C test.
    static func live(input: String, output: String) -> String {
        """
        {
          "version": 1,
          "nodes": {
            "src":   { "type": "file-source", "path": "\(input)", "realtime": true },
            "level": { "type": "level-meter", "intervalMs": 100 },
            "out":   { "type": "wav-sink", "path": "\(output)" }
          },
          "links": ["src -> level -> out"]
        }
        """
    }
}
