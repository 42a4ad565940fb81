#ifndef CSampleRate_SHIM_H
#define CSampleRate_SHIM_H

#include <samplerate.h>

#endif
