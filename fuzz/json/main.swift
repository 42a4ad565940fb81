import FuzzSupport

Fuzz.run { fuzzJSON($0, $1) }
