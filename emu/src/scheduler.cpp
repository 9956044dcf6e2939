/**
 * \file scheduler.cpp
 * \brief Runs a grid on one OS thread: each GPU thread of a block is a fiber.
 *
 * Blocks run one after another, never in blockIdx order (a GPU promises none): block_at() says
 * which runs at each position, from a start block round to the block before it (forward: the
 * middle block at the program's first launch, another at each later one), from the last block
 * down (reverse) or in a seeded shuffle (random). A cooperative launch's blocks take turns in
 * that order at each this_grid().sync() (run_cooperative). Inside a
 * block every thread starts in turn and runs until it meets other threads: at
 * __syncthreads() it waits for the whole block, at __syncwarp() or a shuffle for the lanes
 * its mask names. A waiting fiber hands over to the next runnable one
 * directly (Boost.Context's fcontext, about 10 ns a switch); when none is left the scheduler
 * looks at what everyone waits for, releases the groups that are complete and reports the
 * rest as a deadlock, in CUDA terms, with block, thread and source line.
 *
 * Lanes of a warp are not run in lockstep (Volta's independent thread scheduling): between
 * two meeting points one thread runs alone to the next, so code that relies on implicit
 * warp synchrony reads stale values here, as it may on a GPU.
 *
 * Built twice: plain, and with EMU_RACE for ThreadSanitizer, which then sees each GPU thread
 * as a fiber named "block(b) thread(t)"; switches carry no synchronisation, barriers and warp
 * meetings are release/acquire pairs, so two threads touching the same word with no barrier
 * between them are reported as a data race. Consecutive blocks take turns with kFiberSets
 * sets of fibers (each set its own stacks), so that nothing orders a block's threads after
 * those of the block run before it: two blocks that write the same global word without an
 * atomic are reported too.
 */
#include <algorithm>
#include <vector>
#include <atomic>
#include <csignal>
#include <ctime>
#include <pthread.h>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include <boost/context/detail/fcontext.hpp>

#include "emu_internal.h"
#include "emu_kernel.h"

#ifdef EMU_RACE
extern "C" {
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
void __tsan_set_fiber_name(void *fiber, const char *name);
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
}
#endif

uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;

namespace emu {
namespace {

namespace bc = boost::context::detail;

constexpr unsigned kMaxThreads = 1024;
#ifdef EMU_RACE
/* Sets of fibers that consecutive blocks take in turn. A fiber is one ThreadSanitizer thread:
 * the blocks it runs are ordered for ThreadSanitizer (program order), and a barrier orders a
 * block's threads after all of its threads' earlier accesses, so the blocks that one set runs
 * are ordered among themselves. With two sets, blocks next to each other in the run order
 * never share a fiber, nor any blocks an odd number of places apart: their threads are
 * ordered only by atomics and kernel boundaries, as on a GPU. Each set has its own stacks (a
 * fiber's stack holds only its own accesses). Why not more: ThreadSanitizer's release and
 * acquire walk a clock as long as there are fibers, so the race build's time grows with the
 * sets (stage 1's race cases took 6.0 s of CPU with one set, 11.0 s with two; four sets,
 * before the once-a-launch acquire and release in fiber_main, 25 s). */
constexpr unsigned kFiberSets = 2;
#else
constexpr unsigned kFiberSets = 1;
#endif
constexpr size_t kStaticSharedLimit = kSharedPerBlock; /* 48 KB of static __shared__ per block */
/* What a shuffle returns when it reads a lane outside its mask: CUDA leaves the value undefined.
 * A recognisable pattern, so a sum that uses it is visibly wrong. */
constexpr unsigned long long kShufflePoison = 0x5EEDF00D5EEDF00Dull;
/* The first such read since emu_undefined_shuffle_forget() (and the launch it was in), for
 * emu_undefined_shuffle_note(): the harness names it when the stage's result is then wrong. */
struct UndefinedRead {
    bool seen = false;
    char text[400] = "";
    unsigned long long count = 0; /* reads since the last forget, every lane counted */
    unsigned long long launches = 0, last_launch = ~0ull; /* launches with one, and the last */
};
UndefinedRead undefined_read;
unsigned long long launch_number = 0;
#ifdef EMU_RACE
constexpr size_t kStackBytes = 256 * 1024; /* ThreadSanitizer's instrumentation needs more */
#else
constexpr size_t kStackBytes = 64 * 1024;
#endif
constexpr unsigned char kSharedPoison = 0x5A; /* uninitialised shared memory reads 0x5A5A5A5A */

enum fiber_state : unsigned char { RUNNING, AT_BARRIER, AT_WARP, AT_GRID, EXITED };
/* The last meeting point a thread reached: where a timed-out launch says it was. */
enum fiber_seen : unsigned char { SEEN_LAUNCH, SEEN_BARRIER, SEEN_WARP, SEEN_GRID };

/** One GPU thread slot of a block; reused by the same thread index in every block of its set. */
struct Fiber {
    bc::fcontext_t ctx = nullptr;
    char *stack_top = nullptr;
    void *tsan = nullptr;
    uint3 tid{};
    unsigned index = 0;
    fiber_state state = EXITED;
    bool released = false;
    int kind = 0;
    const char *file = nullptr;
    int line = 0;
    unsigned mask = 0;
    unsigned long long value = 0;
    int param = 0;
    int width = 32;
    unsigned long long result = 0;
    unsigned barrier_count = 0, warp_count = 0, grid_count = 0;
    fiber_seen seen = SEEN_LAUNCH;
    unsigned long long acquired_launch = 0; /* race mode: the launch whose inputs it has acquired */
};

struct Scheduler {
    Fiber fiber_sets[kFiberSets][kMaxThreads];
    Fiber *fibers = fiber_sets[0]; /* the set of the running block */
    unsigned created[kFiberSets] = {};
    char *stacks = nullptr;
    size_t page = 4096;
    bc::fcontext_t main_ctx = nullptr;
    void *main_tsan = nullptr;
    Fiber *current = nullptr;
    Fiber *runlist[kMaxThreads];
    unsigned run_n = 0, run_pos = 0;

    /* the grid being run */
    const launch_config *config = nullptr;
    void (*invoke)(void *) = nullptr;
    void *closure = nullptr;
    unsigned threads = 0, warps = 0;
    unsigned long long block_linear = 0, blocks = 0; /* the running block (x + gx * (y + gy * z)), the grid's */
    unsigned long long position = 0; /* where the running block comes in the launch's order (block_at) */
    unsigned long long first_block = 0; /* forward order: the block this launch starts from (forward_start) */
    unsigned *block_order = nullptr; /* this launch's shuffle of the blocks (EMU_ORDER_RANDOM) */
    unsigned long long block_order_capacity = 0;
    bool faulted = false;

    /* A cooperative launch: every block stays alive until the grid's last sync. Its blocks take
     * turns on the same fibers; a block that stops at a grid sync has its threads' stacks (the
     * used part, from each fiber's saved context up) and Fiber records copied out, and back in
     * when it goes on. One stack per thread of the grid would not do: a grid of one full wave
     * on an H100 has 270,336 threads, 17 GB of 64 KB stacks and more guard pages than Linux
     * allows mappings (vm.max_map_count). */
    struct parked_block {
        bool started = false, done = false;
        std::vector<Fiber> fibers;
        std::vector<char> stacks;
        std::vector<size_t> offsets; /* thread i's bytes: stacks[offsets[i], offsets[i + 1]) */
    };
    std::vector<parked_block> parked;

    /* shared memory: one 48 KB arena per block (race mode) or one for all blocks */
    char *shared_region = nullptr;
    size_t shared_region_bytes = 0;
    char *shared = nullptr;
    size_t dynamic_bytes = 0, static_top = 0;
    size_t block_shared_limit = 0; /* this launch: static + dynamic shared memory of a block */
    std::pair<const void *, size_t> statics[64];
    unsigned static_count = 0;
    size_t static_declared = 0; /* this launch: bytes of the static __shared__ variables met */

    emu_order order = EMU_ORDER_FORWARD;
    unsigned long long seed = 1, rng = 1;

    /* race mode: addresses whose release/acquire stand for the barriers */
    char *sync_space = nullptr;
    size_t sync_space_bytes = 0;
    char launch_sync = 0, grid_done = 0;
    char grid_sync[2] = {0, 0}; /* a grid sync's release and acquire, by the parity of its count */

    /* the time limit of a launch (emu_set_timeout, KIT_EMU_TIMEOUT) and its watchdog */
    double limit = 10.0;
    bool limit_from_env = false;
    std::atomic<bool> timed_out{false};  /* past the limit: the next meeting point stops the launch */
    std::atomic<unsigned long long> generation{0}; /* odd while a launch runs */
};

Scheduler S;

/* ---------------------------------------------------------------- messages */

void format_block(char *out, size_t size)
{
    if (gridDim.y == 1 && gridDim.z == 1)
        snprintf(out, size, "block %u", blockIdx.x);
    else
        snprintf(out, size, "block (%u,%u,%u)", blockIdx.x, blockIdx.y, blockIdx.z);
}

/* __FILE__ of one file is one literal: compare the pointers first. A strcmp for every thread at
 * every barrier was 12% of an emulated grade of stage 1 (perf, 2026-11-27). */
inline bool same_file(const char *a, const char *b)
{
    return a == b || std::strcmp(a, b) == 0;
}

const char *thread_name(const Fiber &f, char *out, size_t size)
{
    if (blockDim.y == 1 && blockDim.z == 1)
        snprintf(out, size, "thread %u", f.tid.x);
    else
        snprintf(out, size, "thread (%u,%u,%u)", f.tid.x, f.tid.y, f.tid.z);
    return out;
}

/** Records a fault in the running grid: "kernel<<<grid, block>>> (file:line), block b: ...". */
void fault(cudaError_t code, const char *format, ...) __attribute__((format(printf, 2, 3)));
void fault(cudaError_t code, const char *format, ...)
{
    char what[900];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    char block[64];
    format_block(block, sizeof block);
    const launch_config &c = *S.config;
    char dims[96];
    if (c.grid.y == 1 && c.grid.z == 1 && c.block.y == 1 && c.block.z == 1)
        snprintf(dims, sizeof dims, "%u, %u", c.grid.x, c.block.x);
    else
        snprintf(dims, sizeof dims, "(%u,%u,%u), (%u,%u,%u)", c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y,
                 c.block.z);
    record_fault(code, "emulator: %s<<<%s>>> launched at %s:%d, %s: %s", c.kernel, dims, c.file, c.line, block, what);
    S.faulted = true;
    if (tracing) { /* where the block's threads stood: who waited alone, who had left */
        trace_fault(code, what, S.current ? (int)S.current->index : -1);
        for (unsigned i = 0; i < S.threads; i++)
            trace_thread_state(i, S.fibers[i].state, S.fibers[i].file, S.fibers[i].line);
    }
}

/* ---------------------------------------------------------------- fibers */

#ifdef EMU_RACE
void tsan_switch(void *to) { __tsan_switch_to_fiber(to, 1 /* no synchronisation */); }
#endif

/** Switches from the running context (saved into *save) to fiber \p to. */
inline void enter(Fiber *to, bc::fcontext_t *save)
{
    S.current = to;
    threadIdx = to->tid;
    counting.lane = &lane_logs[to->index];
#ifdef EMU_RACE
    tsan_switch(to->tsan);
#endif
    bc::transfer_t t = bc::jump_fcontext(to->ctx, save);
    *static_cast<bc::fcontext_t *>(t.data) = t.fctx; /* whoever switched back to us */
}

inline void leave_to_main(bc::fcontext_t *save)
{
    S.current = nullptr;
    counting.lane = nullptr;
#ifdef EMU_RACE
    tsan_switch(S.main_tsan);
#endif
    bc::transfer_t t = bc::jump_fcontext(S.main_ctx, save);
    *static_cast<bc::fcontext_t *>(t.data) = t.fctx;
}

void timeout_fault(const Fiber *who);
[[noreturn]] void abandon_from_fiber();

/** The running fiber stops here: the next runnable one goes on, or the scheduler. */
inline void park(Fiber *self)
{
    if (S.timed_out.load(std::memory_order_relaxed)) { /* past the time limit: the launch ends here */
        timeout_fault(self);
        abandon_from_fiber();
    }
    if (S.run_pos < S.run_n)
        enter(S.runlist[S.run_pos++], &self->ctx);
    else
        leave_to_main(&self->ctx);
}

/** A fault found inside a kernel: back to the scheduler for good; this fiber is dropped. */
[[noreturn]] void abandon_from_fiber()
{
    Fiber *self = S.current;
#ifdef EMU_RACE
    __tsan_release(&S.grid_done); /* the fault's message, written here, happens before the host reads it */
#endif
    leave_to_main(&self->ctx);
    std::abort(); /* never resumed: the scheduler rebuilds the fiber */
}

void fiber_main(bc::transfer_t t)
{
    *static_cast<bc::fcontext_t *>(t.data) = t.fctx;
    Fiber *self = S.current;
    for (;;) {
#ifdef EMU_RACE
        /* The launch's inputs happen before the kernel: once a launch is enough, a fiber's
         * later blocks in it come after its first in program order. (Each release and acquire
         * costs ThreadSanitizer a walk over a clock as long as there are fibers.) */
        if (self->acquired_launch != launch_number) {
            self->acquired_launch = launch_number;
            __tsan_acquire(&S.launch_sync);
        }
#endif
        S.invoke(S.closure);
#ifdef EMU_RACE
        /* The kernel happens before what the host does next: said once, after the fiber's
         * last block of the launch (a launch stopped early: hand_over_to_host). */
        if (S.position + kFiberSets >= S.blocks)
            __tsan_release(&S.grid_done);
#endif
        self->state = EXITED;
        park(self);
    }
}

#ifdef EMU_RACE
/** All that fiber \p f did happens before what the host does next: two synchronising
 * switches of ThreadSanitizer's current fiber (to it, back to the host), no jump. */
void hand_over_to_host(Fiber &f)
{
    __tsan_switch_to_fiber(f.tsan, 0);
    __tsan_switch_to_fiber(S.main_tsan, 0);
}
#endif

void reset_fiber(Fiber &f)
{
    f.ctx = bc::make_fcontext(f.stack_top, kStackBytes, fiber_main);
#ifdef EMU_RACE
    if (f.tsan) {
        /* A fiber stopped mid-kernel (a fault, a timeout) never said it was done: two
         * synchronising switches (to it, back to the host) order all it did before what the
         * host does next, so its successor on the same stack, with the same name, is not
         * reported as racing with it ("threadIdx (62,0,0) ... previous write by threadIdx (62,0,0)"). */
        hand_over_to_host(f);
        __tsan_destroy_fiber(f.tsan);
    }
    f.tsan = __tsan_create_fiber(0);
#endif
}

/** Makes sure fibers 0..count-1 of set \p set exist; every stack of every set comes from one
 * mapping, with guard pages. */
bool ensure_fibers(unsigned set, unsigned count)
{
    if (!S.stacks) {
        S.page = (size_t)sysconf(_SC_PAGESIZE);
        size_t bytes = (size_t)kFiberSets * kMaxThreads * (kStackBytes + S.page);
        void *memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (memory == MAP_FAILED)
            return false;
        S.stacks = static_cast<char *>(memory);
        counting.stack_low = (unsigned long long)S.stacks; /* a store there is no global store */
        counting.stack_span = bytes;
#ifdef EMU_RACE
        S.main_tsan = __tsan_get_current_fiber();
#endif
    }
    for (unsigned &i = S.created[set]; i < count; i++) {
        Fiber &f = S.fiber_sets[set][i];
        char *base = S.stacks + ((size_t)set * kMaxThreads + i) * (kStackBytes + S.page);
        mprotect(base, S.page, PROT_NONE); /* a stack overflow faults instead of corrupting */
        /* Staggered by a cache line per fiber: tops 64 KB + a page apart share their L1 sets, so
         * every switch between threads missed (the switches were 32% of an emulated grade). */
        f.stack_top = base + S.page + kStackBytes - (i % 64) * 64;
        f.index = i;
        reset_fiber(f);
    }
    return true;
}

/* ---------------------------------------------------------------- order */

unsigned long long next_random()
{
    S.rng ^= S.rng >> 12;
    S.rng ^= S.rng << 25;
    S.rng ^= S.rng >> 27;
    return S.rng * 2685821657736338717ull;
}

/** The runnable set (fibers with `released`) becomes the run list, in the chosen order. */
void build_runlist()
{
    S.run_n = 0;
    for (unsigned i = 0; i < S.threads; i++)
        if (S.fibers[i].released) {
            S.fibers[i].released = false;
            S.runlist[S.run_n++] = &S.fibers[i];
        }
    if (S.order == EMU_ORDER_REVERSE) {
        std::reverse(S.runlist, S.runlist + S.run_n);
    } else if (S.order == EMU_ORDER_RANDOM) {
        for (unsigned i = S.run_n; i > 1; i--)
            std::swap(S.runlist[i - 1], S.runlist[next_random() % i]);
    }
}

/*
 * The order of the blocks. A GPU promises none: a kernel that waits for nobody and still
 * expects the block with the last index to run last (or block 0 to run first) is wrong there,
 * and must be wrong here, where blocks run one after another. So no order runs the blocks by
 * index, and none runs the last block last or block 0 first (for a grid of two blocks or more):
 *   forward: from a start block up to the last, then from block 0 up to the one before the
 *            start: neighbours keep their order (as a GPU hands blocks out), but the last
 *            block runs before blocks 0 .. start - 1, and block 0 after the last block. The
 *            start moves from launch to launch (forward_start), as the order in which a GPU's
 *            blocks finish changes from run to run: the program's first launch starts from
 *            the middle block (blocks / 2), later ones elsewhere, so a result that depends on
 *            the order of the blocks (one float atomicAdd per block) changes between two runs
 *            of a kernel on the same input, as on a GPU;
 *   reverse: the last block first, block 0 last;
 *   random:  a shuffle made from the seed (the same at every launch of the grid), where the
 *            last block is not last and block 0 not first (each swapped with another block
 *            when the shuffle put it there). A grid of more than 2^24 blocks (which would not
 *            finish within the time limit anyway) is rotated by a seeded offset instead.
 * One block alone runs alone in every order.
 */
constexpr unsigned long long kShuffledBlocksMax = 1ull << 24;

/**
 * The first block of launch \p launch (0 = the program's first) of \p n blocks in forward
 * order: blocks / 2 moved on by frac(launch / phi) of the grid, phi the golden ratio (Weyl's
 * sequence: two launches p apart start frac(p / phi) n blocks apart, 0.38 n for p = 1, 0.24 n
 * for 2, 0.15 n for 3; the same block again only for p a large Fibonacci number, 144 or more
 * at n = 256); never block 0 (then the middle block). A grid of 2 blocks has one forward order:
 * 1, 0.
 */
unsigned long long forward_start(unsigned long long n, unsigned long long launch)
{
    if (n <= 1)
        return 0;
    unsigned long long fraction = launch * 0x9E3779B97F4A7C15ull; /* frac(launch / phi) in 64 bits */
    unsigned long long offset = (unsigned long long)(((unsigned __int128)fraction * n) >> 64);
    unsigned long long start = (n / 2 + offset) % n;
    return start == 0 ? n / 2 : start;
}

/** This launch's shuffle of the blocks (EMU_ORDER_RANDOM), into S.block_order. */
bool shuffle_blocks()
{
    const unsigned long long n = S.blocks;
    if (S.order != EMU_ORDER_RANDOM || n <= 1 || n > kShuffledBlocksMax)
        return true;
    if (n > S.block_order_capacity) {
        std::free(S.block_order);
        S.block_order = static_cast<unsigned *>(std::malloc(n * sizeof *S.block_order));
        S.block_order_capacity = S.block_order ? n : 0;
        if (!S.block_order)
            return false;
    }
    unsigned *order = S.block_order;
    unsigned long long rng = S.seed * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;
    auto next = [&rng]() {
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        return rng * 2685821657736338717ull;
    };
    for (unsigned long long i = 0; i < n; i++)
        order[i] = (unsigned)i;
    for (unsigned long long i = n; i > 1; i--)
        std::swap(order[i - 1], order[next() % i]);
    if (order[0] == 0) /* block 0 first: swapped with a later one */
        std::swap(order[0], order[1 + next() % (n - 1)]);
    if (order[n - 1] == n - 1) /* the last block last: swapped with an earlier one (block 0 stays off the front) */
        std::swap(order[n - 1], order[next() % (n - 1)]);
    return true;
}

/** The linear index of the block that runs at \p position (0 = first) of this launch. */
unsigned long long block_at(unsigned long long position)
{
    const unsigned long long n = S.blocks;
    if (n <= 1)
        return 0;
    if (S.order == EMU_ORDER_FORWARD)
        return (position + S.first_block) % n;
    if (S.order == EMU_ORDER_REVERSE)
        return n - 1 - position;
    if (n <= kShuffledBlocksMax)
        return S.block_order[position];
    return (position + 1 + S.seed % (n - 1)) % n; /* a huge grid: a rotation, never by index */
}

/* ---------------------------------------------------------------- meeting points */

#ifdef EMU_RACE
char *sync_address(unsigned slot, unsigned count)
{
    /* per block: two barrier addresses, then two per warp; the parity of the meeting count
     * keeps a fast thread's next barrier apart from a slow thread's current one */
    size_t per_block = 2 + 2 * (size_t)S.warps;
    return S.sync_space + S.block_linear * per_block + slot + (count & 1);
}
#endif

/** Records a shuffle's read of a lane outside its mask (an undefined value, no fault). */
void note_undefined_read(const Fiber &f, unsigned src, unsigned lanes)
{
    UndefinedRead &u = undefined_read;
    u.count++;
    if (u.last_launch != launch_number) {
        u.last_launch = launch_number;
        u.launches++;
    }
    if (u.seen)
        return;
    u.seen = true;
    char a[40], block[40];
    format_block(block, sizeof block);
    snprintf(u.text, sizeof u.text, "a shuffle (%s) at %s:%d read lane %u outside its mask 0x%08x%s (%s of %s, "
             "%s launched at %s:%d): on a GPU that value is undefined (here 0x%08X)", warp_op_name(f.kind), f.file,
             f.line, src, f.mask, src >= lanes ? ", a lane its warp does not have" : "", thread_name(f, a, sizeof a),
             block, S.config ? S.config->kernel : "a kernel", S.config ? S.config->file : "?",
             S.config ? S.config->line : 0, (unsigned)kShufflePoison);
}

/** Computes the results of a complete warp group (lanes of warp \p base named by \p mask). */
bool finish_warp_group(unsigned base, unsigned lanes, unsigned mask)
{
    Fiber *lane = &S.fibers[base];
    int kind = -1;
    for (unsigned m = 0; m < lanes; m++) {
        if (!(mask >> m & 1))
            continue;
        if (kind < 0)
            kind = lane[m].kind;
        else if (lane[m].kind != kind) {
            unsigned first = __builtin_ctz(mask);
            char a[40], b[40];
            fault(cudaErrorLaunchFailure, "the lanes of warp %u meet at different warp operations: %s at %s (%s:%d), "
                  "%s at %s (%s:%d); every lane in the mask 0x%08x must make the same call",
                  base / 32, thread_name(lane[first], a, sizeof a), warp_op_name(lane[first].kind), lane[first].file,
                  lane[first].line, thread_name(lane[m], b, sizeof b), warp_op_name(lane[m].kind), lane[m].file,
                  lane[m].line, mask);
            return false;
        }
    }
    unsigned long long reduced = 0;
    unsigned ballot = 0;
    bool first_value = true;
    for (unsigned m = 0; m < lanes; m++) {
        if (!(mask >> m & 1))
            continue;
        unsigned long long v = lane[m].value;
        if (lane[m].value)
            ballot |= 1u << m;
        if (kind == WARP_REDUCE_ADD)
            reduced = (unsigned)(reduced + v);
        else if (kind == WARP_REDUCE_AND)
            reduced = first_value ? v : (reduced & v);
        else if (kind == WARP_REDUCE_OR)
            reduced |= v;
        else if (kind == WARP_REDUCE_XOR)
            reduced ^= v;
        else if (kind == WARP_REDUCE_MIN || kind == WARP_REDUCE_MAX) {
            bool is_signed = lane[m].param != 0;
            long long sv = is_signed ? (long long)(int)(unsigned)v : (long long)(unsigned)v;
            long long sr = is_signed ? (long long)(int)(unsigned)reduced : (long long)(unsigned)reduced;
            if (first_value || (kind == WARP_REDUCE_MIN ? sv < sr : sv > sr))
                reduced = v;
        }
        first_value = false;
    }
    for (unsigned m = 0; m < lanes; m++) {
        if (!(mask >> m & 1))
            continue;
        Fiber &f = lane[m];
        switch (kind) {
        case WARP_SYNC: f.result = 0; break;
        case WARP_BALLOT: f.result = ballot; break;
        case WARP_ANY: f.result = ballot != 0; break;
        case WARP_ALL: f.result = ballot == mask; break;
        case WARP_REDUCE_ADD:
        case WARP_REDUCE_MIN:
        case WARP_REDUCE_MAX:
        case WARP_REDUCE_AND:
        case WARP_REDUCE_OR:
        case WARP_REDUCE_XOR: f.result = reduced; break;
        default: {
            unsigned width = (unsigned)f.width;
            unsigned segment = m & ~(width - 1);
            long src = m;
            if (kind == WARP_SHFL_IDX)
                src = segment + ((unsigned)f.param & (width - 1));
            else if (kind == WARP_SHFL_UP)
                src = (long)m - f.param < (long)segment ? (long)m : (long)m - f.param;
            else if (kind == WARP_SHFL_DOWN)
                src = m + (unsigned)f.param >= segment + width ? (long)m : (long)(m + (unsigned)f.param);
            else if (kind == WARP_SHFL_XOR)
                src = (m ^ (unsigned)f.param) >= segment + width ? (long)m : (long)(m ^ (unsigned)f.param);
            /* A lane outside the mask (or past the last lane of a partial warp): CUDA gives an
             * undefined value, not an error. Code that never uses it (a half-warp reduction
             * whose upper lanes read past lane 15) is correct, so no fault: the poison shows
             * up only in a result that does use it. */
            if (src != (long)m && (src >= (long)lanes || !(mask >> src & 1))) {
                f.result = kShufflePoison;
                note_undefined_read(f, (unsigned)src, lanes);
            } else
                f.result = lane[src].value;
        }
        }
    }
    for (unsigned m = 0; m < lanes; m++)
        if (mask >> m & 1) {
            lane[m].state = RUNNING;
            lane[m].released = true;
        }
    counters_warp_meeting(base, lanes, mask);
    return true;
}

/** Why a warp group cannot complete: one message about the first lane that is missing. */
void explain_stuck_warp(unsigned base, unsigned lanes, const Fiber &waiter)
{
    char a[40], b[40];
    for (unsigned m = 0; m < lanes; m++) {
        if (!(waiter.mask >> m & 1))
            continue;
        const Fiber &g = S.fibers[base + m];
        if (g.state == AT_WARP && g.mask == waiter.mask)
            continue;
        const char *prefix = "%s waits at %s(0x%08x) at %s:%d, but ";
        char head[300];
        snprintf(head, sizeof head, prefix, thread_name(waiter, a, sizeof a), warp_op_name(waiter.kind), waiter.mask,
                 waiter.file, waiter.line);
        if (g.state == EXITED)
            fault(cudaErrorLaunchFailure, "%s%s, named in the mask, has already exited: every lane in the mask must "
                  "make the call (is the mask wider than the lanes that reach it?)", head, thread_name(g, b, sizeof b));
        else if (g.state == AT_BARRIER)
            fault(cudaErrorLaunchFailure, "%s%s, named in the mask, waits at %s() at %s:%d: deadlock", head,
                  thread_name(g, b, sizeof b), barrier_name(g.kind), g.file, g.line);
        else if (g.state == AT_GRID)
            fault(cudaErrorLaunchFailure, "%s%s, named in the mask, waits at this_grid().sync() at %s:%d: deadlock",
                  head, thread_name(g, b, sizeof b), g.file, g.line);
        else
            fault(cudaErrorLaunchFailure, "%s%s waits at %s with the mask 0x%08x at %s:%d: lanes that meet must name "
                  "the same mask", head, thread_name(g, b, sizeof b), warp_op_name(g.kind), g.mask, g.file, g.line);
        return;
    }
}

/** Everyone has stopped: release complete groups. 1: go on, 0: block done, 2: the block waits
 *  at a grid sync, -1: fault. */
int resolve()
{
    bool released = false, warp_waiters = false;
    for (unsigned w = 0; w < S.warps && !S.faulted; w++) {
        unsigned base = 32 * w, lanes = std::min(32u, S.threads - base);
        for (unsigned l = 0; l < lanes; l++) {
            Fiber &f = S.fibers[base + l];
            if (f.state != AT_WARP)
                continue;
            if (f.kind == WARP_ACTIVEMASK) { /* release the lanes at this call, each told who */
                unsigned active = 0;
                for (unsigned m = 0; m < lanes; m++) {
                    const Fiber &g = S.fibers[base + m];
                    if (g.state == AT_WARP && g.kind == WARP_ACTIVEMASK && g.line == f.line &&
                        same_file(g.file, f.file))
                        active |= 1u << m;
                }
                for (unsigned m = 0; m < lanes; m++)
                    if (active >> m & 1) {
                        S.fibers[base + m].state = RUNNING;
                        S.fibers[base + m].released = true;
                        S.fibers[base + m].result = active;
                    }
                released = true;
                continue;
            }
            warp_waiters = true;
            bool complete = true;
            for (unsigned m = 0; m < lanes && complete; m++)
                if (f.mask >> m & 1)
                    complete = S.fibers[base + m].state == AT_WARP && S.fibers[base + m].mask == f.mask;
            if (complete && finish_warp_group(base, lanes, f.mask))
                released = true;
        }
    }
    if (S.faulted)
        return -1;
    if (released) {
        build_runlist();
        return 1;
    }
    if (warp_waiters) {
        for (unsigned i = 0; i < S.threads; i++)
            if (S.fibers[i].state == AT_WARP) {
                explain_stuck_warp(i & ~31u, std::min(32u, S.threads - (i & ~31u)), S.fibers[i]);
                return -1;
            }
    }
    const Fiber *waiter = nullptr, *leaver = nullptr, *elsewhere = nullptr, *grid_waiter = nullptr;
    unsigned waiting = 0, exited = 0, predicate_true = 0, at_grid = 0;
    for (unsigned i = 0; i < S.threads; i++) {
        const Fiber &f = S.fibers[i];
        if (f.state == AT_GRID) {
            if (!grid_waiter)
                grid_waiter = &f;
            at_grid++;
        } else if (f.state == AT_BARRIER) {
            if (!waiter)
                waiter = &f;
            else if (!elsewhere && (f.line != waiter->line || !same_file(f.file, waiter->file) ||
                                    f.kind != waiter->kind))
                elsewhere = &f;
            waiting++;
            predicate_true += f.value != 0;
        } else if (f.state == EXITED) {
            if (!leaver)
                leaver = &f;
            exited++;
        }
    }
    char a[40], b[40];
    if (at_grid && waiting) {
        fault(cudaErrorLaunchFailure, "threads wait at different barriers: %s at this_grid().sync() at %s:%d, %s at "
              "%s() at %s:%d; every thread of the block must reach the same one", thread_name(*grid_waiter, a, sizeof a),
              grid_waiter->file, grid_waiter->line, thread_name(*waiter, b, sizeof b), barrier_name(waiter->kind),
              waiter->file, waiter->line);
        return -1;
    }
    if (at_grid && exited) {
        fault(cudaErrorLaunchFailure, "%s (and %u other threads) wait at this_grid().sync() at %s:%d, but %s (and %u "
              "others) already exited: every thread of the grid must reach each grid sync (a return before it?)",
              thread_name(*grid_waiter, a, sizeof a), at_grid - 1, grid_waiter->file, grid_waiter->line,
              thread_name(*leaver, b, sizeof b), exited - 1);
        return -1;
    }
    if (at_grid)
        return 2;
    if (waiting == 0)
        return 0;
    if (exited) {
        fault(cudaErrorLaunchFailure, "%s (and %u other threads) wait at %s() at %s:%d, but %s (and %u others) "
              "already exited: every thread of a block must reach each __syncthreads() (a return before it?)",
              thread_name(*waiter, a, sizeof a), waiting - 1, barrier_name(waiter->kind), waiter->file, waiter->line,
              thread_name(*leaver, b, sizeof b), exited - 1);
        return -1;
    }
    if (elsewhere) {
        fault(cudaErrorLaunchFailure, "threads wait at different barriers: %s at %s() at %s:%d, %s at %s() at %s:%d; "
              "every thread of a block must reach the same __syncthreads() (one inside an if?)",
              thread_name(*waiter, a, sizeof a), barrier_name(waiter->kind), waiter->file, waiter->line,
              thread_name(*elsewhere, b, sizeof b), barrier_name(elsewhere->kind), elsewhere->file, elsewhere->line);
        return -1;
    }
    unsigned long long result = 0;
    switch (waiter->kind) {
    case BLOCK_COUNT: result = predicate_true; break;
    case BLOCK_AND: result = predicate_true == S.threads; break;
    case BLOCK_OR: result = predicate_true != 0; break;
    default: break;
    }
    for (unsigned i = 0; i < S.threads; i++) {
        S.fibers[i].state = RUNNING;
        S.fibers[i].released = true;
        S.fibers[i].result = result;
    }
    counters_block_barrier(S.threads);
    stores_block_barrier();
    build_runlist();
    return 1;
}

/* ---------------------------------------------------------------- shared memory */

void poison(char *memory, size_t bytes)
{
#ifdef EMU_RACE
    /* not memset: ThreadSanitizer would count the fill as the host's write and report it */
    volatile char *p = memory;
    for (size_t i = 0; i < bytes; i++)
        p[i] = (char)kSharedPoison;
#else
    std::memset(memory, kSharedPoison, bytes);
#endif
}

bool ensure_shared_region(size_t bytes)
{
    if (bytes <= S.shared_region_bytes)
        return true;
    if (S.shared_region)
        munmap(S.shared_region, S.shared_region_bytes);
    void *memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
        S.shared_region = nullptr;
        S.shared_region_bytes = 0;
        return false;
    }
    S.shared_region = static_cast<char *>(memory);
    S.shared_region_bytes = bytes;
    return true;
}

/* ---------------------------------------------------------------- the time limit
 *
 * A launch may run for S.limit seconds of CPU time (emu_set_timeout: the harness's limit, 10 s
 * unless --timeout says otherwise; KIT_EMU_TIMEOUT overrides it). Past it the launch is
 * stopped and fails with cudaErrorLaunchTimeout, whose message says where a thread was:
 *   plain build: SIGVTALRM (ITIMER_VIRTUAL); if it lands in a kernel's code, the handler
 *     leaves the spinning fiber for the scheduler at once; elsewhere the next meeting point
 *     (or the scheduler) stops the launch;
 *   race build: ThreadSanitizer defers signals while a fiber spins, so a watchdog thread
 *     reads the launching thread's CPU clock and sets S.timed_out; the next meeting point
 *     stops the launch.
 * A thread that spins without meeting anyone cannot be stopped in the race build, nor (should
 * it ever happen) in the plain build a second later: then the process ends (exit status 124)
 * after the message, and after the hook the program set (emu_set_timeout_hook). */

emu_timeout_hook timeout_hook = nullptr;
constexpr int kHangExit = 124;
constexpr double kHardStopGrace = 1.0; /* seconds of CPU time after the limit */

/** Where a timed-out launch's thread \p who (or the first one still running) was, and why. */
void describe_hang(const Fiber *who, char *out, size_t size)
{
    for (unsigned i = 0; i < S.threads && !who; i++)
        if (S.fibers[i].state != EXITED)
            who = &S.fibers[i];
    if (!who)
        who = &S.fibers[0];
    char thread[40];
    thread_name(*who, thread, sizeof thread);
    if (who->seen == SEEN_LAUNCH) {
        snprintf(out, size, "%s has passed no __syncthreads() or warp operation since the kernel started: an endless "
                 "loop before the first one? (an unsigned `s >= 0` is always true; a loop whose variable never "
                 "changes, like `s *= 1`, never ends)", thread);
        return;
    }
    const char *op = who->seen == SEEN_BARRIER ? barrier_name(who->kind)
                     : who->seen == SEEN_GRID  ? "this_grid().sync"
                                               : warp_op_name(who->kind);
    unsigned passes = who->seen == SEEN_BARRIER ? who->barrier_count
                      : who->seen == SEEN_GRID  ? who->grid_count
                                                : who->warp_count;
    /* Every thread still running last passed the same meeting point, many times: the loop
     * around it never ends. */
    bool same = passes >= 2 && who->file;
    unsigned running = 0;
    for (unsigned i = 0; i < S.threads && same; i++) {
        const Fiber &f = S.fibers[i];
        if (f.state == EXITED)
            continue;
        running++;
        same = f.seen == who->seen && f.line == who->line && f.file && same_file(f.file, who->file);
    }
    if (same && running > 1)
        snprintf(out, size, "%s last passed %s() at %s:%d, as every thread of the block did, %u times: the loop "
                 "around it never ends. Does its variable reach the end? (an unsigned `s >= 0` is always true; "
                 "`s *= 1`, or a missing `s >>= 1`, never changes s)", thread, op, who->file, who->line, passes);
    else if (same)
        snprintf(out, size, "%s last passed %s() at %s:%d, %u times: the loop around it never ends. Does its "
                 "variable reach the end? (an unsigned `s >= 0` is always true)", thread, op, who->file, who->line,
                 passes);
    else
        snprintf(out, size, "%s last passed %s() at %s:%d and has not reached another meeting point since: an "
                 "endless loop after it? (an unsigned `s >= 0` is always true)", thread, op, who->file, who->line);
}

/** The running launch is past its limit: a fault, cudaErrorLaunchTimeout, saying where. */
void timeout_fault(const Fiber *who)
{
    char where[700];
    describe_hang(who, where, sizeof where);
    fault(cudaErrorLaunchTimeout, "still running after %g s of CPU time (the limit; KIT_EMU_TIMEOUT overrides it): "
          "%s", S.limit, where);
}

char hard_stop_message[1400];

/** The launch could not be stopped: say where it was, tell the hook, end the process. */
[[noreturn]] void hard_stop()
{
    char where[700];
    describe_hang(S.current, where, sizeof where);
    char block[64];
    format_block(block, sizeof block);
    const launch_config &c = *S.config;
    snprintf(hard_stop_message, sizeof hard_stop_message, "emulator: %s<<<%u, %u>>> launched at %s:%d, %s: still "
             "running after %g s of CPU time (the limit; KIT_EMU_TIMEOUT overrides it), and no thread reached a "
             "meeting point where it could be stopped: %s", c.kernel, c.grid.x, c.block.x, c.file, c.line, block,
             S.limit, where);
    if (timeout_hook)
        timeout_hook(hard_stop_message, S.limit, 0);
    ssize_t written = write(2, hard_stop_message, strlen(hard_stop_message));
    written = write(2, "\n", 1);
    (void)written;
    _exit(kHangExit);
}

#ifndef EMU_RACE
void on_timer(int)
{
    if (!(S.generation.load() & 1))
        return;
    if (S.timed_out.load()) /* a second tick: nothing stopped the launch */
        hard_stop();
    S.timed_out.store(true);
    /* In a kernel's own code (on a fiber's stack): leave it for the scheduler now. Elsewhere
     * (the scheduler's code) the flag stops the launch at the next meeting point. */
    char here;
    size_t span = (size_t)kFiberSets * kMaxThreads * (kStackBytes + S.page);
    if (S.current && S.stacks && &here >= S.stacks && &here < S.stacks + span) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGVTALRM);
        sigprocmask(SIG_UNBLOCK, &set, nullptr);
        timeout_fault(S.current);
        abandon_from_fiber();
    }
}
#else
pthread_t launching_thread;
std::atomic<double> deadline{0};

double cpu_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void *watchdog_thread(void *)
{
    __tsan_ignore_thread_begin(); /* it reads the scheduler's state unsynchronised, on purpose */
    clockid_t clock;
    if (pthread_getcpuclockid(launching_thread, &clock) != 0)
        return nullptr;
    const struct timespec nap = {0, 20 * 1000 * 1000};
    for (;;) {
        nanosleep(&nap, nullptr);
        unsigned long long g = S.generation.load();
        if (!(g & 1))
            continue;
        double now = cpu_seconds(clock), limit_at = deadline.load();
        if (now < limit_at || S.generation.load() != g)
            continue;
        S.timed_out.store(true);
        if (now >= limit_at + kHardStopGrace)
            hard_stop();
    }
}
#endif

/* A kernel that dereferences a pointer that is no memory at all (a GPU's "illegal address")
 * would kill the process with SIGSEGV; say where instead. Runs on its own signal stack, so a
 * fiber's stack overflow is reported too. */
#ifndef EMU_RACE
char crash_message[600];

void crash(int signal_number)
{
    if (!S.current) { /* not in a kernel: the host's own crash, left as it is */
        std::signal(signal_number, SIG_DFL);
        std::raise(signal_number);
        return;
    }
    char block[64], thread[40];
    format_block(block, sizeof block);
    thread_name(*S.current, thread, sizeof thread);
    const launch_config &c = *S.config;
    snprintf(crash_message, sizeof crash_message, "emulator: %s<<<%u, %u>>> launched at %s:%d, %s, %s: an illegal "
             "memory access (%s): a pointer that is not device memory, an index far outside an array, or a stack "
             "overflow\n", c.kernel, c.grid.x, c.block.x, c.file, c.line, block, thread,
             signal_number == SIGSEGV ? "SIGSEGV" : "SIGBUS");
    ssize_t written = write(2, crash_message, strlen(crash_message));
    (void)written;
    _exit(1);
}

void install_crash_handler()
{
    static char alternate_stack[64 * 1024];
    stack_t ss = {};
    ss.ss_sp = alternate_stack;
    ss.ss_size = sizeof alternate_stack;
    sigaltstack(&ss, nullptr);
    struct sigaction action = {};
    action.sa_handler = crash;
    action.sa_flags = SA_ONSTACK;
    sigaction(SIGSEGV, &action, nullptr);
    sigaction(SIGBUS, &action, nullptr);
}
#endif

void arm_watchdog()
{
    static bool ready = false;
    if (!ready) {
        ready = true;
        if (const char *text = getenv("KIT_EMU_TIMEOUT")) {
            double seconds = atof(text);
            if (seconds > 0) {
                S.limit = seconds;
                S.limit_from_env = true;
            }
        }
#ifdef EMU_RACE
        launching_thread = pthread_self();
        pthread_t watcher;
        if (pthread_create(&watcher, nullptr, watchdog_thread, nullptr) == 0)
            pthread_detach(watcher);
#else
        struct sigaction action = {};
        action.sa_handler = on_timer;
        sigaction(SIGVTALRM, &action, nullptr);
        install_crash_handler(); /* ThreadSanitizer reports crashes itself, with the fiber's name */
#endif
    }
    S.timed_out.store(false);
    S.generation.fetch_add(1); /* odd: a launch runs */
#ifdef EMU_RACE
    deadline.store(cpu_seconds(CLOCK_THREAD_CPUTIME_ID) + S.limit);
#else
    double tick = kHardStopGrace;
    struct itimerval timer = {{(time_t)tick, (suseconds_t)((tick - (time_t)tick) * 1e6)},
                              {(time_t)S.limit, (suseconds_t)((S.limit - (time_t)S.limit) * 1e6)}};
    setitimer(ITIMER_VIRTUAL, &timer, nullptr);
#endif
}

void disarm_watchdog()
{
#ifndef EMU_RACE
    struct itimerval timer = {{0, 0}, {0, 0}};
    setitimer(ITIMER_VIRTUAL, &timer, nullptr);
#endif
    S.generation.fetch_add(1); /* even: no launch */
}

/* ---------------------------------------------------------------- one block, one grid */

/** Runs the block S.block_linear from its start (or, \p resume, on from a grid sync, its
 *  fibers restored) until it ends (0), waits at a grid sync (1) or faults (-1). */
int run_block(bool resume)
{
#ifdef EMU_RACE
    char name[64];
#endif
    stores_block_begin();
    for (unsigned i = 0; i < S.threads; i++) {
        Fiber &f = S.fibers[i];
#ifdef EMU_RACE
        /* CUDA's names, as the race report shows them: "blockIdx (3,0,0) threadIdx (17,0,0)" */
        snprintf(name, sizeof name, "blockIdx (%u,%u,%u) threadIdx (%u,%u,%u)", blockIdx.x, blockIdx.y, blockIdx.z,
                 f.tid.x, f.tid.y, f.tid.z);
        __tsan_set_fiber_name(f.tsan, name);
#endif
        if (resume) {
            f.released = f.state == AT_GRID;
            if (f.released)
                f.state = RUNNING;
            continue;
        }
        f.state = RUNNING;
        f.released = true;
        f.barrier_count = f.warp_count = f.grid_count = 0;
        f.seen = SEEN_LAUNCH;
    }
    build_runlist();
    for (;;) {
        S.run_pos = 0;
        if (S.run_n) {
            Fiber *first = S.runlist[S.run_pos++];
            enter(first, &S.main_ctx);
        }
        if (S.faulted)
            return -1;
        if (S.timed_out.load()) { /* noticed between two rounds of the block */
            timeout_fault(nullptr);
            return -1;
        }
        int next = resolve();
        if (next == 0 || next == 2) {
            counters_block_end(S.threads);
            stores_block_end();
            return next == 0 ? 0 : 1;
        }
        if (next < 0)
            return -1;
    }
}

/* ---------------------------------------------------------------- cooperative launches */

/** Copies the running block's fibers, all waiting at a grid sync, out to \p p. */
void park_block(Scheduler::parked_block &p)
{
    p.fibers.assign(S.fibers, S.fibers + S.threads);
    p.offsets.resize(S.threads + 1);
    size_t total = 0;
    for (unsigned i = 0; i < S.threads; i++) {
        p.offsets[i] = total;
        total += (size_t)(S.fibers[i].stack_top - static_cast<char *>(S.fibers[i].ctx));
    }
    p.offsets[S.threads] = total;
    p.stacks.resize(total);
#ifdef EMU_RACE
    __tsan_ignore_thread_begin(); /* the copy is no access of any GPU thread's */
#endif
    for (unsigned i = 0; i < S.threads; i++)
        std::memcpy(p.stacks.data() + p.offsets[i], S.fibers[i].ctx, p.offsets[i + 1] - p.offsets[i]);
#ifdef EMU_RACE
    __tsan_ignore_thread_end();
#endif
}

/** Puts the fibers of a block parked by park_block back, at the same stack addresses. */
void unpark_block(const Scheduler::parked_block &p)
{
#ifdef EMU_RACE
    __tsan_ignore_thread_begin();
#endif
    for (unsigned i = 0; i < S.threads; i++) {
        S.fibers[i] = p.fibers[i];
        std::memcpy(S.fibers[i].ctx, p.stacks.data() + p.offsets[i], p.offsets[i + 1] - p.offsets[i]);
    }
#ifdef EMU_RACE
    __tsan_ignore_thread_end();
#endif
}

/** Sets blockIdx, the fiber set and the shared memory of the block at \p position. */
void enter_block(unsigned long long position, size_t arena_stride)
{
    const launch_config &c = *S.config;
    const unsigned long long plane = (unsigned long long)c.grid.x * c.grid.y;
    S.position = position;
    S.block_linear = block_at(position);
    blockIdx = {(unsigned)(S.block_linear % c.grid.x), (unsigned)(S.block_linear / c.grid.x % c.grid.y),
                (unsigned)(S.block_linear / plane)};
    S.fibers = S.fiber_sets[position % kFiberSets];
    S.shared = S.shared_region + arena_stride * S.block_linear;
}

/**
 * A cooperative launch: rounds, each running every live block in the launch's order until it
 * ends or waits at a grid sync; the round after a sync in which every block waited goes on
 * from there. A block that ended while others wait for it is a deadlock on a GPU: reported.
 */
void run_cooperative(size_t arena_stride)
{
    S.parked.resize(S.blocks);
    for (auto &p : S.parked)
        p.started = p.done = false;
    for (;;) {
        unsigned long long waiting = 0, done = 0, waiter_position = 0, done_position = 0;
        for (unsigned long long position = 0; position < S.blocks; position++) {
            enter_block(position, arena_stride);
            Scheduler::parked_block &p = S.parked[S.block_linear];
            if (p.done) {
                done++;
                done_position = position;
                continue;
            }
            bool resume = p.started;
            if (resume) {
                unpark_block(p);
            } else {
                /* fresh fibers: the set's stacks may hold another block's parked threads */
                for (unsigned i = 0; i < S.threads; i++)
                    S.fibers[i].ctx = bc::make_fcontext(S.fibers[i].stack_top, kStackBytes, fiber_main);
                poison(S.shared, S.static_top);
                p.started = true;
            }
            counters_block_begin(S.shared, S.block_shared_limit, S.threads);
            int result = run_block(resume);
            if (result < 0)
                return;
            if (result == 0) {
                p.done = true;
                done++;
                done_position = position;
            } else {
                park_block(p);
                if (!waiting++)
                    waiter_position = position;
            }
        }
        if (!waiting)
            return;
        if (done) {
            enter_block(done_position, arena_stride);
            char ended[64];
            format_block(ended, sizeof ended);
            enter_block(waiter_position, arena_stride);
            const Fiber &w = S.parked[S.block_linear].fibers[0];
            fault(cudaErrorLaunchFailure, "its threads wait at this_grid().sync() at %s:%d, but %s (and %llu other "
                  "blocks) already ended: every block of the grid must reach each grid sync, or it never completes",
                  w.file, w.line, ended, done - 1);
            return;
        }
    }
}

bool valid_config(const launch_config &c, const void *kernel)
{
    unsigned long long threads = (unsigned long long)c.block.x * c.block.y * c.block.z;
    if (threads == 0 || threads > kMaxThreads || c.block.x > 1024 || c.block.y > 1024 || c.block.z > 64 ||
        c.grid.x == 0 || c.grid.y == 0 || c.grid.z == 0 || c.grid.x > 2147483647u || c.grid.y > 65535 ||
        c.grid.z > 65535) {
        last_error = cudaErrorInvalidConfiguration;
        return false;
    }
    if (c.shmem > kernel_dynamic_shared_limit(kernel)) { /* more than 48 KB needs cudaFuncSetAttribute */
        last_error = cudaErrorInvalidValue;
        return false;
    }
    return true;
}

} // namespace

/* CUDA's names of the meeting points, for the scheduler's messages and the trace (emu_internal.h). */
const char *warp_op_name(int kind)
{
    static const char *names[] = {"__syncwarp",      "__shfl_sync",       "__shfl_up_sync",    "__shfl_down_sync",
                                  "__shfl_xor_sync", "__ballot_sync",     "__any_sync",        "__all_sync",
                                  "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__activemask",
                                  "__reduce_and_sync", "__reduce_or_sync",  "__reduce_xor_sync"};
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "a warp operation";
}

const char *barrier_name(int kind)
{
    static const char *names[] = {"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or"};
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "__syncthreads";
}

void launch(const launch_config &config, const void *kernel, void (*invoke)(void *), void *closure)
{
    if (sticky_error) { /* an earlier fault lost the context, as on a GPU: this launch fails */
        last_error = sticky_error;
        return;
    }
    if (!valid_config(config, kernel))
        return;
    unsigned threads = config.block.x * config.block.y * config.block.z;
    unsigned long long blocks = (unsigned long long)config.grid.x * config.grid.y * config.grid.z;
    if (config.cooperative) { /* every block resident at once, as the occupancy API counts them */
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&per_sm, kernel, (int)threads, config.shmem,
                                                               cudaOccupancyDefault);
        if (blocks > (unsigned long long)per_sm * kSmCount) {
            last_error = cudaErrorCooperativeLaunchTooLarge;
            return;
        }
    }
    /* a block's shared memory: the dynamic part, then up to 48 KB of static arrays, within the
     * 227 KB a block may have */
    size_t limit = (config.shmem + 15) / 16 * 16 + kStaticSharedLimit;
    if (limit > kSharedPerBlockOptin)
        limit = kSharedPerBlockOptin;
    limit = (limit + 4095) / 4096 * 4096;
#ifdef EMU_RACE
    size_t arena_stride = limit; /* every block its own shared memory: no false races */
#else
    size_t arena_stride = config.cooperative ? limit : 0; /* blocks of a cooperative launch take turns */
#endif
    bool ready = ensure_shared_region(limit + arena_stride * blocks);
    for (unsigned set = 0; set < kFiberSets && set < blocks && ready; set++)
        ready = ensure_fibers(set, threads);
    if (!ready) {
        last_error = cudaErrorMemoryAllocation;
        return;
    }
    S.config = &config;
    launch_number++;
    S.invoke = invoke;
    S.closure = closure;
    S.threads = threads;
    S.warps = (threads + 31) / 32;
    S.blocks = blocks;
    S.faulted = false;
    S.dynamic_bytes = config.shmem;
    S.block_shared_limit = (config.shmem + 15) / 16 * 16 + kStaticSharedLimit;
    if (S.block_shared_limit > kSharedPerBlockOptin)
        S.block_shared_limit = kSharedPerBlockOptin;
    S.static_top = (config.shmem + 15) / 16 * 16;
    S.static_count = 0;
    S.static_declared = 0;
    S.rng = S.seed * 0x9E3779B97F4A7C15ull + 1;
    S.first_block = forward_start(blocks, launch_number - 1);
    if (!shuffle_blocks()) {
        last_error = cudaErrorMemoryAllocation;
        return;
    }
    blockDim = config.block;
    gridDim = config.grid;
    for (unsigned set = 0; set < kFiberSets && set < blocks; set++)
        for (unsigned i = 0; i < threads; i++)
            S.fiber_sets[set][i].tid = {i % config.block.x, i / config.block.x % config.block.y,
                                        i / (config.block.x * config.block.y)};
#ifdef EMU_RACE
    size_t sync_bytes = blocks * (2 + 2 * (size_t)S.warps);
    if (sync_bytes > S.sync_space_bytes) {
        free(S.sync_space);
        S.sync_space = static_cast<char *>(malloc(sync_bytes));
        S.sync_space_bytes = S.sync_space ? sync_bytes : 0;
        if (!S.sync_space) {
            last_error = cudaErrorMemoryAllocation;
            return;
        }
    }
    __tsan_release(&S.launch_sync);
#endif
    counters_launch_begin(blocks, threads, config.shmem);
    if (tracing) {
        const unsigned grid[3] = {config.grid.x, config.grid.y, config.grid.z};
        const unsigned block[3] = {config.block.x, config.block.y, config.block.z};
        trace_launch(config.kernel, config.file, config.line, grid, block, config.shmem);
    }
    arm_watchdog();
    if (config.cooperative)
        run_cooperative(arena_stride);
    for (unsigned long long position = 0; position < blocks && !S.faulted && !config.cooperative; position++) {
        enter_block(position, arena_stride);
        poison(S.shared, S.static_top);
        counters_block_begin(S.shared, S.block_shared_limit, threads);
        if (run_block(false) != 0)
            break;
    }
    disarm_watchdog();
    counters_launch_end(S.static_declared);
    stores_launch_end();
    bool timed_out = S.faulted && sticky_error == cudaErrorLaunchTimeout;
    if (S.faulted) { /* the fibers stopped mid-kernel are rebuilt, their stacks dropped */
        for (unsigned i = 0; i < threads; i++)
            reset_fiber(S.fibers[i]);
        /* a cooperative launch's other fiber sets may hold a parked block's threads */
        for (unsigned set = 0; set < kFiberSets && set < blocks && config.cooperative; set++)
            if (S.fiber_sets[set] != S.fibers)
                for (unsigned i = 0; i < threads; i++)
                    S.fiber_sets[set][i].ctx = bc::make_fcontext(S.fiber_sets[set][i].stack_top, kStackBytes,
                                                                 fiber_main);
#ifdef EMU_RACE
        /* The other sets' fibers ran blocks of this launch and, stopped before their last,
         * have not said so (fiber_main): they do now. */
        for (unsigned set = 0; set < kFiberSets && set < blocks; set++)
            if (S.fiber_sets[set] != S.fibers)
                for (unsigned i = 0; i < threads; i++)
                    hand_over_to_host(S.fiber_sets[set][i]);
#endif
    }
#ifdef EMU_RACE
    __tsan_acquire(&S.grid_done);
#endif
    S.current = nullptr;
    S.timed_out.store(false);
    if (timed_out && timeout_hook)
        timeout_hook(fault_message, S.limit, 1);
}

int sync_block(const char *file, int line, block_kind kind, int predicate)
{
    Fiber *self = S.current;
    self->state = AT_BARRIER;
    self->seen = SEEN_BARRIER;
    self->kind = kind;
    self->file = file;
    self->line = line;
    self->value = predicate != 0;
    if (tracing)
        trace_barrier(self->index, kind, file, line);
#ifdef EMU_RACE
    char *address = sync_address(0, self->barrier_count);
    __tsan_release(address);
#endif
    park(self);
#ifdef EMU_RACE
    __tsan_acquire(address);
#endif
    self->barrier_count++;
    return (int)self->result;
}

unsigned long long warp_op(const char *file, int line, warp_kind kind, unsigned mask, unsigned long long value,
                           int param, int width)
{
    Fiber *self = S.current;
    unsigned lane = self->index & 31, base = self->index & ~31u;
    unsigned lanes = std::min(32u, S.threads - base);
    if (kind == WARP_ACTIVEMASK) {
        /* The lanes that run this __activemask() together: it waits until every thread of the
         * block has stopped (resolve()), then gets the lanes of its warp at the same call.
         * No synchronisation (none for ThreadSanitizer either), as on a GPU. */
        self->state = AT_WARP;
        self->kind = kind;
        self->file = file;
        self->line = line;
        self->mask = 0;
        park(self);
        return self->result;
    }
    char a[40];
    if (!(mask >> lane & 1)) {
        fault(cudaErrorLaunchFailure, "%s calls %s(0x%08x, ...) at %s:%d, but its own lane %u is not in the mask",
              thread_name(*self, a, sizeof a), warp_op_name(kind), mask, file, line, lane);
        abandon_from_fiber();
    }
    if (lanes < 32 && (mask >> lanes) != 0) {
        fault(cudaErrorLaunchFailure, "%s calls %s(0x%08x, ...) at %s:%d, but warp %u has only %u lanes (blockDim "
              "is not a multiple of 32)", thread_name(*self, a, sizeof a), warp_op_name(kind), mask, file, line,
              base / 32, lanes);
        abandon_from_fiber();
    }
    if (width < 1 || width > 32 || (width & (width - 1)) != 0) {
        fault(cudaErrorLaunchFailure, "%s calls %s with width %d at %s:%d: the width must be a power of two up to 32",
              thread_name(*self, a, sizeof a), warp_op_name(kind), width, file, line);
        abandon_from_fiber();
    }
    self->state = AT_WARP;
    self->seen = SEEN_WARP;
    self->kind = kind;
    self->file = file;
    self->line = line;
    self->mask = mask;
    self->value = value;
    self->param = param;
    self->width = width;
#ifdef EMU_RACE
    char *address = sync_address(2 + 2 * (base / 32), self->warp_count);
    __tsan_release(address);
#endif
    park(self);
#ifdef EMU_RACE
    __tsan_acquire(address);
#endif
    self->warp_count++;
    if (tracing)
        trace_warp(self->index, kind, mask, value, param, self->result, file, line);
    return self->result;
}

void fence()
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (S.current && tracing)
        trace_fence(S.current->index, __builtin_return_address(0));
    if (S.current)
        stores_fence(S.current->index);
}

bool grid_is_cooperative() { return S.current && S.config && S.config->cooperative; }

void sync_grid(const char *file, int line)
{
    Fiber *self = S.current;
    char a[40];
    if (!S.config->cooperative) {
        fault(cudaErrorLaunchFailure, "%s calls this_grid().sync() at %s:%d, but the kernel was not launched with "
              "cudaLaunchCooperativeKernel: a grid sync needs a cooperative launch (on a GPU it fails, or never "
              "returns)", thread_name(*self, a, sizeof a), file, line);
        abandon_from_fiber();
    }
    fence(); /* a grid sync publishes every store made before it */
    self->state = AT_GRID;
    self->seen = SEEN_GRID;
    self->kind = 0;
    self->file = file;
    self->line = line;
#ifdef EMU_RACE
    char *address = &S.grid_sync[self->grid_count & 1];
    __tsan_release(address);
#endif
    park(self);
#ifdef EMU_RACE
    __tsan_acquire(address);
#endif
    self->grid_count++;
}

void *static_shared(const void *site, size_t bytes, size_t align, const char *name, const char *file)
{
    for (unsigned i = 0; i < S.static_count; i++)
        if (S.statics[i].first == site)
            return S.shared + S.statics[i].second;
    size_t offset = (S.static_top + align - 1) / align * align;
    char a[40];
    size_t static_bytes = offset + bytes - (S.dynamic_bytes + 15) / 16 * 16;
    if (static_bytes > kStaticSharedLimit || offset + bytes > S.block_shared_limit ||
        S.static_count == sizeof S.statics / sizeof S.statics[0]) {
        fault(cudaErrorLaunchFailure, "%s: __shared__ %s (%s) would take the block's static shared memory to %zu "
              "bytes (and all of it to %zu); the limits are 48 KB of static and 227 KB in all",
              thread_name(*S.current, a, sizeof a), name, file, static_bytes, offset + bytes);
        abandon_from_fiber();
    }
    S.statics[S.static_count++] = {site, offset};
    S.static_declared += bytes;
    if (tracing)
        trace_shared_array(name, offset, bytes);
    poison(S.shared + S.static_top, offset + bytes - S.static_top);
    S.static_top = offset + bytes;
    return S.shared + offset;
}

void *dynamic_shared(size_t *bytes)
{
    *bytes = S.dynamic_bytes;
    return S.shared;
}

void shared_index_error(const char *name, const char *file, int line, long long index, size_t count)
{
    char a[40], where[300];
    if (line > 0)
        snprintf(where, sizeof where, " at %s:%d", file, line);
    else
        snprintf(where, sizeof where, " (declared in %s)", file);
    if (tracing)
        trace_fault_at(file, line);
    fault(cudaErrorIllegalAddress, "%s indexes %s[%lld]%s, outside the %zu elements it has%s",
          thread_name(*S.current, a, sizeof a), name, index, where, count,
          count == 0 ? ": the launch gave no dynamic shared memory (the third value in <<< >>>)" : "");
    abandon_from_fiber();
}

void misaligned_address_error(const char *access, const char *type, const char *file, unsigned line,
                              const void *address, unsigned long long bytes)
{
    char a[40];
    const char *article = type[0] && strchr("aeiou", type[0]) ? "an" : "a";
    if (tracing)
        trace_fault_at(file, (int)line);
    fault(cudaErrorMisalignedAddress, "%s %s %s %s at %s:%u through address %p, not a multiple of %llu bytes: a "
          "misaligned address, which fails the kernel on a GPU", thread_name(*S.current, a, sizeof a), access, article,
          type, file, line, address, bytes);
    abandon_from_fiber(); /* before the access: it never happens, as on a GPU (and movaps never crashes) */
}

} // namespace emu

extern "C" {

void emu_set_order(emu_order order, unsigned long long seed)
{
    emu::S.order = order;
    emu::S.seed = seed;
}

const char *emu_order_name(emu_order order)
{
    switch (order) {
    case EMU_ORDER_FORWARD: return "forward";
    case EMU_ORDER_REVERSE: return "reverse";
    default: return "random";
    }
}

size_t emu_undefined_shuffle_note(char *buffer, size_t size)
{
    const emu::UndefinedRead &u = emu::undefined_read;
    char text[600] = "";
    if (u.seen && u.count > 1)
        snprintf(text, sizeof text, "%s; %llu such reads in %llu launch%s", u.text, u.count, u.launches,
                 u.launches == 1 ? "" : "es");
    else if (u.seen)
        snprintf(text, sizeof text, "%s", u.text);
    if (buffer && size)
        snprintf(buffer, size, "%s", text);
    return std::strlen(text);
}

void emu_undefined_shuffle_forget(void)
{
    emu::undefined_read = emu::UndefinedRead();
}

void emu_set_timeout(double seconds)
{
    if (seconds > 0 && !emu::S.limit_from_env)
        emu::S.limit = seconds;
}

double emu_timeout(void) { return emu::S.limit; }

void emu_set_timeout_hook(emu_timeout_hook hook) { emu::timeout_hook = hook; }

int emu_race_mode(void)
{
#ifdef EMU_RACE
    return 1;
#else
    return 0;
#endif
}

} // extern "C"
