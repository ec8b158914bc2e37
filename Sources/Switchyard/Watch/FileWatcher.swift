import Foundation
import Synchronization

/// Watches directories with inotify (on a thread of its own) and reports the files that changed, once a burst
/// of changes has been quiet for `debounce` — an editor's save is often several events (write a temporary file,
/// rename it over the original) microseconds apart, so a short quiet period groups them without delaying the
/// reload much. Hidden files and editor leftovers (`.name`, `name~`, `*.swp`) are ignored.
/// Recursive watches follow directories created later.
///
/// ```swift
/// let watcher = try FileWatcher([.init(path: "functions", recursive: true)]) { changed in print(changed) }
/// watcher.stop()
/// ```
package final class FileWatcher: Sendable {
    package struct Directory: Sendable {
        package var path: String
        package var recursive: Bool

        package init(path: String, recursive: Bool) {
            self.path = path
            self.recursive = recursive
        }
    }

    private let descriptor: Int32
    private let control = LoopControl()

    /// - Throws: `FileWatcherError` when inotify is unavailable or a directory cannot be watched.
    package init(
        _ directories: [Directory], debounce: Duration = .milliseconds(25),
        onChange: @escaping @Sendable (Set<String>) -> Void
    ) throws(FileWatcherError) {
        // Everything that can fail happens before the watcher thread exists (deinit waits for that thread).
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw FileWatcherError("inotify is unavailable: \(String(cString: strerror(errno)))")
        }
        var watches = WatchTable()
        for directory in directories {
            do {
                try watches.add(directory.path, recursive: directory.recursive, descriptor: descriptor)
            } catch {
                close(descriptor)
                throw error
            }
        }
        self.descriptor = descriptor
        let control = self.control
        let table = UncheckedWatchTable(table: watches)
        let thread = Thread {
            Self.loop(
                descriptor: descriptor, table: table.table, debounce: debounce, control: control, onChange: onChange)
            control.finished.signal()
        }
        thread.name = "switchyard file watcher"
        thread.start()
    }

    deinit { stop() }

    /// Stops watching; no report arrives after this returns.
    package func stop() {
        guard !control.stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        control.finished.wait()
        close(descriptor)
    }

    private static func loop(
        descriptor: Int32, table: WatchTable, debounce: Duration, control: LoopControl,
        onChange: @Sendable (Set<String>) -> Void
    ) {
        var table = table
        var pending: Set<String> = []
        var quietSince = ContinuousClock.now
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !control.stopped.load(ordering: .acquiring) {
            // Wake when the quiet period ends, else now and then to notice `stop()`.
            let timeout = pending.isEmpty ? 100 : max(0, milliseconds(debounce - (ContinuousClock.now - quietSince)))
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(timeout))
            if ready > 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    for (watch, mask, name) in events(in: buffer, count: count) {
                        guard let directory = table.paths[watch], !name.isEmpty else { continue }
                        let path = "\(directory)/\(name)"
                        if mask & UInt32(IN_ISDIR) != 0 {
                            if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, table.recursive.contains(watch) {
                                try? table.add(path, recursive: true, descriptor: descriptor)
                            }
                            continue
                        }
                        guard !isIgnored(name) else { continue }
                        pending.insert(path)
                        quietSince = ContinuousClock.now
                    }
                }
            }
            if !pending.isEmpty, ContinuousClock.now - quietSince >= debounce {
                let changed = pending
                pending = []
                onChange(changed)
            }
        }
    }

    /// Rounded up, so a wait never ends just before the quiet period does.
    private static func milliseconds(_ duration: Duration) -> Int {
        let perMillisecond: Int64 = 1_000_000_000_000_000
        return Int(duration.components.seconds) * 1000
            + Int((duration.components.attoseconds + perMillisecond - 1) / perMillisecond)
    }

    /// The events in the first `count` bytes of `buffer`: watch descriptor, mask, file name.
    private static func events(in buffer: [UInt8], count: Int) -> [(Int32, UInt32, String)] {
        var events: [(Int32, UInt32, String)] = []
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        buffer.withUnsafeBytes { bytes in
            while offset + header <= count {
                let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = bytes[(offset + header)..<min(count, offset + header + length)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                events.append((watch, mask, name))
                offset += header + length
            }
        }
        return events
    }

    private static func isIgnored(_ name: String) -> Bool {
        name.hasPrefix(".") || name.hasSuffix("~") || name.hasSuffix(".swp") || name.hasSuffix(".swx")
            || name.hasPrefix("#")
    }
}

/// How `stop()` tells the watcher thread to end, and learns that it did.
private final class LoopControl: Sendable {
    let stopped = Atomic(false)
    let finished = DispatchSemaphore(value: 0)
}

/// inotify watch descriptors and the directories they stand for.
private struct WatchTable {
    var paths: [Int32: String] = [:]
    var recursive: Set<Int32> = []

    mutating func add(_ path: String, recursive: Bool, descriptor: Int32) throws(FileWatcherError) {
        let watch = inotify_add_watch(
            descriptor, path, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ONLYDIR))
        guard watch >= 0 else {
            throw FileWatcherError("cannot watch \(path): \(String(cString: strerror(errno)))")
        }
        paths[watch] = path
        guard recursive else { return }
        self.recursive.insert(watch)
        let children = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for child in children where !child.hasPrefix(".") {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(path)/\(child)", isDirectory: &isDirectory),
                isDirectory.boolValue
            {
                try add("\(path)/\(child)", recursive: true, descriptor: descriptor)
            }
        }
    }
}

/// Hands the table to the watcher thread, which is its only user from then on.
private struct UncheckedWatchTable: @unchecked Sendable {
    let table: WatchTable
}

/// A directory could not be watched.
package struct FileWatcherError: Error, Sendable, CustomStringConvertible {
    package var message: String
    init(_ message: String) { self.message = message }
    package var description: String { message }
}
