/// The collections that commits of other store instances wrote, as a `CommitListener` heard them: what this
/// instance's caches of those collections no longer vouch for (`CollectionWriteVersions.advance(_:)`).
enum CommittedWrites: Sendable, Equatable {
    /// These collections; none when the commits wrote none (a catalog change of a database, say).
    case collections(Set<Namespace>)
    /// Any collection: a notice named more than it could carry, or the listener may have missed notices.
    case every

    static let none = CommittedWrites.collections([])

    /// Both commits' writes.
    func union(_ other: CommittedWrites) -> CommittedWrites {
        guard case .collections(let these) = self, case .collections(let those) = other else { return .every }
        return .collections(these.union(those))
    }
}
