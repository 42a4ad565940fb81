import FuzzSupport

Fuzz.run { fuzzConfig($0, $1) }
