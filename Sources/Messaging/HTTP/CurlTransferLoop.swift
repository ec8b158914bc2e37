import CCurl
import Foundation
import Synchronization

/// Drives every transfer of one `HTTPClient` through a curl multi handle on a dedicated thread, so blocking
/// network waits never occupy Swift's cooperative pool, and connections are kept and reused between requests.
///
/// `@unchecked Sendable`: `multi` and `running` are used only by the loop thread; other threads reach the loop
/// only through `inbox` (a `Mutex`) and `curl_multi_wakeup`, which curl documents as thread-safe.
final class CurlTransferLoop: @unchecked Sendable {
    private struct Inbox {
        var added: [CurlTransfer] = []
        var stopping = false
        var nextId = 0
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private var running: [Int: CurlTransfer] = [:]

    /// `curl_global_init` is not thread-safe and must run once, before any other curl call.
    private static let globalInit: Void = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    init() throws(HTTPClientError) {
        Self.globalInit
        guard let multi = curl_multi_init() else { throw .other(code: -1, message: "curl_multi_init failed") }
        self.multi = multi
        let thread = Thread { [self] in run() }
        thread.name = "switchyard-http"
        thread.start()
    }

    func nextId() -> Int {
        inbox.withLock {
            $0.nextId += 1
            return $0.nextId
        }
    }

    /// Queues a configured transfer; its continuation is resumed from the loop thread when it ends.
    func add(_ transfer: CurlTransfer) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.added.append(transfer)
            return true
        }
        guard accepted else {
            transfer.finish(
                .failure(
                    .cancelled(
                        "\(transfer.request.method.rawValue) \(transfer.redactedURL): the HTTP client was shut down")))
            return
        }
        curl_multi_wakeup(multi)
    }

    /// Marks the transfer cancelled and wakes the loop, which removes it on its next turn (or on arrival).
    func cancel(_ transfer: CurlTransfer) {
        transfer.isCancelled.store(true, ordering: .releasing)
        curl_multi_wakeup(multi)
    }

    /// Ends the loop: transfers still running fail with `cancelled`.
    func stop() {
        inbox.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
    }

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            let (added, stopping) = inbox.withLock { inbox in
                defer { inbox.added.removeAll() }
                return (inbox.added, inbox.stopping)
            }
            for transfer in added {
                running[transfer.id] = transfer
                curl_multi_add_handle(multi, transfer.easy)
            }
            for (id, transfer) in running where transfer.isCancelled.load(ordering: .acquiring) {
                running.removeValue(forKey: id)
                curl_multi_remove_handle(multi, transfer.easy)
                transfer.finish(.failure(cancelledError(transfer)))
            }
            if stopping {
                for transfer in running.values {
                    curl_multi_remove_handle(multi, transfer.easy)
                    transfer.finish(
                        .failure(
                            .cancelled(
                                "\(transfer.request.method.rawValue) \(transfer.redactedURL): the HTTP client was shut down"
                            )))
                }
                running.removeAll()
                curl_multi_cleanup(multi)
                return
            }

            curl_multi_perform(multi, &stillRunning)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                guard let id = Self.transferId(easy), let transfer = running.removeValue(forKey: id) else { continue }
                curl_multi_remove_handle(multi, easy)
                transfer.finish(code: code)
            }
            // Sleeps until a socket is ready, curl's next timeout, a wakeup, or one second.
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    /// The id stored in the easy handle's `CURLOPT_PRIVATE`.
    private static func transferId(_ easy: UnsafeMutableRawPointer) -> Int? {
        var pointer: UnsafeMutableRawPointer?
        guard ccurl_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer) == CURLE_OK else { return nil }
        return pointer.map { Int(bitPattern: $0) }
    }

    private func cancelledError(_ transfer: CurlTransfer) -> HTTPClientError {
        .cancelled("\(transfer.request.method.rawValue) \(transfer.redactedURL): the waiting task was cancelled")
    }
}
