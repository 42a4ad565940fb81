import FuzzSupport

Fuzz.run { fuzzWebSocket($0, $1) }
