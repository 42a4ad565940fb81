#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <wslay/wslay.h>
