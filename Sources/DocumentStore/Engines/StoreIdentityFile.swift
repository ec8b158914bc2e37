import Foundation

/// `store.identity` beside `store.sqlite`: the store's identity (a random number also kept inside the database)
/// and the last change-log position known to be on disk. SQLite opens a store whose write-ahead log is gone or
/// damaged, or a file that was emptied or deleted, without a word, as a store with less (or nothing) in it; this
/// small file is what lets the store notice at start that committed data is missing.
///
/// The position is written by a thread of its own after commits, at most every `interval`: it first syncs the
/// write-ahead log, so the file never claims a commit the disk may not hold, then replaces the file atomically
/// (write, sync, rename). Damage to the commits of the last moments before a crash, not yet recorded, can go
/// unnoticed; anything older cannot.
final class StoreIdentityFile: @unchecked Sendable {
    /// What the file says.
    struct Contents: Equatable {
        var identity: Int64
        var committedThrough: Int64
    }

    static let fileName = "store.identity"
    private static let interval = 0.05

    let path: String
    private let walPath: String
    let identity: Int64
    // `requested`, `written`, `closing` and `ended` are guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var requested: Int64
    private var written: Int64
    private var closing = false
    private var ended = false

    /// Starts recording positions for the store `identity` in `directory`, from `committedThrough`, written now.
    init(directory: String, identity: Int64, committedThrough: Int64) throws(StoreError) {
        path = directory + "/" + Self.fileName
        walPath = directory + "/store.sqlite-wal"
        self.identity = identity
        requested = committedThrough
        written = committedThrough
        try save(committedThrough)
        Thread.detachNewThread { [self] in run() }
    }

    /// Reads the file in `directory`: nil when there is none; an error when it cannot be read or parsed.
    static func read(directory: String) throws(StoreError) -> Contents? {
        let path = directory + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let identity = (object["store"] as? NSNumber)?.int64Value,
            let committed = (object["committedThrough"] as? NSNumber)?.int64Value
        else {
            throw .dataCorruptionDetected(
                "\(path) cannot be read as the store's identity file; move it away to start without the check")
        }
        return Contents(identity: identity, committedThrough: committed)
    }

    /// A commit through change `sequence` returned.
    func committed(through sequence: Int64) {
        condition.lock()
        if sequence > requested {
            requested = sequence
            condition.signal()
        }
        condition.unlock()
    }

    /// Stops the thread and records `sequence`, once the store is closed (its log checkpointed into the file).
    func finish(committedThrough sequence: Int64) {
        condition.lock()
        closing = true
        condition.broadcast()
        while !ended { condition.wait() }
        condition.unlock()
        try? save(sequence)
    }

    private func run() {
        while true {
            condition.lock()
            while requested == written && !closing { condition.wait() }
            if closing {
                ended = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let position = requested
            condition.unlock()
            if (try? save(position)) != nil {
                condition.lock()
                written = position
                condition.unlock()
            }
            Thread.sleep(forTimeInterval: Self.interval)
        }
    }

    private func save(_ position: Int64) throws(StoreError) {
        Self.sync(walPath)
        try Self.save(Contents(identity: identity, committedThrough: position), to: path)
    }

    /// Replaces the file at `path` with `contents`, synced, atomically.
    static func save(_ contents: Contents, to path: String) throws(StoreError) {
        let text = #"{"store": \#(contents.identity), "committedThrough": \#(contents.committedThrough)}"# + "\n"
        // Named for this process: a second one with the store open (`switchyard logs` beside `serve`) writes its own.
        let temporary = "\(path).\(getpid()).new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw failure(path) }
        let bytes = Array(text.utf8)
        let complete = write(descriptor, bytes, bytes.count) == bytes.count && fsync(descriptor) == 0
        close(descriptor)
        guard complete, rename(temporary, path) == 0 else { throw failure(path) }
        sync((path as NSString).deletingLastPathComponent)
    }

    /// Syncs a file or directory when it exists.
    private static func sync(_ path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func failure(_ path: String) -> StoreError {
        if errno == ENOSPC {
            return .outOfDiskSpace(
                "the disk holding the data directory is full: the store's identity file was not saved")
        }
        return .storageFailure("cannot write \(path): \(String(cString: strerror(errno)))")
    }
}
