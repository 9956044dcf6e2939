/*
 * The emulator's counters (emu_control.h) on kernels whose counts are known (counted_kernels.cu),
 * in four thread orders: every number must be the one written here, in every order.
 *
 * How each number follows from the definitions (docs/emulator.md, "What the emulator counts"):
 * a warp is 32 threads; a shared-memory request is the k-th access of the lanes that meet
 * together, and so is a global load request (its sectors: the distinct 32-byte sectors its
 * lanes touch; needed: its distinct bytes / 32, rounded up); wavefronts are the most distinct
 * words one of the 32 four-byte banks is asked for;
 * resident blocks are 132 x min(32, 2048 / threads, 233472 / shared bytes).
 *
 * Prints "ok <case>" or "FAILED <case> (<order>): <field> is X, expected Y" per case, then
 * "all N cases counted as a GPU would, in 4 thread orders"; exits 1 on any difference.
 */
#include <stdio.h>
#include <string.h>

#include "emu_control.h"

int emu_count_case(const char *name);

typedef emu_launch_counters counts;

/* The shared-memory part of a case: requests (load, store), wavefronts, active and idle lanes,
 * divergent requests; conflicts are wavefronts - requests. */
#define SHARED(req, ld, st, wave, active, idle, div)                                                   \
    .shared_requests = req, .shared_load_requests = ld, .shared_store_requests = st,                  \
    .shared_wavefronts = wave, .shared_bank_conflicts = (wave) - (req), .shared_active_lanes = active,  \
    .shared_idle_lanes = idle, .shared_divergent_requests = div
#define LAUNCH(blocks, threads, shared, resident)                                                      \
    .grid_blocks = blocks, .block_threads = threads, .shared_bytes_per_block = shared,                   \
    .resident_blocks = resident
#define LONG_LOOP ((1ull << 22) + 8)
#define LOAD_LOOP ((1ull << 20) + 8)
#define STORES(n, bytes) .global_stores = n, .global_store_bytes = bytes
/* Global load requests (warp-level), the distinct sectors they touch, and the fewest they need. */
#define LOADS(req, sectors, needed)                                                                    \
    .global_load_requests = req, .global_load_sectors = sectors, .global_load_sectors_needed = needed

static const struct expected {
    const char *name;
    const char *why;
    counts want;
} cases[] = {
    {"stride1", "s[tid]: 32 banks, 32 words: 1 wavefront a request (2 blocks x 2 warps x store, load)",
     {LAUNCH(2, 64, 256, 4224), .block_barriers = 2, STORES(128, 512), SHARED(8, 4, 4, 8, 256, 0, 0)}},
    {"stride2", "s[2*tid]: two words in each of 16 banks: 2 wavefronts a request, a 2-way conflict",
     {LAUNCH(2, 64, 512, 4224), .block_barriers = 2, STORES(128, 512), SHARED(8, 4, 4, 16, 256, 0, 0)}},
    {"stride32", "s[32*tid]: 32 words in bank 0: 32 wavefronts; 8 KB of shared memory: 28 blocks an SM",
     {LAUNCH(2, 64, 8192, 3696), .block_barriers = 2, STORES(128, 512), SHARED(8, 4, 4, 256, 256, 0, 0)}},
    {"broadcast", "s[0] by every lane: one word, 1 wavefront",
     {LAUNCH(2, 64, 4, 4224), .block_barriers = 2, STORES(128, 512), SHARED(8, 4, 4, 8, 256, 0, 0)}},
    {"divergent", "if (tid % 2 == 0) store: 16 lanes of 32, divergent; then warp 0 alone loads s[tid & ~1] "
                  "(pairs of lanes on one word: no conflict) and warp 1 makes no request",
     {LAUNCH(2, 64, 256, 4224), .block_barriers = 2, STORES(64, 256), SHARED(6, 2, 4, 6, 128, 64, 4)}},
    {"partial_warp", "48 threads: warp 1 has 16 lanes and all 16 take part: not divergent, not idle",
     {LAUNCH(2, 48, 192, 4224), .block_barriers = 2, STORES(96, 384), SHARED(8, 4, 4, 8, 192, 0, 0)}},
    {"int2_shared", "8-byte accesses: every lane touches 2 words, each bank is asked for 2: 2 wavefronts",
     {LAUNCH(1, 64, 512, 4224), .block_barriers = 1, STORES(64, 256), SHARED(4, 2, 2, 8, 128, 0, 0)}},
    {"half_warps", "__syncwarp in two halves: each half's store is a request of 16 lanes; the loads after it "
                   "pair at the end of the block, all 32 lanes",
     {LAUNCH(1, 32, 128, 4224), .warp_meetings = 2, STORES(32, 128), SHARED(3, 1, 2, 3, 64, 32, 2)}},
    {"long_loop", "thread 0 alone, 2^22 + 8 loads and as many stores with no meeting point: every request has "
                  "1 lane of 32 (past 2^22 logged accesses the rest are counted as they come)",
     {LAUNCH(1, 32, 128, 4224), STORES(32, 128),
      SHARED(2 * LONG_LOOP, LONG_LOOP, LONG_LOOP, 2 * LONG_LOOP, 2 * LONG_LOOP, 31 * 2 * LONG_LOOP, 2 * LONG_LOOP)}},
    {"load_widths", "one char, short, int, int2 and int4 load per thread: 1024 of each width; a warp's "
                    "requests take 1, 2, 4, 8 and 16 sectors (32 lanes' consecutive values)",
     {LAUNCH(4, 256, 0, 1056), .global_loads = 5120, .global_load_bytes = 31 * 1024,
      .global_loads_by_width = {1024, 1024, 1024, 1024, 1024}, STORES(1024, 4096), LOADS(160, 992, 992)}},
    {"load_requests", "8 warps: int t (4 sectors a request), int4 t (16), then matrix t, 9 ints 36 bytes apart "
                      "(9 requests of 32 sectors, each needing 4): 11 requests a warp",
     {LAUNCH(4, 64, 0, 4224), .block_barriers = 4, .global_loads = 256 * 11, .global_load_bytes = 256 * 56,
      .global_loads_by_width = {0, 0, 256 * 10, 0, 256}, STORES(256, 1024),
      LOADS(8 * 11, 8 * (4 + 16 + 9 * 32), 8 * (4 + 16 + 9 * 4))}},
    {"load_requests_divergent", "the k-th load of each lane, whichever branch: 32 lanes on the even ints 0..32 "
                                "(5 sectors; 68 bytes, 3 needed), then 16 odd lanes 8 bytes apart (4 sectors, 2 "
                                "needed); after __syncwarp 32 consecutive ints (4, 4)",
     {LAUNCH(1, 32, 0, 4224), .warp_meetings = 1, .global_loads = 80, .global_load_bytes = 320,
      .global_loads_by_width = {0, 0, 80, 0, 0}, STORES(32, 128), LOADS(3, 5 + 4 + 4, 3 + 2 + 4)}},
    {"load_long_loop", "thread 0 alone, 2^20 + 8 global loads with no meeting point: every request has 1 lane "
                       "and 1 sector (past 2^20 logged loads the rest are counted as they come)",
     {LAUNCH(1, 32, 0, 4224), .global_loads = LOAD_LOOP, .global_load_bytes = 4 * LOAD_LOOP,
      .global_loads_by_width = {0, 0, LOAD_LOOP, 0, 0}, STORES(32, 128), LOADS(LOAD_LOOP, LOAD_LOOP, LOAD_LOOP)}},
    {"atomics", "128 global atomicAdds a block and thread 0's atomicMax; the shared atomicAdd is no request, "
                "thread 0's store and load of the shared total are (1 lane of 32)",
     {LAUNCH(3, 128, 4, 2112), .block_barriers = 6, .global_atomics = 387, SHARED(6, 3, 3, 6, 6, 186, 6)}},
    {"meetings", "3 barriers a block, once per block; __syncwarp and 2 shuffles, once per warp; not __activemask",
     {LAUNCH(3, 256, 0, 1056), .block_barriers = 9, .warp_meetings = 72, STORES(768, 3072)}},
    {"resident_256", "256 threads, no shared memory: 132 x min(32, 8)",
     {LAUNCH(5, 256, 0, 1056), STORES(1280, 5120)}},
    {"resident_1024", "1024 threads: 132 x 2",
     {LAUNCH(2, 1024, 0, 264), STORES(2048, 8192)}},
    {"resident_64k_dynamic", "64 KB of dynamic shared memory: 3 blocks an SM (233472 / 65536)",
     {LAUNCH(1, 256, 65536, 396), .block_barriers = 1, STORES(256, 1024), SHARED(16, 8, 8, 16, 512, 0, 0)}},
    {"resident_static_and_dynamic", "int table[100] and 100 dynamic bytes: 500 bytes; table[tid % 100] in "
                                    "warp 3 asks banks of words 96..99 and 0..3 twice: 1 conflict",
     {LAUNCH(1, 128, 500, 2112), .block_barriers = 1, STORES(128, 512), SHARED(16, 8, 8, 17, 512, 0, 0)}},
};

/** The first field where \p got differs from \p want: its name, and the two values. */
static int differs(const counts *got, const counts *want, char *text, size_t size)
{
#define FIELD(f)                                                                                       \
    if (got->f != want->f) {                                                                           \
        snprintf(text, size, "%s is %llu, expected %llu", #f, got->f, want->f);                        \
        return 1;                                                                                      \
    }
    FIELD(grid_blocks) FIELD(block_threads) FIELD(shared_bytes_per_block) FIELD(resident_blocks)
    FIELD(block_barriers) FIELD(warp_meetings) FIELD(global_loads) FIELD(global_load_bytes)
    FIELD(global_loads_by_width[0]) FIELD(global_loads_by_width[1]) FIELD(global_loads_by_width[2])
    FIELD(global_loads_by_width[3]) FIELD(global_loads_by_width[4]) FIELD(global_stores)
    FIELD(global_store_bytes) FIELD(global_atomics) FIELD(shared_requests) FIELD(shared_load_requests)
    FIELD(shared_store_requests) FIELD(shared_wavefronts) FIELD(shared_bank_conflicts)
    FIELD(shared_active_lanes) FIELD(shared_idle_lanes) FIELD(shared_divergent_requests)
    FIELD(global_load_requests) FIELD(global_load_sectors) FIELD(global_load_sectors_needed)
#undef FIELD
    return 0;
}

int main(void)
{
    if (!emu_counters_available()) {
        printf("FAILED: this build does not count (emu_counters_available() = 0)\n");
        return 1;
    }
    static const struct {
        emu_order order;
        unsigned long long seed;
    } orders[] = {{EMU_ORDER_FORWARD, 1}, {EMU_ORDER_REVERSE, 1}, {EMU_ORDER_RANDOM, 1}, {EMU_ORDER_RANDOM, 7}};
    size_t n_cases = sizeof cases / sizeof cases[0], failed = 0;
    for (size_t c = 0; c < n_cases; c++) {
        char problem[300] = "";
        for (size_t o = 0; o < sizeof orders / sizeof orders[0] && !problem[0]; o++) {
            emu_set_order(orders[o].order, orders[o].seed);
            emu_counters_reset();
            char what[200] = "";
            counts got;
            int status = emu_count_case(cases[c].name);
            if (status != 0)
                snprintf(what, sizeof what, "the launch failed (%s)", cudaGetErrorString(cudaGetLastError()));
            else if (emu_counters_launches() != 1)
                snprintf(what, sizeof what, "%zu launches counted, expected 1", emu_counters_launches());
            else if (emu_counters_get(0, &got) != 0 || emu_counters_get(1, &got) != -1)
                snprintf(what, sizeof what, "emu_counters_get does not give exactly one launch");
            else
                differs(&got, &cases[c].want, what, sizeof what);
            if (what[0])
                snprintf(problem, sizeof problem, "%s (%s order, seed %llu)", what, emu_order_name(orders[o].order),
                         orders[o].seed);
        }
        if (problem[0]) {
            failed++;
            printf("FAILED %s: %s\n  (%s)\n", cases[c].name, problem, cases[c].why);
        } else {
            printf("ok %s\n", cases[c].name);
        }
    }
    /* The records are bounded: the first EMU_COUNTERS_MAX_LAUNCHES after a reset. */
    emu_counters_reset();
    for (int i = 0; i < EMU_COUNTERS_MAX_LAUNCHES + 6; i++)
        emu_count_case("resident_256");
    counts first;
    if (emu_counters_launches() != EMU_COUNTERS_MAX_LAUNCHES || emu_counters_get(0, &first) != 0 ||
        first.grid_blocks != 5 || emu_counters_get(EMU_COUNTERS_MAX_LAUNCHES, &first) != -1) {
        printf("FAILED: %d launches kept %zu records, expected the first %d\n", EMU_COUNTERS_MAX_LAUNCHES + 6,
               emu_counters_launches(), EMU_COUNTERS_MAX_LAUNCHES);
        failed++;
    }
    emu_counters_reset();
    if (emu_counters_launches() != 0) {
        printf("FAILED: emu_counters_reset() left launches behind\n");
        failed++;
    }
    if (failed) {
        printf("%zu of %zu cases FAILED\n", failed, n_cases);
        return 1;
    }
    printf("all %zu cases counted as a GPU would, in 4 thread orders\n", n_cases);
    return 0;
}
