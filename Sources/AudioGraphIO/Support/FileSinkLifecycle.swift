import AudioGraphCore

/// A file writer a sink node drives: samples in, then one `close` that finalizes the file.
protocol SinkFileWriter: AnyObject {
    associatedtype Failure: AudioFileError
    func write(_ samples: UnsafeBufferPointer<Float>) throws(Failure)
    func close() throws(Failure)
}

extension SoundFileWriter: SinkFileWriter {}
extension AACFileWriter: SinkFileWriter {}

/// The output file of a file-writing sink node (`wav-sink`, `aac-sink`), through the node's lifecycle:
/// - `check` (in `start`) throws what creating the file would meet, changing nothing;
/// - `open` (in `openOutputs`, once every node of the run started) creates the file's folder, then the writer;
/// - `write` (in `process`) writes a buffer's samples;
/// - `finish` (end of stream) closes the file and throws what closing throws;
/// - `stop` (SIGINT, a failure elsewhere or here) closes it if `finish` did not, and never throws.
///
/// The file is closed once: after `finish` or `stop` there is no writer, so both are idempotent. Writer failures
/// become `GraphError`s naming the file and the node: `cannotCreateOutput` when opening, `io` after.
struct FileSinkLifecycle<Writer: SinkFileWriter> {
    let path: String
    let node: NodeConfiguration
    /// The open writer: nil before `open` (and when the node had no input to open it for) and after closing.
    private(set) var writer: Writer?

    init(path: String, node: NodeConfiguration) {
        self.path = path
        self.node = node
    }

    /// Throws the error creating the file would meet, changing nothing (in `start`).
    func check() throws(GraphError) {
        try OutputPaths.checkCreatable(path, node: node.id)
    }

    /// Creates the folder that will hold the file, then the writer: `create(path)` (in `openOutputs`).
    mutating func open(_ create: (String) throws(Writer.Failure) -> Writer) throws(GraphError) {
        try OutputPaths.createParentDirectory(of: path, node: node.id)
        do {
            writer = try create(path)
        } catch {
            throw GraphError(.cannotCreateOutput, at: path, error.message, node: node.id)
        }
    }

    /// Writes the buffer's samples; returns the writer, or nil (nothing written) when no file is open.
    @discardableResult
    func write(_ buffer: AudioBuffer) throws(GraphError) -> Writer? {
        guard let writer else { return nil }
        do {
            try buffer.samples.withUnsafeBufferPointer { samples throws(Writer.Failure) in try writer.write(samples) }
        } catch {
            throw GraphError(.io, at: path, error.message, node: node.id)
        }
        return writer
    }

    mutating func finish() throws(GraphError) {
        guard let writer else { return }
        self.writer = nil
        do {
            try writer.close()
        } catch {
            throw GraphError(.io, at: path, error.message, node: node.id)
        }
    }

    mutating func stop() {
        try? writer?.close()
        writer = nil
    }
}
