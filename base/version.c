#include "base.h"

#define HEFT_STRINGIFY_(x) #x
#define HEFT_STRINGIFY(x) HEFT_STRINGIFY_(x)

int heft_version(void) {
    return HEFT_VERSION;
}

const char *heft_version_string(void) {
    return HEFT_STRINGIFY(HEFT_VERSION_MAJOR) "." HEFT_STRINGIFY(
        HEFT_VERSION_MINOR) "." HEFT_STRINGIFY(HEFT_VERSION_PATCH);
}

int heft_version_compatible(int header_version) {
    int major = header_version / 10000;
    int minor = header_version / 100 % 100;
    if (header_version < 0 || major != HEFT_VERSION_MAJOR) {
        return 0;
    }
    /* before 1.0 a minor version may change the API */
    return major != 0 || minor == HEFT_VERSION_MINOR;
}
