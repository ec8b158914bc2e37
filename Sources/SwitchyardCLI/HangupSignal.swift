import Dispatch
import Foundation

/// SIGHUP, the Unix way of asking a server to reload its configuration: each signal is one element of
/// `signals`, consumed in order (a reload never overlaps the previous one).
final class HangupSignal: Sendable {
    let signals: AsyncStream<Void>
    // Safe: set once in `init` and only cancelled in `deinit`; dispatch sources are thread-safe.
    nonisolated(unsafe) private let source: any DispatchSourceSignal

    init() {
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.signals = signals
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { continuation.yield() }
        source.resume()
    }

    deinit { source.cancel() }
}
