#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/sample.h>
