/// What a polling reader of a capped log (`logs`, `outbox`) has printed, so each poll prints only what is new.
/// Every poll reads the newest `PollFollower.window` entries: more new entries than that between two polls
/// would be skipped, which at one poll every `interval` no development app reaches.
struct PollFollower<ID: Hashable> {
    private var seen: Set<ID>?

    /// The entries of this poll not printed before; on the first poll, the newest `firstLimit`.
    mutating func unseen<Entry>(_ entries: [Entry], id: (Entry) -> ID, firstLimit: Int) -> [Entry] {
        defer { seen = Set(entries.map(id)) }
        guard let seen else { return Array(entries.suffix(firstLimit)) }
        return entries.filter { !seen.contains(id($0)) }
    }
}

enum PollSchedule {
    static let window = 1_000
    static let interval = Duration.milliseconds(250)
}
