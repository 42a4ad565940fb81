/* The plugin ABI is the header alone; this file gives the C target something to compile. */
#include "audiograph_plugin.h"
