import Foundation
import TestSupport

/// nginx (Debian) on a loopback port: the peer answering `return 200` (what an HTTP server can do on this
/// machine), or the stand-in server another benchmark's clients talk to.
final class NginxPeer {
    let port: UInt16
    private let child: ChildProcess

    /// Every request gets `body` with status 200.
    convenience init(directory: String, body: String, contentType: String = "application/json") throws {
        try self.init(directory: directory, server: "location / { default_type \(contentType); return 200 '\(body)'; }")
    }

    /// - Parameters:
    ///   - listenOptions: after `listen 127.0.0.1:PORT`, e.g. `ssl http2`.
    ///   - server: the server block's directives (locations, certificates).
    init(directory: String, port: UInt16 = closedLoopbackPort(), listenOptions: String = "", server: String) throws {
        self.port = port
        let user = getuid() == 0 ? "user root;" : ""
        let configuration = """
            \(user)
            worker_processes auto;
            daemon off;
            pid \(directory)/nginx.pid;
            error_log \(directory)/nginx-error.log;
            events { worker_connections 4096; }
            http {
                access_log off;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                keepalive_requests 1000000;
                server {
                    listen 127.0.0.1:\(port) \(listenOptions);
                    \(server)
                }
            }
            """
        try configuration.write(toFile: "\(directory)/nginx.conf", atomically: true, encoding: .utf8)
        child = try ChildProcess(
            name: "nginx", executable: "/usr/sbin/nginx",
            arguments: ["-c", "\(directory)/nginx.conf", "-p", directory, "-e", "\(directory)/nginx-error.log"])
        guard waitUntilListening(port) else {
            throw BenchmarkFailure("nginx did not start (see \(directory)/nginx-error.log)")
        }
    }

    func stop() { child.kill() }
}
