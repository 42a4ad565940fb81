#ifndef CSoxr_SHIM_H
#define CSoxr_SHIM_H

#include <soxr.h>

#endif
