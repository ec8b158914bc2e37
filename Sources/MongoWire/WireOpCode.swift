/// The opcodes of the wire protocol this server reads or writes.
package enum WireOpCode: Int32, Sendable {
    case reply = 1
    case query = 2004
    case compressed = 2012
    case message = 2013
}
