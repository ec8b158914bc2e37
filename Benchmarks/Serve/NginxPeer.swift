import Foundation

/// nginx (Debian) answering `return 200` on a loopback port: what an HTTP server can do on this machine.
final class NginxPeer {
    let port: UInt16
    private let child: ChildProcess

    /// - Parameter body: what every request gets, with status 200.
    init(directory: String, body: String, contentType: String = "application/json", extra: String = "") throws {
        port = freePort()
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
                    listen 127.0.0.1:\(port);
                    \(extra)
                    location / { default_type \(contentType); return 200 '\(body)'; }
                }
            }
            """
        try configuration.write(toFile: "\(directory)/nginx.conf", atomically: true, encoding: .utf8)
        child = try ChildProcess(
            name: "nginx", executable: "/usr/sbin/nginx", arguments: ["-c", "\(directory)/nginx.conf", "-p", directory])
        guard waitUntilListening(port) else {
            throw BenchmarkFailure("nginx did not start (see \(directory)/nginx-error.log)")
        }
    }

    func stop() { child.kill() }
}
