/// Whose writes a task makes, as an opaque tag the store keeps beside each change-log entry those writes append,
/// so that the entries can be read back by it (`DocumentStore.changes(origins:)`). The store gives the tag no
/// meaning (the trigger runtime sets a function run's invocation id), and no change event a stream, a trigger or a
/// client reads carries it.
package enum StoreWriteOrigin {
    /// The tag of the writes the current task makes; nil: untagged.
    @TaskLocal package static var current: String?
}
