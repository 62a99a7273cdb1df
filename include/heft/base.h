/* Heft: what the engine and the solver library share. The export macro,
 * the version, the allocation hooks and the clock of the statistics.
 *
 * Included by heft.h (the engine) and mlcp.h (the solvers on their own);
 * an application does not need to include it directly. */
#ifndef HEFT_BASE_H
#define HEFT_BASE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* HEFT_API marks the functions of the public API. The library is built with
 * hidden visibility, so nothing else leaves a shared libheft. */
#if defined(_WIN32) && defined(HEFT_SHARED)
#ifdef HEFT_BUILD
#define HEFT_API __declspec(dllexport)
#else
#define HEFT_API __declspec(dllimport)
#endif
#elif defined(HEFT_BUILD) && (defined(__GNUC__) || defined(__clang__))
#define HEFT_API __attribute__((visibility("default")))
#else
#define HEFT_API
#endif

/* ---- version ------------------------------------------------------------ */

#define HEFT_VERSION_MAJOR 0
#define HEFT_VERSION_MINOR 1
#define HEFT_VERSION_PATCH 0
/* major * 10000 + minor * 100 + patch, the form heft_version() returns */
#define HEFT_VERSION (HEFT_VERSION_MAJOR * 10000 + HEFT_VERSION_MINOR * 100 + HEFT_VERSION_PATCH)

/* The version of the library linked, as HEFT_VERSION; and as "0.1.0". */
HEFT_API int heft_version(void);
HEFT_API const char *heft_version_string(void);

/* 1 when the library linked can serve code compiled against the headers of
 * version header_version (pass HEFT_VERSION): the same major version and, while
 * the major version is 0, the same minor version. 0 otherwise. */
HEFT_API int heft_version_compatible(int header_version);

/* ---- memory ------------------------------------------------------------ */

/* Every allocation of the engine and the solvers goes through these hooks, so
 * an application can supply its own allocator and a test can count calls.
 * Passing NULL functions restores malloc/realloc/free. Set them before the
 * first world or solver is made, and not while another thread uses Heft. */
typedef struct heft_allocator {
    void *(*alloc)(size_t size, void *user);
    void *(*realloc)(void *ptr, size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} heft_allocator;

HEFT_API void heft_set_allocator(const heft_allocator *allocator);
HEFT_API void *heft_alloc(size_t size);
HEFT_API void *heft_realloc(void *ptr, size_t size);
HEFT_API void heft_free(void *ptr);

/* ---- clock -------------------------------------------------------------- */

/* Milliseconds from an arbitrary origin, for the statistics' timings: the
 * monotonic clock where the C library offers one through timespec_get
 * (TIME_MONOTONIC), else the calendar clock (TIME_UTC). */
HEFT_API double heft_time_ms(void);

#ifdef __cplusplus
}
#endif

#endif
