import Foundation
import Messaging
import TestSupport

/// A server the benchmark starts and kills (SIGKILL: children may inherit a blocked SIGTERM).
final class ChildProcess {
    let process = Process()
    let name: String

    init(
        name: String, executable: String, arguments: [String], environment: [String: String]? = nil,
        output: FileHandle? = FileHandle.nullDevice
    ) throws {
        self.name = name
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// Resident memory now (VmRSS) and at its peak (VmHWM), in megabytes.
    func memory() -> (resident: Double, peak: Double)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Double? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else {
                return nil
            }
            return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }.map { $0 / 1024 }
        }
        guard let resident = field("VmRSS"), let peak = field("VmHWM") else { return nil }
        return (resident, peak)
    }

    /// Kills the process and its children (nginx's workers, gunicorn's), which would outlive it otherwise: its
    /// whole process group (it leads one), and any child that left the group.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(-pid, SIGKILL)
        _ = try? runCommand("/usr/bin/pkill", ["-KILL", "-P", "\(pid)"])
        Foundation.kill(pid, SIGKILL)
        // Not `waitUntilExit()`: it can miss an exit that another child's reaping collected, and hang.
        let deadline = ContinuousClock.now + .seconds(5)
        while Foundation.kill(pid, 0) == 0, ContinuousClock.now < deadline {
            _ = waitpid(pid, nil, WNOHANG)
            usleep(2_000)
        }
    }

    deinit { kill() }
}

/// Runs a command to completion and returns its standard output (standard error goes with it).
@discardableResult
func runCommand(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readUntilEnd()
    process.waitUntilExit()
    let output = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
        throw BenchmarkFailure("\(executable) \(arguments.joined(separator: " ")) failed:\n\(output)")
    }
    return output
}

/// Whether something accepts TCP connections on the loopback port.
func isListening(_ port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// Waits until the port accepts connections; false after `timeout`.
func waitUntilListening(_ port: UInt16, timeout: Duration = .seconds(30)) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if isListening(port) { return true }
        usleep(1_000)
    }
    return false
}
