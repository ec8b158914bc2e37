import Synchronization

/// Elements appended from any thread without a lock and taken whole, in the order they were appended, by one
/// reader at a time: every function run appends its invocation record from whichever server thread ran it, and a
/// lock they all take became the server's most contended one.
///
/// A stack of nodes whose head moves by compare-and-exchange; taking swaps the whole stack out at once, so no
/// node is ever removed alone (which is what makes such stacks hard).
final class AppendList<Element: Sendable>: Sendable {
    private final class Node: @unchecked Sendable {
        // Unchecked: `next` is written only by the appender that made the node, before the node is published
        // by the head's exchange (releasing), and read only after taking it from the head (acquiring); `element`
        // is moved out only by the one reader that took the node.
        var element: Element?
        var next: Unmanaged<Node>?

        init(_ element: Element) { self.element = element }
    }

    private let head = Atomic<Unmanaged<Node>?>(nil)

    init() {}

    deinit { _ = takeAll() }

    func append(_ element: Element) {
        let node = Unmanaged.passRetained(Node(element))
        var expected = head.load(ordering: .relaxed)
        while true {
            node._withUnsafeGuaranteedRef { $0.next = expected }
            let (exchanged, original) = head.compareExchange(
                expected: expected, desired: node, successOrdering: .sequentiallyConsistent,
                failureOrdering: .relaxed)
            if exchanged { return }
            expected = original
        }
    }

    /// True when nothing is waiting to be taken.
    var isEmpty: Bool { head.load(ordering: .sequentiallyConsistent) == nil }

    /// Everything appended and not taken yet, oldest first.
    func takeAll() -> [Element] {
        var next = head.exchange(nil, ordering: .sequentiallyConsistent)
        var elements: [Element] = []
        while let node = next {
            let taken = node.takeRetainedValue()
            // Moved out rather than copied: no retain now and release when the node goes.
            if let element = taken.element.take() { elements.append(element) }
            next = taken.next
        }
        elements.reverse()
        return elements
    }
}
