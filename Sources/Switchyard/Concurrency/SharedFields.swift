/// A value's fields in one immutable box that its copies share: copying the value costs one reference count
/// however many fields it has, reading a field copies that field alone (no exclusivity check, the box never
/// changes), and a change makes a new box. For values copied often on the call path (a call's user, a run's
/// record).
struct SharedFields<Fields: Sendable>: Sendable {
    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    init(_ fields: Fields) {
        box = Box(fields)
    }

    /// Lent from the box rather than copied out whole.
    var fields: Fields {
        _read { yield box.fields }
    }

    /// Replaces the box with one holding the fields as `change` leaves them.
    mutating func change(_ change: (inout Fields) -> Void) {
        var fields = box.fields
        change(&fields)
        box = Box(fields)
    }

    /// Whether both share one box (then their fields are the same without comparing them).
    func sharesBox(with other: SharedFields) -> Bool {
        box === other.box
    }
}
