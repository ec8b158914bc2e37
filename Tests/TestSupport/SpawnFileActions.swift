import Foundation

/// Adds to `actions` the closing of every descriptor from `lowest` up in the child.
///
/// A child started with `posix_spawn` inherits every descriptor the test process has open without close-on-exec, and
/// Foundation's pipes have none: a PostgreSQL server started while another test reads its child's output would hold
/// that pipe's write end for as long as it runs, and the other test's read would never see its end (the hang of a
/// whole suite). Foundation's own `Process` closes them; `posix_spawn`'s callers add this.
public func addClosingOfInheritedDescriptors(
    _ actions: inout posix_spawn_file_actions_t, from lowest: Int32 = 3
) throws {
    guard let addCloseFrom = closeFromAction else {
        throw SpawnError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has)")
    }
    let status = addCloseFrom(&actions, lowest)
    guard status == 0 else {
        throw SpawnError("posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(status)))")
    }
}

/// Sets `attributes` so that the child starts with no signal blocked and every handler at its default, whatever the
/// test run set for itself; `flags` (`POSIX_SPAWN_SETPGROUP`, say) are set beside.
public func resetSignals(_ attributes: inout posix_spawnattr_t, flags: Int32 = 0) {
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | flags))
}

/// Why a child could not be set up to start.
public struct SpawnError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np`, looked up at run time: Swift's Glibc module leaves out this
/// GNU extension.
private let closeFromAction: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return nil }
    return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()
