import FuzzSupport

Fuzz.run { fuzzHTTP($0, $1) }
