/**
 * \file counters.cpp
 * \brief What would make a launch slow on a GPU, counted while it runs on the CPU
 *        (emu_control.h, emu_counters_*; the definitions are in docs/emulator.md, "What the
 *        emulator counts").
 *
 * How the accesses are seen: in the plain build the stage files are compiled with GCC's
 * ThreadSanitizer instrumentation (-fsanitize=thread, emu/CMakeLists.txt), which calls
 * __tsan_read4(address) before a 4-byte load, __tsan_write16 before a 16-byte store, and so on,
 * for every access the compiler could not prove to be a local variable's. libtsan is not
 * linked: the callbacks are defined here. Each one checks whether the address lies in the
 * running block's shared memory (logged for the thread, to be paired with its warp's other
 * lanes at the next meeting point) or in memory cudaMalloc gave (counted at once; a load is
 * logged too, in a log of its own, and paired the same way into load requests); anything
 * else (the stack, the harness's host memory, the launcher's own variables) costs two
 * compares. Atomics are real atomics here; CUDA's atomic functions count themselves
 * (note_atomic, from emu_kernel.h), not the compare-and-swap loops that implement some.
 *
 * The race build keeps the real ThreadSanitizer: there this file counts nothing and defines
 * no callback.
 */
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "emu_internal.h"
#include "emu_kernel.h"

namespace emu {

count_state counting = {nullptr, nullptr, 0, 0, 0, 0, 0, 0};
lane_log lane_logs[1024];

namespace {

#if defined(EMU_COUNTS) && !defined(EMU_RACE)
constexpr bool kCounts = true;
#else
constexpr bool kCounts = false;
#endif

/* A thread with this many shared-memory accesses between two meeting points has its further
 * ones counted as requests of their own (one active lane): the log stays under 16 MB. */
constexpr unsigned kLaneLogLimit = 1u << 22;

/* The same for global loads (8 bytes an entry): the log stays under 8 MB. */
constexpr unsigned kLoadLogLimit = 1u << 20;

/** One thread's global loads since its last meeting point, beside its lane_log (same index). */
struct load_log {
    unsigned long long *entries; /* address << 5 | (bytes - 1) */
    unsigned length, capacity;
};
load_log load_logs[1024];

emu_launch_counters records[EMU_COUNTERS_MAX_LAUNCHES];
size_t record_count = 0;
unsigned block_threads = 0; /* the launch being counted */

/* ---------------------------------------------------------------- device memory */

struct allocation {
    unsigned long long begin, end;
};
std::vector<allocation> allocations; /* sorted by begin */

bool is_device(unsigned long long a)
{
    if (a - counting.device_low >= counting.device_span)
        return false;
    auto it = std::upper_bound(allocations.begin(), allocations.end(), a,
                               [](unsigned long long x, const allocation &r) { return x < r.begin; });
    return it != allocations.begin() && a < (it - 1)->end;
}

void update_device_bounds()
{
    if (allocations.empty()) {
        counting.device_low = counting.device_span = 0;
        return;
    }
    unsigned long long high = 0;
    for (const allocation &r : allocations)
        high = std::max(high, r.end);
    counting.device_low = allocations.front().begin;
    counting.device_span = high - counting.device_low;
}

/* ---------------------------------------------------------------- shared-memory requests */

/** The largest number of distinct words one bank is asked for (the words, \p n of them, are
 *  not all in different banks, nor all one word). */
unsigned wavefronts_of(unsigned *words, unsigned n)
{
    std::sort(words, words + n);
    unsigned per_bank[32] = {0}, most = 0;
    for (unsigned i = 0; i < n; i++)
        if (i == 0 || words[i] != words[i - 1])
            most = std::max(most, ++per_bank[words[i] & 31]);
    return most;
}

/** Request k of the lanes \p mask of the warp at \p base: counts it; \p lanes: lanes the warp has. */
void count_request(emu_launch_counters *r, const lane_log *lane, unsigned lanes, unsigned mask, unsigned k)
{
    unsigned active = 0, loads = 0, stores = 0, n = 0;
    unsigned words[32 * 5];
    unsigned seen = 0, first_word[32];
    bool simple = true; /* so far every bank is asked for one word at most */
    for (unsigned m = 0; m < lanes; m++) {
        if (!(mask >> m & 1) || lane[m].length <= k)
            continue;
        unsigned entry = lane[m].entries[k];
        active++;
        if (entry & 1)
            stores++;
        else
            loads++;
        unsigned word = entry >> 4, count = (entry >> 1 & 7) + 1;
        for (unsigned j = 0; j < count; j++) {
            unsigned w = word + j, bank = w & 31;
            words[n++] = w;
            if (!(seen >> bank & 1)) {
                seen |= 1u << bank;
                first_word[bank] = w;
            } else if (first_word[bank] != w)
                simple = false;
        }
    }
    if (!active)
        return;
    unsigned wavefronts = simple ? 1 : wavefronts_of(words, n);
    r->shared_requests++;
    if (!stores)
        r->shared_load_requests++;
    else if (!loads)
        r->shared_store_requests++;
    r->shared_wavefronts += wavefronts;
    r->shared_bank_conflicts += wavefronts - 1;
    r->shared_active_lanes += active;
    r->shared_idle_lanes += lanes - active;
    if (active < lanes)
        r->shared_divergent_requests++;
}

/* ---------------------------------------------------------------- global load requests */

/** Load request k of the lanes \p mask (\p lanes lanes): its distinct sectors, and the fewest
 *  sectors its distinct bytes fill. */
void count_load_request(emu_launch_counters *r, const load_log *lane, unsigned lanes, unsigned mask, unsigned k)
{
    unsigned long long sectors[64], begin[32], end[32];
    unsigned n = 0, active = 0;
    for (unsigned m = 0; m < lanes; m++) {
        if (!(mask >> m & 1) || lane[m].length <= k)
            continue;
        unsigned long long entry = lane[m].entries[k], a = entry >> 5, last = a + (entry & 31);
        begin[active] = a;
        end[active++] = last + 1;
        sectors[n++] = a >> 5;
        if (last >> 5 != a >> 5)
            sectors[n++] = last >> 5; /* an unaligned access across a sector's end */
    }
    if (!active)
        return;
    std::sort(sectors, sectors + n);
    unsigned long long distinct_sectors = std::unique(sectors, sectors + n) - sectors;
    /* distinct bytes: the union of the lanes' ranges (sorted by start; the ends follow) */
    unsigned order[32];
    for (unsigned i = 0; i < active; i++)
        order[i] = i;
    std::sort(order, order + active, [&](unsigned x, unsigned y) { return begin[x] < begin[y]; });
    unsigned long long bytes = 0, covered = 0; /* bytes below `covered` are counted */
    for (unsigned i = 0; i < active; i++) {
        unsigned long long b = std::max(begin[order[i]], covered), e = end[order[i]];
        if (e > b) {
            bytes += e - b;
            covered = e;
        }
    }
    r->global_load_requests++;
    r->global_load_sectors += distinct_sectors;
    r->global_load_sectors_needed += (bytes + 31) / 32;
}

/** The lanes \p mask of the warp at \p base met: their logged accesses become requests. */
void pair_lanes(unsigned base, unsigned lanes, unsigned mask)
{
    emu_launch_counters *r = counting.record;
    if (!r)
        return;
    lane_log *lane = &lane_logs[base];
    load_log *loads = &load_logs[base];
    unsigned longest = 0, most_loads = 0;
    for (unsigned m = 0; m < lanes; m++)
        if (mask >> m & 1) {
            longest = std::max(longest, lane[m].length);
            most_loads = std::max(most_loads, loads[m].length);
        }
    for (unsigned k = 0; k < longest; k++)
        count_request(r, lane, lanes, mask, k);
    for (unsigned k = 0; k < most_loads; k++)
        count_load_request(r, loads, lanes, mask, k);
    for (unsigned m = 0; m < lanes; m++)
        if (mask >> m & 1)
            lane[m].length = loads[m].length = 0;
}

unsigned lanes_of(unsigned base) { return std::min(32u, block_threads - base); }

unsigned full_mask(unsigned lanes) { return lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1; }

/* ---------------------------------------------------------------- the accesses */

/** Makes room for one more entry in \p log (a lane_log or a load_log), up to \p limit entries:
 *  false when the log is full (or no memory was left). */
template <typename Log> bool room_in(Log *log, unsigned limit)
{
    if (log->length < log->capacity)
        return true;
    if (log->capacity >= limit)
        return false;
    /* The time limit's signal may leave this fiber for good (scheduler.cpp, on_timer): not
     * inside realloc, whose lock would stay taken. */
    sigset_t timer, before;
    sigemptyset(&timer);
    sigaddset(&timer, SIGVTALRM);
    sigprocmask(SIG_BLOCK, &timer, &before);
    unsigned capacity = log->capacity ? 2 * log->capacity : 64;
    auto *entries = static_cast<decltype(log->entries)>(std::realloc(log->entries, capacity * sizeof *log->entries));
    sigprocmask(SIG_SETMASK, &before, nullptr);
    if (!entries)
        return false;
    log->entries = entries;
    log->capacity = capacity;
    return true;
}

/** A shared-memory access of \p size bytes at byte \p offset by the running thread. */
void shared_access(unsigned long long offset, unsigned size, bool store)
{
    lane_log *log = counting.lane;
    unsigned first = (unsigned)(offset >> 2), last = (unsigned)((offset + size - 1) >> 2);
    unsigned entry = first << 4 | (last - first) << 1 | (store ? 1u : 0u);
    if (!room_in(log, kLaneLogLimit)) {
        if (log->capacity >= kLaneLogLimit) { /* a request of its own, one lane active */
            unsigned index = (unsigned)(log - lane_logs), base = index & ~31u, lanes = lanes_of(base);
            lane_log alone = {&entry, 1, 1};
            lane_log view[32] = {};
            view[index - base] = alone;
            count_request(counting.record, view, lanes, 1u << (index - base), 0);
        }
        return;
    }
    log->entries[log->length++] = entry;
}

/** A global load of \p size bytes at \p address by the running thread: logged, to be paired
 *  with its warp's other lanes at the next meeting point. */
void global_load(unsigned long long address, unsigned size)
{
    unsigned index = (unsigned)(counting.lane - lane_logs);
    load_log *log = &load_logs[index];
    unsigned long long entry = address << 5 | (size - 1);
    if (!room_in(log, kLoadLogLimit)) {
        if (log->capacity >= kLoadLogLimit) { /* a request of its own, one lane active */
            unsigned base = index & ~31u;
            load_log alone = {&entry, 1, 1};
            load_log view[32] = {};
            view[index - base] = alone;
            count_load_request(counting.record, view, lanes_of(base), 1u << (index - base), 0);
        }
        return;
    }
    log->entries[log->length++] = entry;
}

void global_access(unsigned long long address, unsigned size, bool store)
{
    emu_launch_counters *r = counting.record;
    if (store) {
        r->global_stores++;
        r->global_store_bytes += size;
    } else {
        r->global_loads++;
        r->global_load_bytes += size;
        r->global_loads_by_width[__builtin_ctz(size)]++;
        global_load(address, size);
    }
}

/* ---------------------------------------------------------------- when other blocks see a store
 *
 * A GPU's plain stores reach other SMs late: without a __threadfence() between a block's
 * partial-sum store and its ticket atomic, the last block may read a stale partial sum. Blocks
 * run one after another here, so each store made by a block and published by no fence is
 * hidden when the block stops: memory gets the word's value from before the store back, and
 * the new value waits in `hidden` for the kernel's end. The storing block itself reads memory
 * while it runs, so it sees its stores at once, as on a GPU.
 *
 * What publishes a store (the CUDA memory model's fence cumulativity, as the kit uses it):
 *   - a __threadfence() of the storing thread, or of any thread of its block once a
 *     __syncthreads() has come between the store and the fence (the barrier orders the store
 *     before the fencing thread's later accesses);
 *   - an atomic on the same address, by any block (atomics are done at L2, where the store
 *     must be first: its value counts);
 *   - a grid sync (every thread fences there), and the kernel's end.
 * Volatile stores are no exception: the CUDA guide's last-block sample stores through a
 * volatile pointer and still needs its __threadfence(). Loads are not hooked: other blocks'
 * hidden values are simply not in memory while they run. */

/** A store of the running block that no fence has published yet. */
struct pending_store {
    unsigned long long address;
    unsigned size;
    unsigned thread, epoch; /* who stored it; the block's barriers passed before the store */
    unsigned previous;      /* the same thread's store before it, or kNone */
    bool published;
    unsigned char old_bytes[16], new_bytes[16];
};
/** A stopped block's store that no fence published: memory holds the old value meanwhile. */
struct hidden_store {
    unsigned size;
    unsigned char bytes[16];
};
constexpr unsigned kNone = ~0u;
std::vector<pending_store> pending;
unsigned last_store_of[1024]; /* by thread: its latest entry in `pending`, or kNone */
unsigned block_epoch = 0;     /* the running block's barriers so far */
unsigned published_before = 0; /* entries made before this many barriers are published */
std::unordered_map<unsigned long long, hidden_store> hidden;

inline unsigned running_thread() { return (unsigned)(counting.lane - lane_logs); }

/** The time limit's signal may leave a fiber for good (scheduler.cpp, on_timer): never inside
 *  malloc or free, whose lock would stay taken. */
struct timer_blocked {
    sigset_t before;
    timer_blocked()
    {
        sigset_t timer;
        sigemptyset(&timer);
        sigaddset(&timer, SIGVTALRM);
        sigprocmask(SIG_BLOCK, &timer, &before);
    }
    ~timer_blocked() { sigprocmask(SIG_SETMASK, &before, nullptr); }
};

/** Where the running thread's global store of \p size bytes at \p a is about to go. */
void global_store(unsigned long long a, unsigned size)
{
    if (!hidden.empty()) {
        auto it = hidden.find(a);
        if (it != hidden.end()) { /* a later store to the same word: the hidden one is overwritten */
            timer_blocked quiet;
            hidden.erase(it);
        }
    }
    unsigned thread = running_thread();
    unsigned last = last_store_of[thread];
    if (last != kNone) {
        const pending_store &p = pending[last];
        /* A loop that keeps storing to one word (out[i] += ...) costs one entry, not one a store. */
        if (p.address == a && p.size == size && p.epoch == block_epoch && !p.published)
            return;
    }
    pending_store p;
    p.address = a;
    p.size = size;
    p.thread = thread;
    p.epoch = block_epoch;
    p.previous = last;
    p.published = false;
    std::memcpy(p.old_bytes, reinterpret_cast<const void *>(a), size);
    last_store_of[thread] = (unsigned)pending.size();
    if (pending.size() == pending.capacity()) {
        timer_blocked quiet;
        pending.reserve(pending.empty() ? 64 : 2 * pending.size());
    }
    pending.push_back(p);
}

inline bool is_published(const pending_store &p) { return p.published || p.epoch < published_before; }

/** An atomic at \p a: stores to that word, hidden or pending, are seen from now on. */
void atomic_publishes(unsigned long long a)
{
    if (!hidden.empty()) {
        auto it = hidden.find(a);
        if (it != hidden.end()) {
            std::memcpy(reinterpret_cast<void *>(a), it->second.bytes, it->second.size);
            timer_blocked quiet;
            hidden.erase(it);
        }
    }
    for (pending_store &p : pending)
        if (p.address == a)
            p.published = true;
}

/** An access of 1, 2, 4, 8 or 16 bytes at \p address by kernel code. */
inline void count_access(const volatile void *address, unsigned size, bool store)
{
    if (!counting.lane)
        return; /* host code (a launcher) */
    unsigned long long a = (unsigned long long)(const void *)address;
    if (store && a - counting.shared_base >= counting.shared_bytes && a - counting.stack_low >= counting.stack_span)
        global_store(a, size); /* neither shared memory nor a thread's own stack: global memory */
    if (!counting.record)
        return; /* a launch that is not counted */
    if (a - counting.shared_base < counting.shared_bytes)
        shared_access(a - counting.shared_base, size, store);
    else if (is_device(a))
        global_access(a, size, store);
}

#ifndef EMU_RACE
/** A copy GCC does not make as one aligned access of 1, 2, 4, 8 or 16 bytes: a structure
 *  aligned to less than its size (a kit_mat3 or an int3, 36 and 12 bytes aligned to 4; a
 *  kit_argmin, 8 bytes aligned to 4; GCC passes these as ranges). A GPU reads such a structure
 *  one 4-byte member at a time (nvcc cannot use a wider load at an address only known to be a
 *  multiple of 4), so: pieces of 4 bytes, narrower where the address is not a multiple of 4
 *  or the bytes left are fewer. */
void range_access(const volatile void *address, unsigned long size, bool store, const void *pc)
{
    unsigned long long a = (unsigned long long)(const void *)address;
    while (size) {
        unsigned width = 4;
        while (width > size || a % width)
            width /= 2;
        if (__builtin_expect(tracing, 0))
            trace_access(reinterpret_cast<const volatile void *>(a), width, store, pc);
        count_access(reinterpret_cast<const volatile void *>(a), width, store);
        a += width;
        size -= width;
    }
}
#endif

} // namespace

/* ---------------------------------------------------------------- the scheduler's calls */

void counters_launch_begin(unsigned long long blocks, unsigned threads, size_t dynamic_shared)
{
    counting.record = nullptr;
    if (!kCounts || record_count == EMU_COUNTERS_MAX_LAUNCHES)
        return;
    emu_launch_counters *r = &records[record_count++];
    std::memset(r, 0, sizeof *r);
    r->grid_blocks = blocks;
    r->block_threads = threads;
    r->shared_bytes_per_block = dynamic_shared;
    block_threads = threads;
    counting.record = r;
}

void counters_launch_end(size_t static_shared)
{
    if (tracing)
        trace_launch_end();
    emu_launch_counters *r = counting.record;
    counting.record = nullptr;
    counting.shared_bytes = 0;
    if (!r)
        return;
    r->shared_bytes_per_block += static_shared;
    /* what the emulator's cudaGetDeviceProperties says (runtime.cpp, describe_gpu) */
    unsigned long long per_sm = std::min<unsigned long long>(kBlocksPerSm, kThreadsPerSm / r->block_threads);
    if (r->shared_bytes_per_block)
        per_sm = std::min<unsigned long long>(per_sm, kSharedPerSm / r->shared_bytes_per_block);
    r->resident_blocks = (unsigned long long)kSmCount * per_sm;
}

void counters_block_begin(const void *shared, size_t bytes, unsigned threads)
{
    counting.shared_base = (unsigned long long)shared; /* a store there is no global store */
    counting.shared_bytes = bytes;
    if (tracing)
        trace_block_begin();
    if (!counting.record)
        return;
    for (unsigned i = 0; i < threads; i++)
        lane_logs[i].length = load_logs[i].length = 0;
}

void counters_block_barrier(unsigned threads)
{
    if (tracing)
        trace_block_barrier();
    if (!counting.record)
        return;
    counting.record->block_barriers++;
    for (unsigned base = 0; base < threads; base += 32)
        pair_lanes(base, lanes_of(base), full_mask(lanes_of(base)));
}

void counters_warp_meeting(unsigned base, unsigned lanes, unsigned mask)
{
    if (tracing)
        trace_warp_meeting(base, lanes, mask);
    if (!counting.record)
        return;
    counting.record->warp_meetings++;
    pair_lanes(base, lanes, mask);
}

void counters_block_end(unsigned threads)
{
    if (tracing)
        trace_block_end();
    if (!counting.record)
        return;
    for (unsigned base = 0; base < threads; base += 32)
        pair_lanes(base, lanes_of(base), full_mask(lanes_of(base)));
}

void stores_block_begin()
{
    pending.clear();
    std::fill(std::begin(last_store_of), std::end(last_store_of), kNone);
    block_epoch = published_before = 0;
}

void stores_block_barrier() { block_epoch++; }

void stores_fence(unsigned thread)
{
    published_before = block_epoch;
    for (unsigned i = last_store_of[thread]; i != kNone && !pending[i].published; i = pending[i].previous)
        pending[i].published = true;
}

void stores_block_end()
{
    /* Every hidden word's value now, then the old values back, latest store first, so that a
     * word stored twice gets the value from before the first. */
    for (pending_store &p : pending)
        if (!is_published(p))
            std::memcpy(p.new_bytes, reinterpret_cast<const void *>(p.address), p.size);
    for (size_t i = pending.size(); i-- > 0;) {
        const pending_store &p = pending[i];
        if (is_published(p))
            continue;
        std::memcpy(reinterpret_cast<void *>(p.address), p.old_bytes, p.size);
        hidden_store &h = hidden[p.address];
        h.size = p.size;
        std::memcpy(h.bytes, p.new_bytes, p.size);
    }
    stores_block_begin();
}

void stores_launch_end()
{
    stores_block_begin(); /* a faulted block's stores: in memory already */
    for (const auto &h : hidden)
        std::memcpy(reinterpret_cast<void *>(h.first), h.second.bytes, h.second.size);
    hidden.clear();
}

void note_atomic(const void *address, unsigned bytes)
{
    if (tracing)
        trace_atomic(address, bytes, __builtin_return_address(0));
    if (counting.lane && (!hidden.empty() || !pending.empty()))
        atomic_publishes((unsigned long long)address);
    if (counting.lane && counting.record && is_device((unsigned long long)address))
        counting.record->global_atomics++;
}

bool device_allocation(unsigned long long a, unsigned long long *begin, unsigned long long *end)
{
    if (!is_device(a))
        return false;
    auto it = std::upper_bound(allocations.begin(), allocations.end(), a,
                               [](unsigned long long x, const allocation &r) { return x < r.begin; });
    *begin = (it - 1)->begin;
    *end = (it - 1)->end;
    return true;
}

/* Stage archives compiled before atomics said their width (a student edition's prebuilt references). */
void note_atomic(const void *address)
{
    if (counting.lane && (!hidden.empty() || !pending.empty()))
        atomic_publishes((unsigned long long)address);
    if (counting.lane && counting.record && is_device((unsigned long long)address))
        counting.record->global_atomics++;
}

void device_memory_added(const void *p, size_t bytes)
{
    if (!p || !bytes)
        return;
    allocation r = {(unsigned long long)p, (unsigned long long)p + bytes};
    allocations.insert(std::upper_bound(allocations.begin(), allocations.end(), r,
                                        [](const allocation &x, const allocation &y) { return x.begin < y.begin; }),
                       r);
    update_device_bounds();
}

void device_memory_removed(const void *p)
{
    for (auto it = allocations.begin(); it != allocations.end(); ++it)
        if (it->begin == (unsigned long long)p) {
            allocations.erase(it);
            break;
        }
    update_device_bounds();
}

} // namespace emu


extern "C" {

void emu_counters_reset(void)
{
    emu::record_count = 0;
    emu::counting.record = nullptr;
}

size_t emu_counters_launches(void) { return emu::record_count; }

int emu_counters_get(size_t launch, emu_launch_counters *out)
{
    if (launch >= emu::record_count || !out)
        return -1;
    *out = emu::records[launch];
    return 0;
}

int emu_counters_available(void) { return emu::kCounts ? 1 : 0; }

#ifndef EMU_RACE
/* ---------------------------------------------------------------- ThreadSanitizer's callbacks
 * The entry points GCC's -fsanitize=thread instrumentation calls (the signatures of
 * compiler-rt's tsan_interface.h and tsan_interface_atomic.h). Defined in every plain build,
 * counting or not: a student edition's prebuilt reference stages are instrumented, and must
 * link with a runtime built without counting (-DKIT_EMU_COUNTERS=OFF, another compiler) too. */
typedef const volatile void *address_t;
using emu::count_access;
using emu::range_access;

void __tsan_init(void) {}
void __tsan_func_entry(void *) {}
void __tsan_func_exit(void) {}
void __tsan_vptr_update(void **, void *) {}
void __tsan_vptr_read(void **) {}

/* The trace's test comes first: off, it is the only cost; on, it needs the caller's address. */
#define EMU_TRACED(p, n, store)                                                                          \
    do {                                                                                                 \
        if (__builtin_expect(emu::tracing, 0))                                                           \
            emu::trace_access(p, n, store, __builtin_return_address(0));                                 \
        count_access(p, n, store);                                                                       \
    } while (0)
#define EMU_TSAN_ACCESS(n)                                                                               \
    void __tsan_read##n(address_t p) { EMU_TRACED(p, n, false); }                                        \
    void __tsan_write##n(address_t p) { EMU_TRACED(p, n, true); }                                        \
    void __tsan_unaligned_read##n(address_t p) { EMU_TRACED(p, n, false); }                              \
    void __tsan_unaligned_write##n(address_t p) { EMU_TRACED(p, n, true); }                              \
    void __tsan_volatile_read##n(address_t p) { EMU_TRACED(p, n, false); }                               \
    void __tsan_volatile_write##n(address_t p) { EMU_TRACED(p, n, true); }                               \
    void __tsan_unaligned_volatile_read##n(address_t p) { EMU_TRACED(p, n, false); }                     \
    void __tsan_unaligned_volatile_write##n(address_t p) { EMU_TRACED(p, n, true); }                     \
    void __tsan_read##n##_pc(address_t p, void *) { EMU_TRACED(p, n, false); }                           \
    void __tsan_write##n##_pc(address_t p, void *) { EMU_TRACED(p, n, true); }
EMU_TSAN_ACCESS(1)
EMU_TSAN_ACCESS(2)
EMU_TSAN_ACCESS(4)
EMU_TSAN_ACCESS(8)
EMU_TSAN_ACCESS(16)
#undef EMU_TSAN_ACCESS
#undef EMU_TRACED

void __tsan_read_range(address_t p, unsigned long size) { range_access(p, size, false, __builtin_return_address(0)); }
void __tsan_write_range(address_t p, unsigned long size) { range_access(p, size, true, __builtin_return_address(0)); }
void __tsan_read_range_pc(address_t p, unsigned long size, void *) { range_access(p, size, false, __builtin_return_address(0)); }
void __tsan_write_range_pc(address_t p, unsigned long size, void *) { range_access(p, size, true, __builtin_return_address(0)); }

/* Clang's instrumentation calls these instead of memcpy, memset and memmove. */
void *__tsan_memcpy(void *d, const void *s, unsigned long n) { return std::memcpy(d, s, n); }
void *__tsan_memmove(void *d, const void *s, unsigned long n) { return std::memmove(d, s, n); }
void *__tsan_memset(void *d, int c, unsigned long n) { return std::memset(d, c, n); }

/* Atomics: done as asked, sequentially consistent whatever the order asked (one OS thread runs
 * every fiber). Not counted here: CUDA's atomic functions count themselves (note_atomic). The
 * 16-byte ones are plain reads and writes: no fiber switch can come between them. */
#define EMU_TSAN_ATOMIC(n, T)                                                                            \
    T __tsan_atomic##n##_load(const volatile T *a, int) { return __atomic_load_n(a, __ATOMIC_SEQ_CST); } \
    void __tsan_atomic##n##_store(volatile T *a, T v, int) { __atomic_store_n(a, v, __ATOMIC_SEQ_CST); } \
    T __tsan_atomic##n##_exchange(volatile T *a, T v, int) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); } \
    T __tsan_atomic##n##_fetch_add(volatile T *a, T v, int) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); } \
    T __tsan_atomic##n##_fetch_sub(volatile T *a, T v, int) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); } \
    T __tsan_atomic##n##_fetch_and(volatile T *a, T v, int) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); } \
    T __tsan_atomic##n##_fetch_or(volatile T *a, T v, int) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); } \
    T __tsan_atomic##n##_fetch_xor(volatile T *a, T v, int) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); } \
    T __tsan_atomic##n##_fetch_nand(volatile T *a, T v, int) { return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST); } \
    int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, int, int)                   \
    {                                                                                                    \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
    }                                                                                                    \
    int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v, int, int)                     \
    {                                                                                                    \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
    }                                                                                                    \
    T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int, int)                         \
    {                                                                                                    \
        __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                \
        return c;                                                                                        \
    }
EMU_TSAN_ATOMIC(8, unsigned char)
EMU_TSAN_ATOMIC(16, unsigned short)
EMU_TSAN_ATOMIC(32, unsigned int)
EMU_TSAN_ATOMIC(64, unsigned long long)
#undef EMU_TSAN_ATOMIC

typedef unsigned __int128 u128;
u128 __tsan_atomic128_load(const volatile u128 *a, int) { return *a; }
void __tsan_atomic128_store(volatile u128 *a, u128 v, int) { *a = v; }
#define EMU_TSAN_ATOMIC128(op, expr)                                                                     \
    u128 __tsan_atomic128_##op(volatile u128 *a, u128 v, int)                                            \
    {                                                                                                    \
        u128 old = *a;                                                                                   \
        *a = expr;                                                                                       \
        return old;                                                                                      \
    }
EMU_TSAN_ATOMIC128(exchange, v)
EMU_TSAN_ATOMIC128(fetch_add, old + v)
EMU_TSAN_ATOMIC128(fetch_sub, old - v)
EMU_TSAN_ATOMIC128(fetch_and, old & v)
EMU_TSAN_ATOMIC128(fetch_or, old | v)
EMU_TSAN_ATOMIC128(fetch_xor, old ^ v)
EMU_TSAN_ATOMIC128(fetch_nand, ~(old & v))
#undef EMU_TSAN_ATOMIC128
int __tsan_atomic128_compare_exchange_strong(volatile u128 *a, u128 *c, u128 v, int, int)
{
    if (*a == *c) {
        *a = v;
        return 1;
    }
    *c = *a;
    return 0;
}
int __tsan_atomic128_compare_exchange_weak(volatile u128 *a, u128 *c, u128 v, int mo, int fail)
{
    return __tsan_atomic128_compare_exchange_strong(a, c, v, mo, fail);
}
u128 __tsan_atomic128_compare_exchange_val(volatile u128 *a, u128 c, u128 v, int mo, int fail)
{
    __tsan_atomic128_compare_exchange_strong(a, &c, v, mo, fail);
    return c;
}

void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
#endif

} // extern "C"
