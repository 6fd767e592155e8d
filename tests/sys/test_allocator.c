/* test_allocator.c — the allocator column names the malloc the process
 * really runs on, and releasing free memory shrinks the resident set.
 * The Makefile defines RL_MALLOC_JEMALLOC in the MALLOC=jemalloc build. */
#include "tests/support/test_util.h"
#include "harness/keyed/keyed.h"
#include "harness/sys/allocator.h"
#include "harness/sys/build_info.h"
#include "harness/sys/rss.h"

#include <stdlib.h>
#include <string.h>

/* Sanitizers replace malloc with their own (reported by library name). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

static void test_allocator_name(void)
{
    const char *name = rl_allocator_name();
    CU_ASSERT_PTR_NOT_NULL_FATAL(name);
    CU_ASSERT(name[0] != '\0');
    CU_ASSERT_PTR_NULL(strpbrk(name, ",\"\n")); /* one plain CSV cell */
#if defined(SANITIZED)
    CU_ASSERT(strcmp(name, "glibc") != 0);
#elif defined(RL_MALLOC_JEMALLOC)
    /* "jemalloc 5.3.0-0-g…": the version came from mallctl */
    CU_ASSERT_EQUAL(strncmp(name, "jemalloc ", 9), 0);
    CU_ASSERT(name[9] >= '0' && name[9] <= '9');
#else
    CU_ASSERT_STRING_EQUAL(name, "glibc");
#endif
    CU_ASSERT_PTR_EQUAL(rl_allocator_name(), name); /* found once */
}

static void test_context_carries_allocator(void)
{
    struct rl_context ctx;
    rl_context_init(&ctx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx.allocator);
    CU_ASSERT_STRING_EQUAL(ctx.allocator, rl_allocator_name());
}

/* 64 MiB in 1 KiB blocks, touched, freed: glibc keeps them in its heap and
 * jemalloc as dirty pages until told to let them go. */
static void test_release_returns_memory(void)
{
    enum { BLOCKS = 65536, BLOCK = 1024 };
    const char *name = rl_allocator_name();
    bool known = strcmp(name, "glibc") == 0 || strncmp(name, "jemalloc", 8) == 0;
    char **blocks = malloc(BLOCKS * sizeof *blocks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(blocks);
    size_t got = 0;
    for (size_t i = 0; i < BLOCKS; i++) {
        blocks[i] = malloc(BLOCK);
        if (blocks[i] != NULL) {
            memset(blocks[i], (int)i, BLOCK);
            got++;
        }
    }
    CU_ASSERT_EQUAL(got, BLOCKS);
    uint64_t full = rl_rss_bytes();
    for (size_t i = 0; i < BLOCKS; i++)
        free(blocks[i]);
    free(blocks);
    rl_allocator_release();
    uint64_t released = rl_rss_bytes();
    if (known && full > 0)
        CU_ASSERT(released + 32u * 1024 * 1024 < full);
    void *again = malloc(BLOCK); /* the allocator still works */
    CU_ASSERT_PTR_NOT_NULL(again);
    free(again);
}

RL_TEST_SUITE("allocator", {"name matches the build", test_allocator_name},
              {"result context carries it", test_context_carries_allocator},
              {"release returns freed memory", test_release_returns_memory})
