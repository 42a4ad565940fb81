#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/sample.h>
#include <pulse/channelmap.h>
