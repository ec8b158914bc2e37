import CCurl
import Foundation
import Synchronization

/// Drives every transfer of one `HTTPClient` through a curl multi handle on a dedicated thread, so blocking
/// network waits never occupy Swift's cooperative pool, and connections are kept and reused between requests
/// (HTTP/2 requests to one origin share a connection as multiplexed streams).
///
/// At most `maximumConcurrentTransfers` are in flight; the rest wait in a queue that holds only the request, so
/// ten thousand queued sends cost ten thousand small structs, not ten thousand curl handles. Easy handles are
/// reset and reused.
///
/// `@unchecked Sendable`: `multi`, `running`, `waiting` and `idleHandles` are used only by the loop thread; other
/// threads reach the loop only through `inbox` (a `Mutex`) and `curl_multi_wakeup`, which curl documents as
/// thread-safe.
final class CurlTransferLoop: @unchecked Sendable {
    private struct Inbox {
        var added: [CurlTransfer] = []
        var cancelled: [CurlTransfer] = []
        var stopping = false
        var nextId = 0
    }

    private let configuration: HTTPClient.Configuration
    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private var running: [Int: CurlTransfer] = [:]
    /// Transfers not started yet, oldest first from `waitingStart`.
    private var waiting: [CurlTransfer] = []
    private var waitingStart = 0
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// Connections opened so far (each transfer reports the new ones it needed).
    let connectionsOpened = Atomic(0)

    /// `curl_global_init` is not thread-safe and must run once, before any other curl call.
    private static let globalInit: Void = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    init(configuration: HTTPClient.Configuration) throws(HTTPClientError) {
        Self.globalInit
        guard let multi = curl_multi_init() else { throw .other(code: -1, message: "curl_multi_init failed") }
        self.multi = multi
        self.configuration = configuration
        ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        ccurl_multi_setopt_long(
            multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maximumStreamsPerConnection))
        if configuration.maximumConnectionsPerHost > 0 {
            ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maximumConnectionsPerHost)
        }
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

    /// Queues a transfer; its continuation is resumed from the loop thread when it ends.
    func add(_ transfer: CurlTransfer) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.added.append(transfer)
            return true
        }
        guard accepted else {
            transfer.finish(.failure(shutDownError(transfer)))
            return
        }
        curl_multi_wakeup(multi)
    }

    /// Marks the transfer cancelled and wakes the loop, which ends it on its next turn, waiting or running.
    func cancel(_ transfer: CurlTransfer) {
        transfer.isCancelled.store(true, ordering: .releasing)
        inbox.withLock { $0.cancelled.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Ends the loop: transfers still waiting or running fail with `cancelled`.
    func stop() {
        inbox.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
    }

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            let (added, cancelled, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.added.removeAll()
                    inbox.cancelled.removeAll()
                }
                return (inbox.added, inbox.cancelled, inbox.stopping)
            }
            for transfer in added {
                // Cancelled before it arrived (the handler runs first when the task was already cancelled).
                if transfer.isCancelled.load(ordering: .acquiring) {
                    transfer.finish(.failure(cancelledError(transfer)))
                } else {
                    waiting.append(transfer)
                }
            }
            for transfer in cancelled {
                if running.removeValue(forKey: transfer.id) != nil { release(transfer) }
                // A waiting transfer is resumed now and skipped when its turn comes.
                transfer.finish(.failure(cancelledError(transfer)))
            }
            if stopping {
                shutDown()
                return
            }

            startWaiting()
            curl_multi_perform(multi, &stillRunning)
            var left: Int32 = 0
            var finishedAny = false
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                guard let id = Self.transferId(easy), let transfer = running.removeValue(forKey: id) else { continue }
                connectionsOpened.add(transfer.connectionsOpened, ordering: .relaxed)
                transfer.finish(code: code)
                release(transfer)
                finishedAny = true
            }
            // Freed slots go to waiting transfers before sleeping.
            if finishedAny && waitingStart < waiting.count { continue }
            // Sleeps until a socket is ready, curl's next timeout, a wakeup, or one second.
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    /// Moves waiting transfers onto easy handles while there is room.
    private func startWaiting() {
        let limit = max(1, configuration.maximumConcurrentTransfers)
        while running.count < limit, waitingStart < waiting.count {
            let transfer = waiting[waitingStart]
            waitingStart += 1
            if transfer.isCancelled.load(ordering: .acquiring) { continue }
            guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
                transfer.finish(.failure(.other(code: -1, message: "curl_easy_init failed")))
                continue
            }
            do {
                try transfer.attach(easy, trustedCertificatesFile: configuration.trustedCertificatesFile)
            } catch {
                recycle(easy)
                transfer.finish(.failure(error))
                continue
            }
            running[transfer.id] = transfer
            curl_multi_add_handle(multi, easy)
        }
        // Drop the consumed prefix once it is the larger part, so the queue stays proportional to what waits.
        if waitingStart > 64 && waitingStart * 2 > waiting.count {
            waiting.removeFirst(waitingStart)
            waitingStart = 0
        }
    }

    /// Takes a transfer's handle out of the multi handle and keeps it for the next transfer.
    private func release(_ transfer: CurlTransfer) {
        guard let easy = transfer.detach() else { return }
        curl_multi_remove_handle(multi, easy)
        recycle(easy)
    }

    private func recycle(_ easy: UnsafeMutableRawPointer) {
        if idleHandles.count < max(1, configuration.maximumConcurrentTransfers) {
            curl_easy_reset(easy)
            idleHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
    }

    private func shutDown() {
        for transfer in running.values {
            release(transfer)
            transfer.finish(.failure(shutDownError(transfer)))
        }
        running.removeAll()
        for transfer in waiting[waitingStart...] { transfer.finish(.failure(shutDownError(transfer))) }
        waiting.removeAll()
        for easy in idleHandles { curl_easy_cleanup(easy) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
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

    private func shutDownError(_ transfer: CurlTransfer) -> HTTPClientError {
        .cancelled("\(transfer.request.method.rawValue) \(transfer.redactedURL): the HTTP client was shut down")
    }
}
