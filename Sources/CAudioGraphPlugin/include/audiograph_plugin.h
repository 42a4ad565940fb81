/*
 * audiograph_plugin.h — the C ABI between audiograph and the plugins it loads at run time.
 *
 * Only C types cross this boundary: a plugin links its own copy of the Swift code it uses (AudioGraphPluginKit
 * turns Swift node types and recognizer engines into these tables), so host and plugin may be built by
 * different compilers and neither sees the other's Swift types. Structured values cross as UTF-8 JSON text.
 *
 * A plugin is a shared library exporting
 *
 *     const ag_plugin *audiograph_plugin_entry(const ag_host_api *host);
 *
 * The host calls it once, checks `abi_version` before reading anything else, and refuses a plugin built for
 * another version. Every function table starts with its own size, so later minor additions can be detected.
 *
 * Threading: the host calls one node instance (and one recognizer instance) from one thread at a time.
 * Strings returned by the plugin through `ag_string_result` are freed with the plugin's `free_string`.
 */
#ifndef AUDIOGRAPH_PLUGIN_H
#define AUDIOGRAPH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change. A plugin built against another version is refused at load.
 * Version 2 (audiograph 0.x, issue 15): `ag_engine_type.parameters_json`, an engine's own parameters. A plugin
 * built for version 1 is refused with a message saying so: rebuild it against this header. */
#ifndef AG_PLUGIN_ABI_VERSION
#define AG_PLUGIN_ABI_VERSION 2
#endif

/* The entry point's name, for dlsym. */
#define AG_PLUGIN_ENTRY_SYMBOL "audiograph_plugin_entry"

/* What failed, filled in by the plugin when a call returns AG_FAILED or NULL. `code` is a sysexits exit status
 * (64 usage, 65 bad config or data, 66 missing input, 69 unavailable, 70 software error, 73 cannot create
 * output, 74 I/O error); `location` is where (a JSON path like "nodes.g.gain", a parameter name, or "") */
typedef struct ag_error {
    int32_t code;
    char location[256];
    char message[1024];
} ag_error;

enum { AG_OK = 0, AG_FAILED = -1 };

/* The host's side of a running node: valid only during the call it was passed to. */
typedef struct ag_host_node ag_host_node;

typedef struct ag_host_api {
    uint32_t abi_version;
    uint32_t struct_size;
    /* Audio downstream: `frames` interleaved frames of `channels` floats at `sample_rate`, the first at stream
     * position `position` (frames since the start of the stream). */
    void (*emit_audio)(ag_host_node *host, const float *samples, int64_t frames, int32_t channels,
                       int32_t sample_rate, int64_t position, int32_t port);
    /* An event downstream, as JSON: {"type":..., "node":..., "time":..., fields...}. A new event of this node
     * gets "node" filled in by the host. `forwarded` is 1 for an event passed on unchanged. */
    void (*emit_event)(ag_host_node *host, const char *event_json, int32_t forwarded, int32_t port);
    /* A control command downstream, as JSON: {"command":"startTranscription"} and the like. */
    void (*send_command)(ag_host_node *host, const char *command_json, int32_t port);
    /* A warning for the user; the graph goes on. */
    void (*warn)(ag_host_node *host, const char *message);
} ag_host_api;

/* One node type. `type_context` is the plugin's own, passed back to `create`. */
typedef struct ag_node_type {
    uint32_t struct_size;
    void *type_context;
    /* The node's declaration: {"type","summary","category","parameters":[...],"inputs":[...],"outputs":[...],
     * "acceptedFormats":{...},"execution":{...}} (AudioGraphPluginKit writes it from a NodeDescriptor). */
    const char *descriptor_json;
    /* Creates an instance from {"id","type","values":{...validated parameters...},"baseDirectory","session"}. */
    void *(*create)(void *type_context, const char *configuration_json, ag_error *error);
    /* Sets *has_output to 0 when the node outputs no audio; else writes the output format. `has_input` is 0
     * for nodes fed no audio. */
    int32_t (*output_format)(void *node, int32_t has_input, int32_t input_rate, int32_t input_channels,
                             int32_t *has_output, int32_t *output_rate, int32_t *output_channels, ag_error *error);
    /* Before the first frame. `start_json`: {"nodeID","inputFormat","outputFormat","inputKinds","realtime","verbose"}. */
    int32_t (*start)(void *node, const ag_host_api *api, ag_host_node *host, const char *start_json, ag_error *error);
    int32_t (*process)(void *node, ag_host_node *host, const float *samples, int64_t frames, int32_t channels,
                       int32_t sample_rate, int64_t position, ag_error *error);
    int32_t (*handle_event)(void *node, ag_host_node *host, const char *event_json, ag_error *error);
    int32_t (*handle_command)(void *node, ag_host_node *host, const char *command_json, ag_error *error);
    int32_t (*finish)(void *node, ag_host_node *host, ag_error *error);
    /* Always called last; must not fail. */
    void (*stop)(void *node);
    void (*destroy)(void *node);
} ag_node_type;

/* One recognizer engine (selected by the recognizer node's "engine" parameter). */
typedef struct ag_engine_type {
    uint32_t struct_size;
    void *type_context;
    const char *name;
    const char *summary;
    /* Options JSON: {"language","parameters":{...},"verbose","wantsPartials","node":{configuration}}.
     * Capabilities JSON: {"streaming","partialResults","wordTimings","languages":[...],"sampleRate"}. */
    char *(*capabilities)(void *type_context, const char *options_json);
    int32_t (*validate)(void *type_context, const char *options_json, ag_error *error);
    void *(*create)(void *type_context, const char *options_json, ag_error *error);
    int32_t (*start_utterance)(void *recognizer, ag_error *error);
    /* Mono samples at the capabilities' sample rate. */
    int32_t (*process)(void *recognizer, const float *samples, int64_t count, ag_error *error);
    /* The best hypothesis so far ("" when none); freed with free_string. */
    char *(*partial_hypothesis)(void *recognizer);
    /* {"text","confidence","words":[{"word","start","end","confidence"}]}; speech_frames < 0 when unknown. */
    char *(*end_utterance)(void *recognizer, int64_t speech_frames, ag_error *error);
    void (*destroy)(void *recognizer);
    /* ABI 2: the engine's own parameters, set on the recognizer node beside its common ones, as a JSON array in
     * the encoding of a node declaration's "parameters" ([{"name","kind","doc","required","default",...}]);
     * NULL or "[]" for none. The host validates them (types, ranges, defaults, path checks) and passes only
     * these, in options_json's "parameters"; any other parameter is refused before the engine is asked. */
    const char *parameters_json;
} ag_engine_type;

typedef struct ag_plugin {
    /* First, always: the AG_PLUGIN_ABI_VERSION the plugin was built against. */
    uint32_t abi_version;
    uint32_t struct_size;
    const char *name;
    const char *version;
    uint32_t node_type_count;
    const ag_node_type *node_types;
    uint32_t engine_count;
    const ag_engine_type *engines;
    void (*free_string)(char *string);
} ag_plugin;

typedef const ag_plugin *(*ag_plugin_entry_fn)(const ag_host_api *host);

/* The version this header describes (for Swift, where the macro does not import). */
static inline uint32_t ag_plugin_abi_version(void) { return AG_PLUGIN_ABI_VERSION; }

#ifdef __cplusplus
}
#endif

#endif
