/* test_grow_array.c — the shared grow step (harness/io/grow_array.h): no
 * reallocation while there is room, the first capacity then doubling with
 * the items kept, and a size that would overflow refused with the array
 * and its capacity left as they were. */
#include "tests/support/test_util.h"

#include "harness/io/grow_array.h"

#include <stdint.h>
#include <stdlib.h>

static void test_grows_by_doubling(void)
{
    uint64_t *a = NULL;
    size_t len = 0, cap = 0, grew = 0, caps[8];
    for (uint64_t i = 0; i < 100; i++) {
        size_t before = cap;
        uint64_t *g = rl_grow_array(a, &cap, len, sizeof *g, 16);
        EXPECT_FATAL(g != NULL, "no room at %zu items", len);
        if (cap != before) {
            EXPECT(grew < 8, "grew %zu times", grew + 1);
            if (grew < 8)
                caps[grew] = cap;
            grew++;
        } else {
            EXPECT(g == a, "moved with room left at %zu of %zu", len, cap);
        }
        a = g;
        a[len++] = i * 7;
    }
    EXPECT(grew == 4 && caps[0] == 16 && caps[1] == 32 && caps[2] == 64 && caps[3] == 128,
           "capacities: %zu grows, %zu %zu %zu %zu", grew, caps[0], caps[1], caps[2], caps[3]);
    size_t wrong = 0;
    for (size_t i = 0; i < len; i++)
        wrong += a[i] != i * 7;
    EXPECT(wrong == 0, "%zu items lost in the moves", wrong);
    free(a);
}

static void test_overflow_refused(void)
{
    char *a = malloc(4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    /* volatile: the sizes reach the check at run time, not folded away */
    volatile size_t one = 1, huge = SIZE_MAX / 8 + 2;
    size_t cap = SIZE_MAX / 2 + 1; /* doubled, it wraps to 0 */
    EXPECT(rl_grow_array(a, &cap, cap, one, 16) == NULL && cap == SIZE_MAX / 2 + 1,
           "a wrapping capacity gave room (cap now %zu)", cap);
    cap = 4;
    char *g = rl_grow_array(a, &cap, cap, huge, 16);
    EXPECT(g == NULL && cap == 4,
           "8 items of 2^61 + 1 bytes (a product that wraps to 8) gave room (cap now %zu)", cap);
    free(g != NULL ? g : a); /* still the caller's: a refusal frees nothing */
}

RL_TEST_SUITE("grow_array", {"room by doubling, items kept", test_grows_by_doubling},
              {"an overflowing size is refused", test_overflow_refused})
