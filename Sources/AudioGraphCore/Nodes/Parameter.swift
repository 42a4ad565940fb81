/// A node parameter declared once, with its Swift type: the `spec` that config validation, `audiograph inspect`,
/// the JSON Schema and the docs read, and a typed, non-optional read of a node's configuration that falls back on
/// the declared default (so no initializer states a default again):
///
/// ```swift
/// static let intervalMs = Parameter.integer("intervalMs", range: 10...60_000, default: 100,
///                                           doc: "Length of each measuring window, in milliseconds of audio.")
/// static let descriptor = NodeDescriptor(..., parameters: [intervalMs.spec], ...)
/// init(configuration: NodeConfiguration) throws { interval = configuration[Self.intervalMs] }
/// ```
///
/// A `.choice` parameter decodes into a `String`-backed enum whose cases are the choices
/// (`Parameter.choice("quality", default: ResamplerQuality.high, doc: …)`).
public struct Parameter<Value: Sendable>: Sendable {
    /// The declaration the rest of the framework reads.
    public let spec: ParameterSpec
    /// What the configuration holds when it leaves the parameter out.
    public let defaultValue: Value
    private let decode: @Sendable (JSONValue) -> Value?

    private init(spec: ParameterSpec, defaultValue: Value, decode: @escaping @Sendable (JSONValue) -> Value?) {
        self.spec = spec
        self.defaultValue = defaultValue
        self.decode = decode
    }

    /// The parameter's value in `values`, or the declared default when it is missing or not of this type.
    public func value(in values: JSONObject) -> Value { values[spec.name].flatMap(decode) ?? defaultValue }
}

extension Parameter where Value == Int {
    public static func integer(_ name: String, range: ClosedRange<Int>? = nil, default value: Int, doc: String) -> Self {
        Self(spec: ParameterSpec(name, .integer(range: range), default: .number(Double(value)), doc: doc),
             defaultValue: value, decode: { $0.intValue })
    }
}

extension Parameter where Value == Double {
    public static func number(_ name: String, range: ClosedRange<Double>? = nil, default value: Double,
                              doc: String) -> Self {
        Self(spec: ParameterSpec(name, .number(range: range), default: .number(value), doc: doc),
             defaultValue: value, decode: { $0.doubleValue })
    }
}

extension Parameter where Value == Bool {
    public static func boolean(_ name: String, default value: Bool, doc: String) -> Self {
        Self(spec: ParameterSpec(name, .boolean, default: .bool(value), doc: doc), defaultValue: value,
             decode: { $0.boolValue })
    }
}

extension Parameter where Value == String {
    public static func string(_ name: String, default value: String, doc: String) -> Self {
        Self(spec: ParameterSpec(name, .string, default: .string(value), doc: doc), defaultValue: value,
             decode: { $0.stringValue })
    }

    /// One of `options`, a list known only at run time (the supported languages); an enum's cases are better
    /// where they are fixed.
    public static func choice(_ name: String, among options: [String], default value: String, doc: String) -> Self {
        Self(spec: ParameterSpec(name, .choice(options), default: .string(value), doc: doc), defaultValue: value,
             decode: { $0.stringValue.flatMap { options.contains($0) ? $0 : nil } })
    }
}

extension Parameter where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the enum's raw values, in the order of its cases.
    public static func choice(_ name: String, default value: Value, doc: String) -> Self {
        Self(spec: ParameterSpec(name, .choice(Value.allCases.map(\.rawValue)), default: .string(value.rawValue), doc: doc),
             defaultValue: value, decode: { $0.stringValue.flatMap(Value.init(rawValue:)) })
    }
}

extension Parameter where Value == Int? {
    /// An integer with no default: nil when the configuration leaves it out.
    public static func integer(_ name: String, range: ClosedRange<Int>? = nil, doc: String) -> Self {
        Self(spec: ParameterSpec(name, .integer(range: range), doc: doc), defaultValue: nil, decode: { $0.intValue })
    }
}

extension Parameter where Value == String? {
    /// A string with no default: nil when the configuration leaves it out.
    public static func string(_ name: String, doc: String) -> Self {
        Self(spec: ParameterSpec(name, .string, doc: doc), defaultValue: nil, decode: { $0.stringValue })
    }
}

extension NodeConfiguration {
    /// The declared parameter's value, or its declared default.
    public subscript<Value>(_ parameter: Parameter<Value>) -> Value { parameter.value(in: values) }
}
