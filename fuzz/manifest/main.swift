import FuzzSupport

Fuzz.run { fuzzManifest($0, $1) }
