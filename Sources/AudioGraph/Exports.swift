@_exported import AudioGraphCore
