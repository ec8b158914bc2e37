import Synchronization

/// Elements appended from any thread without a lock and taken whole, in the order they were appended, by one
/// reader at a time: every function run appends its invocation record from whichever server thread ran it, and a
/// lock they all took would be the server's most contended one.
///
/// A stack of nodes whose head moves by compare-and-exchange; taking swaps the whole stack out at once, so no
/// node is ever removed alone (which is what makes such stacks hard).
///
/// Nodes are plain memory, not objects: a node object of a generic class is destroyed through the runtime's
/// generic metadata look-ups, which cost each element more than the rest of its trip.
final class AppendList<Element: Sendable>: @unchecked Sendable {
    // Unchecked: a node's `next` is written only by the appender that made it, before the node is published by
    // the head's exchange (releasing), and read only after taking it from the head (acquiring); its element is
    // moved out only by the one reader that took the node.
    private struct Node {
        var element: Element
        var next: UnsafeMutablePointer<Node>?
    }

    private let head = Atomic<UnsafeMutablePointer<Node>?>(nil)

    init() {}

    deinit { _ = takeAll() }

    func append(_ element: Element) {
        let node = UnsafeMutablePointer<Node>.allocate(capacity: 1)
        var expected = head.load(ordering: .relaxed)
        node.initialize(to: Node(element: element, next: expected))
        while true {
            let (exchanged, original) = head.compareExchange(
                expected: expected, desired: node, successOrdering: .sequentiallyConsistent,
                failureOrdering: .relaxed)
            if exchanged { return }
            expected = original
            node.pointee.next = expected
        }
    }

    /// True when nothing is waiting to be taken.
    var isEmpty: Bool { head.load(ordering: .sequentiallyConsistent) == nil }

    /// Everything appended and not taken yet, oldest first.
    func takeAll() -> [Element] {
        var next = head.exchange(nil, ordering: .sequentiallyConsistent)
        var elements: [Element] = []
        while let node = next {
            // Moved out: no retain now and release when the node goes.
            let taken = node.move()
            node.deallocate()
            elements.append(taken.element)
            next = taken.next
        }
        elements.reverse()
        return elements
    }
}
