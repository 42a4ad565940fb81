/// Code that imports the store gets its model too (records, requests, errors, the protocols), as before the
/// model became a module of its own for the C-free client.
@_exported import AudioGraphStoreModel
