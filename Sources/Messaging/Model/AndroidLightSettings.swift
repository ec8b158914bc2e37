import BSON

/// How the notification LED blinks (`LightSettings`).
public struct AndroidLightSettings: Sendable, Equatable {
    /// A color with components between 0 and 1 (`google.type.Color`).
    public struct Color: Sendable, Equatable {
        public var red: Double
        public var green: Double
        public var blue: Double
        public var alpha: Double?

        public init(red: Double, green: Double, blue: Double, alpha: Double? = nil) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }
    }

    public var color: Color
    /// Durations such as `"0.5s"`.
    public var lightOnDuration: String
    public var lightOffDuration: String

    public init(color: Color, lightOnDuration: String, lightOffDuration: String) {
        self.color = color
        self.lightOnDuration = lightOnDuration
        self.lightOffDuration = lightOffDuration
    }
}

extension AndroidLightSettings {
    static let fieldNames = ["color", "light_on_duration", "light_off_duration"]
    static let colorFieldNames = ["red", "green", "blue", "alpha"]

    var fcmDocument: BSONDocument {
        var colorDocument: BSONDocument = [
            "red": .double(color.red), "green": .double(color.green), "blue": .double(color.blue),
        ]
        if let alpha = color.alpha { colorDocument.append("alpha", .double(alpha)) }
        return [
            "color": .document(colorDocument), "light_on_duration": .string(lightOnDuration),
            "light_off_duration": .string(lightOffDuration),
        ]
    }

    init(fcm value: BSON, path: String) throws(PushError) {
        let r = try FCMObjectReader(value, path: path, fields: Self.fieldNames)
        guard let colorValue = try r.value("color") else { throw Self.missing(r.childPath("color")) }
        let c = try FCMObjectReader(colorValue, path: r.childPath("color"), fields: Self.colorFieldNames)
        let color = Color(
            red: try c.double("red") ?? 0, green: try c.double("green") ?? 0, blue: try c.double("blue") ?? 0,
            alpha: try c.double("alpha"))
        guard let on = try r.string("light_on_duration") else { throw Self.missing(r.childPath("light_on_duration")) }
        guard let off = try r.string("light_off_duration") else {
            throw Self.missing(r.childPath("light_off_duration"))
        }
        self.init(color: color, lightOnDuration: on, lightOffDuration: off)
    }

    private static func missing(_ path: String) -> PushError {
        PushError(code: .invalidArgument, message: "Missing required field '\(path)'.", field: path)
    }
}
