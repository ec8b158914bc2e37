import BSON
import Foundation
import Switchyard

extension AdminAPI {
    /// `GET /build`: the last build of `serve --watch` (`state` building, failed or succeeded; `time`; a failed
    /// build's `output`), or `state: "none"` when this server was not started by a watching supervisor.
    func addBuildRoutes(to routes: inout RouterGroup) {
        let dataDirectory = self.dataDirectory
        routes.add("GET", "/build") { _, _ in
            guard let dataDirectory, let status = BuildStatus.read(dataDirectory: dataDirectory) else {
                return .json(["state": "none"])
            }
            return .json([
                "state": .string(status.state.rawValue),
                "time": .adminDate(status.time),
                "output": .string(status.output),
            ])
        }
    }
}
