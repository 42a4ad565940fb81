import CFFTW
import Foundation
import Synchronization

/// FFTW's planner is not thread-safe (C-INTEROP.md): every plan in the process is created and destroyed under
/// this one lock. Executing a plan with our own buffers (`fftwf_execute_dft_r2c`) is thread-safe and needs no lock.
let fftwPlannerLock = Mutex<Void>(())

/// Power spectra of Hann-windowed frames: a real-to-complex FFTW plan (float) with its own buffers.
///
/// `powerSpectrum` returns `|X[k]|² / Σ w[n]²` for bins `0...size/2`, so white noise of variance σ² reads σ² in
/// every bin whatever the frame size, and levels compare across sample rates.
///
/// Confinement: an analyzer is used from one thread at a time (its node's); plan creation and destruction take
/// the process-wide planner lock.
public final class SpectralAnalyzer {
    /// FFT length (samples per frame).
    public let size: Int
    /// Bins in a power spectrum: `size / 2 + 1`.
    public var binCount: Int { size / 2 + 1 }

    private let window: [Float]
    private let windowPower: Float
    private let input: UnsafeMutablePointer<Float>
    private let output: UnsafeMutablePointer<fftwf_complex>
    private let plan: fftwf_plan

    /// - Parameter size: the frame length, at least 16.
    public init(size: Int) {
        precondition(size >= 16, "an FFT frame needs at least 16 samples")
        self.size = size
        // A periodic Hann window (sums to a constant at 50% overlap; the usual choice for spectral analysis).
        var window = [Float](repeating: 0, count: size)
        var power = 0.0
        for n in 0..<size {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(size))
            window[n] = Float(w)
            power += w * w
        }
        self.window = window
        windowPower = Float(power)
        let input = fftwf_malloc(MemoryLayout<Float>.stride * size)!.bindMemory(to: Float.self, capacity: size)
        input.initialize(repeating: 0, count: size)
        let bins = size / 2 + 1
        let output = fftwf_malloc(MemoryLayout<fftwf_complex>.stride * bins)!
            .bindMemory(to: fftwf_complex.self, capacity: bins)
        output.initialize(repeating: (0, 0), count: bins)
        // FFTW_ESTIMATE: planning is quick and picks the same algorithm every run, so results are reproducible.
        var plan: fftwf_plan?
        fftwPlannerLock.withLock { _ in
            plan = fftwf_plan_dft_r2c_1d(Int32(size), input, output, FFTW_ESTIMATE)
        }
        guard let plan else { fatalError("FFTW could not plan a real FFT of \(size) points") }
        self.input = input
        self.output = output
        self.plan = plan
    }

    deinit {
        fftwPlannerLock.withLock { _ in fftwf_destroy_plan(plan) }
        fftwf_free(input)
        fftwf_free(output)
    }

    /// Windows `frame` (exactly `size` samples), transforms it and writes the power of each bin to `power`
    /// (`binCount` values).
    public func powerSpectrum(of frame: UnsafeBufferPointer<Float>, into power: UnsafeMutableBufferPointer<Float>) {
        precondition(frame.count == size && power.count >= binCount)
        window.withUnsafeBufferPointer { w in
            for n in 0..<size { input[n] = frame[n] * w[n] }
        }
        fftwf_execute_dft_r2c(plan, input, output)
        let scale = 1 / windowPower
        for k in 0..<binCount {
            let (re, im) = output[k]
            power[k] = (re * re + im * im) * scale
        }
    }
}
