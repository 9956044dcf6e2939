/**
 * \file input.c
 * \brief Seeded input patterns and the exact CPU reference (no CUDA here).
 */
#include <string.h>

#include "kit.h"

/* splitmix64: a tiny, well-mixed generator; the same seed gives the same input everywhere. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const char *const pattern_names[KIT_PATTERN_COUNT] = {
    "random", "positional", "ones", "last-only",
};

const char *kit_pattern_name(kit_pattern pattern)
{
    return (unsigned)pattern < KIT_PATTERN_COUNT ? pattern_names[pattern] : "unknown";
}

kit_status kit_pattern_parse(const char *text, kit_pattern *pattern, kit_error *err)
{
    for (int p = 0; p < KIT_PATTERN_COUNT; p++) {
        if (strcmp(text, pattern_names[p]) == 0) {
            *pattern = (kit_pattern)p;
            return KIT_OK;
        }
    }
    return kit_fail(err, KIT_BAD_ARGUMENT,
                    "unknown input pattern '%s' (use random, positional, ones or last-only)", text);
}

/* Element i of a pattern. `state` carries the random pattern's generator from i - 1 to i. */
static int pattern_value(kit_pattern pattern, size_t i, size_t n, uint64_t seed, uint64_t *state)
{
    switch (pattern) {
    case KIT_PATTERN_RANDOM:
        return (int)(splitmix64(state) % 17) - 8;
    case KIT_PATTERN_POSITIONAL: {
        /* A hash of (index, seed) in 1..15: every element counts, and neighbours differ. */
        uint64_t s = seed ^ (i * 0xD1B54A32D192ED03ull);
        return 1 + (int)(splitmix64(&s) % 15);
    }
    case KIT_PATTERN_ONES:
        return 1;
    case KIT_PATTERN_LAST_ONLY:
        return i + 1 == n ? 7 : 0;
    }
    return 0;
}

void kit_fill_input(int *values, size_t n, kit_pattern pattern, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++)
        values[i] = pattern_value(pattern, i, n, seed, &state);
}

int64_t kit_pattern_sum(size_t n, kit_pattern pattern, uint64_t seed)
{
    uint64_t state = seed;
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += pattern_value(pattern, i, n, seed, &state);
    return sum;
}

// [reference-sum] (shown on the docs' stage 1 page)
int64_t kit_reference_sum(const int *values, size_t n)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += values[i];
    return sum;
}
// [reference-sum]

int kit_expected_int(int64_t exact_sum)
{
    uint32_t low = (uint32_t)(uint64_t)exact_sum;
    int32_t wrapped;
    memcpy(&wrapped, &low, sizeof wrapped); /* two's-complement wrap, without undefined behaviour */
    return wrapped;
}
