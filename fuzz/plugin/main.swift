import FuzzSupport

Fuzz.run { fuzzPlugin($0, $1) }
