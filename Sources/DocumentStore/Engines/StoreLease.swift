import Synchronization

/// A named lease that one store instance at a time holds among all the instances on its database
/// (`DocumentStore.lease(_:changed:)`): what lets one process of several do a job alone. On a database only one
/// instance opens (SQLite, memory) every lease is held from the start and never lost. On a shared database
/// (PostgreSQL) the instance's `LeaseKeeper` tries for it until it holds it, and tells the holder when it is lost.
///
/// Each time the lease is acquired it starts a new tenure (a number that only grows): whatever the holder does
/// under the lease checks `holds(tenure)` before it acts, so work begun under a tenure that ended (the lease lost,
/// and perhaps acquired again since) never writes over what the next holder wrote.
package final class StoreLease: Sendable {
    private struct State {
        var tenure: Int?
        var lastTenure = 0
        var released = false
    }

    package let name: String
    /// The lock's key on a shared database, derived from `name` (the same in every process).
    let key: Int64
    private let state = Mutex(State())
    private let changed: @Sendable (_ held: Bool) -> Void
    private let keeper: any LeaseKeeper

    init(name: String, keeper: any LeaseKeeper, changed: @escaping @Sendable (Bool) -> Void) {
        self.name = name
        key = Self.key(of: name)
        self.keeper = keeper
        self.changed = changed
    }

    /// The current tenure while the lease is held; nil while it is not.
    package var tenure: Int? { state.withLock { $0.tenure } }

    /// Whether `tenure` is still the lease's current one: the lease was not lost since.
    package func holds(_ tenure: Int) -> Bool { state.withLock { $0.tenure == tenure } }

    /// Gives the lease up (another instance may take it at once) and stops trying for it; its holder hears nothing.
    package func release() {
        let released = state.withLock { state -> (first: Bool, wasHeld: Bool) in
            defer {
                state.released = true
                state.tenure = nil
            }
            return (!state.released, state.tenure != nil)
        }
        if released.first { keeper.remove(self, wasHeld: released.wasHeld) }
    }

    var isReleased: Bool { state.withLock { $0.released } }

    /// The keeper acquired it: a new tenure begins, and the holder hears of it unless `silently`.
    func grant(silently: Bool = false) {
        let granted = state.withLock { state -> Bool in
            guard !state.released, state.tenure == nil else { return false }
            state.lastTenure += 1
            state.tenure = state.lastTenure
            return true
        }
        if granted, !silently { changed(true) }
    }

    /// The keeper lost it (its connection to the database ended): the tenure ends before the holder hears of it.
    func lose() {
        let lost = state.withLock { state -> Bool in
            defer { state.tenure = nil }
            return state.tenure != nil && !state.released
        }
        if lost { changed(false) }
    }

    /// FNV-1a over the name's UTF-8 bytes: a 64-bit key every process derives alike (Swift's `Hasher` is seeded per
    /// process).
    static func key(of name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}

/// What acquires, keeps and releases a store instance's leases (`StoreLease`).
protocol LeaseKeeper: AnyObject, Sendable {
    /// Whether other instances may hold leases against this one's (a shared database).
    var isShared: Bool { get }
    /// Starts trying for `lease` (granting it before returning when nothing else can hold it).
    func add(_ lease: StoreLease)
    /// Gives `lease` up (`wasHeld`: it held the lock).
    func remove(_ lease: StoreLease, wasHeld: Bool)
    /// Gives every lease up and ends the keeper's work (its thread and connection, if it has them).
    func close()
}

/// The leases of a store only one instance opens (SQLite, memory): each is held from the start.
final class LocalLeaseKeeper: LeaseKeeper {
    var isShared: Bool { false }
    func add(_ lease: StoreLease) { lease.grant(silently: true) }
    func remove(_ lease: StoreLease, wasHeld: Bool) {}
    func close() {}
}
