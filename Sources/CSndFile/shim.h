#ifndef CSndFile_SHIM_H
#define CSndFile_SHIM_H

#include <sndfile.h>

#endif
