@_exported import AudioGraphCore
@_exported import AudioGraphDSP
@_exported import AudioGraphIO
@_exported import AudioGraphSpeech
@_exported import AudioGraphStore
@_exported import AudioGraphSessions
@_exported import AudioGraphServer
@_exported import AudioGraphClient
