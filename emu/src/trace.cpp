/**
 * \file trace.cpp
 * \brief What every GPU thread of a small launch did, recorded while the emulator runs it, for
 *        a picture of the student's own kernel (emu_control.h, emu_trace_*; the JSON it writes
 *        is described in docs/trace_format.md, version EMU_TRACE_VERSION).
 *
 * Off, a trace costs one test of `tracing` per memory access (in ThreadSanitizer's callbacks,
 * counters.cpp), per barrier and per warp meeting: the emulated grading never turns it on.
 * On, it keeps one record per access of shared memory, of memory cudaMalloc gave or of a stage
 * file's __device__ variable (which the build step names: emu::device_variable): the thread, its
 * step, the bytes and the value they held or were given, the address of the instruction; and
 * one per barrier, warp operation, fence and atomic, up to kMaxEvents records and
 * kMaxBlocks blocks a launch, the last to run among them (the rest is counted, not kept: "truncated").
 *
 * Where things went wrong is worked out when the trace is written, from the records alone:
 *   - a race: two threads of a block touch one 4-byte word in the same step (between the same
 *     two barriers), at least one of them storing, neither by an atomic, and no warp meeting of
 *     both comes between them (the meetings a lane took part in order its accesses against its
 *     warp's other lanes, as __syncwarp() does on a GPU);
 *   - a stale read: a block loads a word that an earlier block of the same launch stored, and
 *     gets another value: the store was never published (a missing __threadfence(), counters.cpp,
 *     "when other blocks see a store");
 *   - an early read: a block loads a word that a block running after it then writes, and makes
 *     no atomic on it itself after the load: what it read depends on the blocks' order (a "last
 *     block" taken by its index, reading a total before the others added);
 *   - past the end: an access to a named array (emu_trace_name) outside its valid bytes, in the
 *     guard words around it;
 *   - the launch's fault, as the scheduler reported it (an index outside a shared array, a
 *     misaligned load, a deadlock, a barrier some threads never reach), with where each thread
 *     of the block stood at that moment.
 * The source line of an access is found from the instruction's address by addr2line, once per
 * address, when the trace is written (the stage files carry line tables: -g1).
 *
 * The scheduler runs one fiber at a time and switches only at meeting points, so a store's
 * value is read from memory at the thread's next record (or at the next meeting, block end or
 * launch end), when the store has happened and nothing else has run.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <errno.h> /* program_invocation_name */
#include <elf.h>
#include <map>
#include <string>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#include "emu_internal.h"
#include "emu_kernel.h"

/* The stage files' __device__ variables: pointers to the entries the build step writes after
 * each one, in the section emu_device_variables, which the linker bounds with these two symbols
 * (weak: none when no stage file of the program has one). */
extern "C" {
extern const emu::device_variable *const __start_emu_device_variables[] __attribute__((weak));
extern const emu::device_variable *const __stop_emu_device_variables[] __attribute__((weak));
}

namespace emu {

bool tracing = false;

namespace {

/* A trace is for a picture: a launch of a few blocks. These keep a mistaken big launch from
 * filling the memory; what is left out is counted. */
constexpr size_t kMaxEvents = 1u << 20;
constexpr unsigned kMaxBlocks = 16;
constexpr unsigned kMaxLaunches = 16;
constexpr unsigned kMaxRaces = 64; /* racing pairs written per block; the count has them all */

enum op_kind : unsigned char { OP_LOAD, OP_STORE, OP_ATOMIC, OP_BARRIER, OP_WARP, OP_FENCE };
const char *const op_names[] = {"ld", "st", "atom", "bar", "warp", "fence"};

struct Event {
    unsigned block;            /* index in blocks */
    unsigned short thread;
    unsigned char op, bytes;
    unsigned step, meetings;   /* barriers and warp meetings the thread had passed */
    int array;                 /* index in arrays, -1: none */
    long long offset;          /* bytes from the array's start */
    unsigned long long address;
    unsigned words[4];         /* value loaded or stored; an atomic's old value */
    unsigned after[4];         /* an atomic's new value */
    const void *pc;            /* the access's instruction */
    const char *file;          /* barriers, warp operations: their own position */
    int line;
    int kind;
    unsigned mask;
    int param;
    unsigned long long value, result;
};

struct Array {
    std::string name, space; /* "shared", "global" (memory cudaMalloc gave) or "device" (a __device__ variable) */
    unsigned long long base; /* global, device: address; shared: byte offset in the block's shared memory */
    unsigned long long bytes, valid; /* valid: the bytes the kernel may touch (global, named) */
    unsigned long long margin;       /* guard bytes on each side that still count as this array */
    unsigned launch;                 /* shared arrays belong to a launch; global: ~0u */
    std::string file;                /* device: where the variable is declared */
    int line = 0;
};


struct Meeting {
    unsigned base, mask;
};

struct Block {
    unsigned launch;
    uint3 index;
    size_t first, end; /* its events */
    unsigned steps;
    std::vector<Meeting> meetings;
    std::vector<std::vector<unsigned>> meetings_of; /* by thread: the indices of its meetings */
};

struct Launch {
    std::string kernel, file;
    int line;
    unsigned grid[3], block[3];
    size_t shmem;
    unsigned long long blocks_run = 0;
    std::vector<unsigned> blocks; /* indices in blocks, in the order they ran */
};

struct ThreadState {
    unsigned thread;
    int state;
    const char *file;
    int line;
};

struct Fault {
    unsigned launch, block;
    int code, thread;
    std::string message, file;
    int line;
    std::vector<ThreadState> states;
};

struct Trace {
    std::vector<Event> events;
    std::vector<Array> arrays;
    std::vector<Block> blocks;
    std::vector<Launch> launches;
    std::vector<Fault> faults;
    std::vector<Array> named; /* emu_trace_name(): kept across starts */
    unsigned long long dropped_events = 0, dropped_blocks = 0, dropped_launches = 0;
    bool recording = false;   /* the running block is kept */
    bool in_launch = false;
    unsigned threads = 0;
    unsigned step = 0;
    unsigned meetings[1024];  /* by thread, in the running block */
    long long pending = -1;   /* the first of the stores (or an atomic) whose values are not read yet */
    const char *fault_file = nullptr;
    int fault_line = 0;
};

Trace T;

unsigned running_thread() { return (unsigned)(counting.lane - lane_logs); }

void read_words(unsigned *out, unsigned long long address, unsigned bytes)
{
    std::memset(out, 0, 16);
    std::memcpy(out, reinterpret_cast<const void *>(address), bytes > 16 ? 16 : bytes);
}

/** Reads the values of the stores recorded last: they have happened by now. A structure's copy
 *  is recorded as pieces before any of them is made (counters.cpp's range_access), so the
 *  pieces wait together and are read at the next event of another kind. */
void settle()
{
    if (T.pending < 0)
        return;
    for (size_t i = (size_t)T.pending; i < T.events.size(); i++) {
        Event &e = T.events[i];
        if (e.op == OP_STORE || e.op == OP_ATOMIC)
            read_words(e.op == OP_ATOMIC ? e.after : e.words, e.address, e.bytes);
    }
    T.pending = -1;
}

/** Whether a store at \p address by \p thread is the next piece of the store recorded last. */
bool next_piece(unsigned thread, unsigned long long address)
{
    if (T.pending < 0 || T.events.empty())
        return false;
    const Event &last = T.events.back();
    return last.op == OP_STORE && last.thread == thread && last.address + last.bytes == address;
}

Event *add_event(unsigned char op, unsigned thread, bool piece = false)
{
    if (!piece)
        settle();
    if (T.events.size() >= kMaxEvents) {
        T.dropped_events++;
        return nullptr;
    }
    T.events.emplace_back();
    Event &e = T.events.back();
    std::memset(&e, 0, sizeof e);
    e.block = (unsigned)T.blocks.size() - 1;
    e.thread = (unsigned short)thread;
    e.op = op;
    e.step = T.step;
    e.meetings = T.meetings[thread];
    e.array = -1;
    return &e;
}

/** The array an access at \p address falls in, and its offset there: -1 when none. */
int find_array(unsigned long long address, bool shared, long long *offset)
{
    unsigned launch = (unsigned)T.launches.size() - 1;
    if (shared) {
        unsigned long long at = address - counting.shared_base;
        int best = -1;
        for (size_t i = 0; i < T.arrays.size(); i++) {
            const Array &a = T.arrays[i];
            if (a.launch == launch && a.space == "shared" && at >= a.base && at < a.base + a.bytes)
                best = (int)i;
        }
        if (best >= 0)
            *offset = (long long)(at - T.arrays[(size_t)best].base);
        return best;
    }
    /* An array's own bytes first, then its guards: a guard of one array may cover another
     * (the harness's partial results lie in the input's guard bytes) */
    for (int guards = 0; guards < 2; guards++)
        for (size_t i = 0; i < T.arrays.size(); i++) {
            const Array &a = T.arrays[i];
            unsigned long long margin = guards ? a.margin : 0;
            if (a.space != "shared" && address + margin >= a.base && address < a.base + a.valid + margin) {
                *offset = (long long)(address - a.base);
                return (int)i;
            }
        }
    return -1;
}

int add_array(const char *name, const char *space, unsigned long long base, unsigned long long bytes,
              unsigned long long valid, unsigned long long margin, unsigned launch)
{
    T.arrays.emplace_back();
    Array &a = T.arrays.back();
    a.name = name;
    a.space = space;
    a.base = base;
    a.bytes = bytes;
    a.valid = valid;
    a.margin = margin;
    a.launch = launch;
    return (int)T.arrays.size() - 1;
}

/** The global array an access at \p address outside shared memory falls in, and its offset
 *  there: a named one, memory the launcher allocated itself ("device memory"), or a
 *  __device__ variable (by its name); -1 when none (a thread's own stack, host memory,
 *  threadIdx and the like). */
int global_array(unsigned long long address, long long *offset)
{
    int array = find_array(address, false, offset);
    if (array >= 0)
        return array;
    unsigned long long begin = 0, end = 0;
    if (device_allocation(address, &begin, &end)) { /* memory the launcher itself allocated */
        *offset = (long long)(address - begin);
        return add_array("device memory", "global", begin, end - begin, end - begin, 0, ~0u);
    }
    for (const device_variable *const *at = __start_emu_device_variables; at && at < __stop_emu_device_variables; at++) {
        const device_variable *v = *at;
        if (address - (unsigned long long)(const void *)v->address < v->bytes) {
            const unsigned long long base = (unsigned long long)(const void *)v->address;
            *offset = (long long)(address - base);
            array = add_array(v->name, "device", base, v->bytes, v->bytes, 0, ~0u);
            T.arrays[(size_t)array].file = v->file ? v->file : "";
            T.arrays[(size_t)array].line = v->line;
            return array;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- source lines */

struct Place {
    std::string file;
    int line = 0;
};

bool is_runtime_header(const std::string &file)
{
    return file.find("emu/include/") != std::string::npos || file.find("/usr/") == 0 ||
           file.find("emu_kernel.h") != std::string::npos || file == "??";
}

/** This program's own file, which /proc/self/exe names only in this process. */
std::string own_program()
{
    char path[4096];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length <= 0)
        return program_invocation_name;
    path[length] = '\0';
    return path;
}

/** file:line of each instruction address, from addr2line over the object that holds it. */
std::unordered_map<const void *, Place> resolve_lines(const std::vector<const void *> &pcs)
{
    std::unordered_map<const void *, Place> out;
    std::map<std::string, std::vector<std::pair<const void *, unsigned long long>>> by_object;
    for (const void *pc : pcs) {
        Dl_info info;
        if (!pc || !dladdr(pc, &info) || !info.dli_fname)
            continue;
        /* A position-independent object's line table counts from its load address; an
         * executable's (ET_EXEC) from 0. */
        unsigned long long address = (unsigned long long)pc - 1; /* the call's own instruction */
        const Elf64_Ehdr *header = static_cast<const Elf64_Ehdr *>(info.dli_fbase);
        if (header && header->e_type == ET_DYN)
            address -= (unsigned long long)info.dli_fbase;
        std::string object = info.dli_fname;
        /* The program itself: dladdr names it by argv[0], which is reduce_ladder's own path when
         * reduce_ladder handed over to reduce_ladder_emu (exec keeps argv[0]): addr2line then read
         * the GPU program and found no line for any access (a fresh student saw "(no line)"). */
        if (object.empty() || object.find('/') == std::string::npos || object == program_invocation_name)
            object = own_program(); /* not "/proc/self/exe": in addr2line's process that is addr2line */
        by_object[object].push_back({pc, address});
    }
    for (auto &entry : by_object) {
        /* $TMPDIR first: a sandbox (the grader's) may leave only its scratch folder writable */
        const char *tmp = getenv("TMPDIR");
        std::string list = std::string(tmp && *tmp ? tmp : "/tmp") + "/emu_trace_pcs_XXXXXX";
        std::vector<char> name(list.begin(), list.end());
        name.push_back('\0');
        int fd = mkstemp(name.data());
        if (fd < 0)
            continue;
        FILE *f = fdopen(fd, "w");
        for (auto &p : entry.second)
            fprintf(f, "0x%llx\n", p.second);
        fclose(f);
        std::string command = "addr2line -a -i -e '" + entry.first + "' < " + name.data() + " 2>/dev/null";
        FILE *pipe = popen(command.c_str(), "r");
        if (pipe) {
            char text[4096];
            size_t k = (size_t)-1;
            bool found = false;
            while (fgets(text, sizeof text, pipe)) {
                text[strcspn(text, "\n")] = '\0';
                if (text[0] == '0' && text[1] == 'x') { /* -a: the next address's frames follow */
                    k++;
                    found = false;
                    continue;
                }
                if (k >= entry.second.size() || found)
                    continue;
                std::string frame = text;
                size_t paren = frame.find(" (discriminator");
                if (paren != std::string::npos)
                    frame.erase(paren);
                size_t colon = frame.rfind(':');
                if (colon == std::string::npos)
                    continue;
                Place place;
                place.file = frame.substr(0, colon);
                place.line = atoi(frame.c_str() + colon + 1);
                Place &slot = out[entry.second[k].first];
                if (slot.file.empty() || is_runtime_header(slot.file)) /* the innermost frame outside the runtime */
                    slot = place;
                found = !is_runtime_header(place.file) && place.line > 0;
            }
            pclose(pipe);
        }
        unlink(name.data());
    }
    return out;
}

/* ---------------------------------------------------------------- JSON */

void json_string(FILE *f, const std::string &s)
{
    fputc('"', f);
    for (unsigned char c : s) {
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void json_value(FILE *f, const unsigned *words, unsigned bytes)
{
    if (bytes <= 4) {
        int v = (int)words[0];
        if (bytes == 1)
            v = (signed char)words[0];
        else if (bytes == 2)
            v = (short)words[0];
        fprintf(f, "%d", v);
        return;
    }
    fputc('[', f);
    for (unsigned i = 0; i < (bytes + 3) / 4 && i < 4; i++)
        fprintf(f, "%s%d", i ? "," : "", (int)words[i]);
    fputc(']', f);
}

/** A line as the trace writes it: a number in the launch's own file, "file:line" elsewhere. */
void json_line(FILE *f, const std::string &file, int line, const Launch &launch)
{
    /* a stage archive's line table may name the file from the build folder (build/emu/labs/...) */
    bool same = file == launch.file || (file.size() > launch.file.size() &&
                                        file.compare(file.size() - launch.file.size(), launch.file.size(), launch.file) == 0 &&
                                        file[file.size() - launch.file.size() - 1] == '/');
    if (file.empty() || line <= 0)
        fprintf(f, "0");
    else if (same)
        fprintf(f, "%d", line);
    else
        json_string(f, file + ":" + std::to_string(line));
}

std::string hex_mask(const std::vector<bool> &bits)
{
    std::string s;
    for (size_t i = 0; i < bits.size(); i += 4) {
        unsigned nibble = 0;
        for (size_t j = 0; j < 4 && i + j < bits.size(); j++)
            nibble |= (bits[i + j] ? 1u : 0u) << j;
        s += "0123456789abcdef"[nibble];
    }
    return s; /* nibble k holds threads 4k..4k+3, lowest thread in the lowest bit */
}

struct Where {
    std::string file;
    int line;
};

Where where_of(const Event &e, const std::unordered_map<const void *, Place> &lines)
{
    if (e.file)
        return {e.file, e.line};
    auto it = lines.find(e.pc);
    if (it == lines.end())
        return {"", 0};
    return {it->second.file, it->second.line};
}

/** Whether access \p a (earlier) is ordered before \p b by a warp meeting of both threads. */
bool ordered_by_meeting(const Block &block, const Event &a, const Event &b)
{
    if (a.thread / 32 != b.thread / 32)
        return false;
    const std::vector<unsigned> &mine = block.meetings_of[a.thread], &theirs = block.meetings_of[b.thread];
    for (size_t i = a.meetings; i < mine.size(); i++)
        for (size_t j = 0; j < b.meetings && j < theirs.size(); j++)
            if (mine[i] == theirs[j])
                return true;
    return false;
}

void write_access(FILE *f, const char *role, const Event &e, const Where &w, const Launch &launch)
{
    fprintf(f, "{\"role\": \"%s\", \"thread\": %u, \"op\": \"%s\", \"line\": ", role, e.thread, op_names[e.op]);
    json_line(f, w.file, w.line, launch);
    fprintf(f, ", \"value\": ");
    json_value(f, e.words, e.bytes);
    fprintf(f, "}");
}

/** Adds to \p errors what \p write prints (one error's JSON): the errors are gathered while the
 *  launches are written, and written after them. Nothing is added if no memory was left. */
template <class Write> void add_error(std::vector<std::string> &errors, Write write)
{
    char *out = nullptr;
    size_t size = 0;
    FILE *m = open_memstream(&out, &size);
    if (!m)
        return;
    write(m);
    fclose(m);
    if (out && size)
        errors.push_back(std::string(out, size));
    free(out);
}

const char *state_name(int state)
{
    /* the scheduler's fiber_state: RUNNING, AT_BARRIER, AT_WARP, AT_GRID, EXITED */
    static const char *names[] = {"running", "barrier", "warp", "grid", "exited"};
    return state >= 0 && state < 5 ? names[state] : "running";
}

const char *fault_kind(const Fault &fault)
{
    const std::string &m = fault.message;
    if (fault.code == cudaErrorIllegalAddress)
        return "out_of_bounds";
    if (fault.code == cudaErrorMisalignedAddress)
        return "misaligned";
    if (fault.code == cudaErrorLaunchTimeout)
        return "timeout";
    if (m.find("already exited") != std::string::npos)
        return "lone_waiter";
    if (m.find("different barriers") != std::string::npos || m.find("different warp operations") != std::string::npos)
        return "divergent_barrier";
    if (m.find("deadlock") != std::string::npos)
        return "deadlock";
    return "fault";
}

} // namespace

/* ---------------------------------------------------------------- the scheduler's and counters' calls */

void trace_access(const volatile void *p, unsigned bytes, bool store, const void *pc)
{
    if (!T.recording || !counting.lane)
        return;
    unsigned long long a = (unsigned long long)(const void *)p;
    bool shared = a - counting.shared_base < counting.shared_bytes;
    long long offset = 0;
    int array = -1;
    if (shared) {
        array = find_array(a, true, &offset);
        if (array < 0) { /* shared memory no declaration named: a dynamic array without a name */
            array = add_array("shared", "shared", 0, counting.shared_bytes, counting.shared_bytes, 0,
                              (unsigned)T.launches.size() - 1);
            offset = (long long)(a - counting.shared_base);
        }
    } else {
        array = global_array(a, &offset);
        if (array < 0)
            return; /* a thread's own stack, host memory, threadIdx: not recorded */
    }
    unsigned thread = running_thread();
    const bool piece = store && next_piece(thread, a);
    Event *e = add_event(store ? OP_STORE : OP_LOAD, thread, piece);
    if (!e)
        return;
    e->bytes = (unsigned char)bytes;
    e->address = a;
    e->array = array;
    e->offset = offset;
    e->pc = pc;
    if (store && !piece)
        T.pending = (long long)T.events.size() - 1;
    else
        read_words(e->words, a, bytes);
}

void trace_atomic(const void *p, unsigned bytes, const void *pc)
{
    if (!T.recording || !counting.lane)
        return;
    unsigned long long a = (unsigned long long)p;
    long long offset = 0;
    bool shared = a - counting.shared_base < counting.shared_bytes;
    int array = shared ? find_array(a, true, &offset) : global_array(a, &offset);
    Event *e = add_event(OP_ATOMIC, running_thread());
    if (!e)
        return;
    e->bytes = (unsigned char)bytes;
    e->address = a;
    e->array = array;
    e->offset = offset;
    e->pc = pc;
    read_words(e->words, a, bytes);
    T.pending = (long long)T.events.size() - 1;
}

void trace_fence(unsigned thread, const void *pc)
{
    if (!T.recording)
        return;
    if (Event *e = add_event(OP_FENCE, thread))
        e->pc = pc;
}

void trace_barrier(unsigned thread, int kind, const char *file, int line)
{
    if (!T.recording)
        return;
    if (Event *e = add_event(OP_BARRIER, thread)) {
        e->kind = kind;
        e->file = file;
        e->line = line;
    }
}

void trace_warp(unsigned thread, int kind, unsigned mask, unsigned long long value, int param,
                unsigned long long result, const char *file, int line)
{
    if (!T.recording)
        return;
    if (Event *e = add_event(OP_WARP, thread)) {
        e->kind = kind;
        e->mask = mask;
        e->value = value;
        e->param = param;
        e->result = result;
        e->file = file;
        e->line = line;
        e->meetings--; /* the meeting it took part in: its own call comes before it */
    }
}

void trace_warp_meeting(unsigned base, unsigned lanes, unsigned mask)
{
    if (!T.recording)
        return;
    settle();
    Block &b = T.blocks.back();
    unsigned id = (unsigned)b.meetings.size();
    b.meetings.push_back({base, mask});
    for (unsigned m = 0; m < lanes; m++)
        if (mask >> m & 1) {
            T.meetings[base + m]++;
            b.meetings_of[base + m].push_back(id);
        }
}

void trace_block_barrier()
{
    if (!T.recording)
        return;
    settle();
    T.step++;
}

void trace_launch(const char *kernel, const char *file, int line, const unsigned grid[3], const unsigned block[3], size_t shmem)
{
    settle();
    T.in_launch = true;
    if (T.launches.size() >= kMaxLaunches) {
        T.dropped_launches++;
        T.in_launch = false;
        return;
    }
    Launch l;
    l.kernel = kernel ? kernel : "";
    l.file = file ? file : "";
    l.line = line;
    std::memcpy(l.grid, grid, sizeof l.grid);
    std::memcpy(l.block, block, sizeof l.block);
    l.shmem = shmem;
    T.launches.push_back(l);
    T.threads = block[0] * block[1] * block[2];
}

void trace_shared_array(const char *name, size_t offset, size_t bytes)
{
    if (!T.in_launch || T.launches.empty())
        return;
    unsigned launch = (unsigned)T.launches.size() - 1;
    for (const Array &a : T.arrays)
        if (a.launch == launch && a.space == "shared" && a.base == offset && a.name == name)
            return;
    add_array(name, "shared", offset, bytes, bytes, 0, launch);
}

void trace_block_begin()
{
    settle();
    T.recording = false;
    if (!T.in_launch)
        return;
    Launch &l = T.launches.back();
    l.blocks_run++;
    /* The last block to run is kept past the limit: in a one-pass stage it is the one that meets
     * the others' work (a stale read of a sum another block never published shows there). */
    const unsigned long long grid = (unsigned long long)l.grid[0] * l.grid[1] * l.grid[2];
    const bool runs_last = l.blocks_run == grid;
    if (l.blocks.size() >= kMaxBlocks || (l.blocks.size() + 1 >= kMaxBlocks && !runs_last) ||
        T.events.size() >= kMaxEvents) {
        T.dropped_blocks++;
        return;
    }
    Block b;
    b.launch = (unsigned)T.launches.size() - 1;
    b.index = blockIdx;
    b.first = b.end = T.events.size();
    b.steps = 0;
    b.meetings_of.resize(T.threads);
    T.blocks.push_back(std::move(b));
    l.blocks.push_back((unsigned)T.blocks.size() - 1);
    T.step = 0;
    std::fill(T.meetings, T.meetings + 1024, 0u);
    T.recording = true;
}

void trace_block_end()
{
    settle();
    if (T.recording) {
        T.blocks.back().end = T.events.size();
        T.blocks.back().steps = T.step + 1;
    }
    T.recording = false;
}

void trace_launch_end()
{
    trace_block_end();
    T.in_launch = false;
}

void trace_fault_at(const char *file, int line)
{
    T.fault_file = file;
    T.fault_line = line;
}

void trace_fault(int code, const char *message, int thread)
{
    if (!T.in_launch || T.launches.empty())
        return;
    settle();
    Fault f;
    f.launch = (unsigned)T.launches.size() - 1;
    f.block = T.recording ? (unsigned)T.blocks.size() - 1 : ~0u;
    f.code = code;
    f.thread = thread;
    f.message = message ? message : "";
    f.file = T.fault_file ? T.fault_file : "";
    f.line = T.fault_line;
    T.fault_file = nullptr;
    T.fault_line = 0;
    T.faults.push_back(f);
    if (T.recording) { /* the block's events so far end here */
        T.blocks.back().end = T.events.size();
        T.blocks.back().steps = T.step + 1;
    }
}

void trace_thread_state(unsigned thread, int state, const char *file, int line)
{
    if (T.faults.empty())
        return;
    T.faults.back().states.push_back({thread, state, file, line});
}

} // namespace emu

/* ---------------------------------------------------------------- the harness's calls */

extern "C" {

int emu_trace_available(void)
{
#if defined(EMU_COUNTS) && !defined(EMU_RACE)
    return 1;
#else
    return 0;
#endif
}

int emu_trace_start(void)
{
    if (!emu_trace_available())
        return -1;
    using emu::T;
    T.events.clear();
    T.arrays.clear();
    T.blocks.clear();
    T.launches.clear();
    T.faults.clear();
    T.dropped_events = T.dropped_blocks = T.dropped_launches = 0;
    T.pending = -1;
    T.recording = T.in_launch = false;
    for (const emu::Array &a : T.named)
        T.arrays.push_back(a);
    emu::tracing = true;
    return 0;
}

void emu_trace_stop(void)
{
    emu::settle();
    emu::tracing = false;
    emu::T.recording = false;
}

void emu_trace_forget_names(void) { emu::T.named.clear(); }

void emu_trace_name(const void *base, size_t valid_bytes, size_t guard_bytes, const char *name)
{
    emu::Array a;
    a.name = name ? name : "global";
    a.space = "global";
    a.base = (unsigned long long)base;
    a.bytes = a.valid = valid_bytes;
    a.margin = guard_bytes;
    a.launch = ~0u;
    emu::T.named.push_back(a);
    if (emu::tracing)
        emu::T.arrays.push_back(a);
}

size_t emu_trace_events(void) { return emu::T.events.size(); }

int emu_trace_write_json(FILE *f)
{
    using namespace emu;
    settle();
    std::vector<const void *> pcs;
    for (const Event &e : T.events)
        if (!e.file && e.pc)
            pcs.push_back(e.pc);
    std::sort(pcs.begin(), pcs.end());
    pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
    std::unordered_map<const void *, Place> lines = resolve_lines(pcs);

    fprintf(f, "{\"truncated\": %s, \"dropped\": {\"events\": %llu, \"blocks\": %llu, \"launches\": %llu},\n",
            T.dropped_events || T.dropped_blocks || T.dropped_launches ? "true" : "false", T.dropped_events,
            T.dropped_blocks, T.dropped_launches);
    fprintf(f, " \"arrays\": [");
    for (size_t i = 0; i < T.arrays.size(); i++) {
        const Array &a = T.arrays[i];
        fprintf(f, "%s\n  {\"id\": %zu, \"name\": ", i ? "," : "", i);
        json_string(f, a.name);
        fprintf(f, ", \"space\": \"%s\", \"bytes\": %llu", a.space.c_str(), a.bytes);
        if (a.space == "shared") {
            fprintf(f, ", \"offset\": %llu, \"launch\": %u", a.base, a.launch);
        } else if (a.space == "device") {
            fprintf(f, ", \"file\": ");
            json_string(f, a.file);
            fprintf(f, ", \"line\": %d", a.line);
        } else {
            fprintf(f, ", \"valid_bytes\": %llu, \"guard_bytes\": %llu", a.valid, a.margin);
        }
        fprintf(f, "}");
    }
    fprintf(f, "],\n \"launches\": [");
    unsigned long long races_total = 0;
    /* the errors, gathered as JSON text while the launches are written */
    std::vector<std::string> error_texts;
    for (size_t li = 0; li < T.launches.size(); li++) {
        const Launch &l = T.launches[li];
        fprintf(f, "%s\n  {\"kernel\": ", li ? "," : "");
        json_string(f, l.kernel);
        fprintf(f, ", \"file\": ");
        json_string(f, l.file);
        fprintf(f, ", \"line\": %d, \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"dynamic_shared\": %zu, "
                "\"blocks_run\": %llu,\n   \"blocks\": [", l.line, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                l.block[2], l.shmem, l.blocks_run);
        for (size_t k = 0; k < l.blocks.size(); k++) {
            const Block &b = T.blocks[l.blocks[k]];
            unsigned threads = l.block[0] * l.block[1] * l.block[2];
            fprintf(f, "%s\n    {\"index\": [%u, %u, %u], \"order\": %zu, \"steps\": [", k ? "," : "", b.index.x,
                    b.index.y, b.index.z, k);
            /* steps: the threads that touched memory in each, and the barrier that ended it */
            std::vector<std::vector<bool>> active(b.steps, std::vector<bool>(threads, false));
            std::vector<Where> ended(b.steps, Where{"", 0});
            for (size_t i = b.first; i < b.end; i++) {
                const Event &e = T.events[i];
                if (e.step >= b.steps)
                    continue;
                if (e.op <= OP_ATOMIC || e.op == OP_WARP)
                    active[e.step][e.thread] = true;
                if (e.op == OP_BARRIER && ended[e.step].line == 0)
                    ended[e.step] = {e.file, e.line};
            }
            for (unsigned s = 0; s < b.steps; s++) {
                unsigned count = (unsigned)std::count(active[s].begin(), active[s].end(), true);
                fprintf(f, "%s{\"active\": \"%s\", \"active_count\": %u, \"barrier_line\": ", s ? ", " : "",
                        hex_mask(active[s]).c_str(), count);
                json_line(f, ended[s].file, ended[s].line, l);
                fprintf(f, "}");
            }
            fprintf(f, "],\n     \"meetings\": [");
            for (size_t m = 0; m < b.meetings.size(); m++)
                fprintf(f, "%s[%u, %u]", m ? ", " : "", b.meetings[m].base / 32, b.meetings[m].mask);
            fprintf(f, "],\n     \"events\": [");
            for (size_t i = b.first; i < b.end; i++) {
                const Event &e = T.events[i];
                Where w = where_of(e, lines);
                fprintf(f, "%s\n      [%u, %u, \"%s\"", i > b.first ? "," : "", e.thread, e.step, op_names[e.op]);
                if (e.op <= OP_ATOMIC) {
                    fprintf(f, ", %d, %lld, %u, ", e.array, e.offset, e.bytes);
                    json_value(f, e.words, e.bytes);
                    fprintf(f, ", ");
                    json_line(f, w.file, w.line, l);
                    if (e.op == OP_ATOMIC) {
                        fprintf(f, ", ");
                        json_value(f, e.after, e.bytes);
                    }
                } else if (e.op == OP_BARRIER) {
                    fprintf(f, ", ");
                    json_line(f, w.file, w.line, l);
                    fprintf(f, ", \"%s\"", barrier_name(e.kind));
                } else if (e.op == OP_WARP) {
                    fprintf(f, ", ");
                    json_line(f, w.file, w.line, l);
                    fprintf(f, ", \"%s\", %u, %lld, %lld, %d", warp_op_name(e.kind), e.mask, (long long)e.value,
                            (long long)e.result, e.param);
                } else {
                    fprintf(f, ", ");
                    json_line(f, w.file, w.line, l);
                }
                fprintf(f, "]");
            }
            fprintf(f, "]}");

            /* races: per word, accesses of one step by two threads, one a store, not ordered */
            std::unordered_map<unsigned long long, std::vector<size_t>> by_word;
            for (size_t i = b.first; i < b.end; i++) {
                const Event &e = T.events[i];
                if (e.op > OP_STORE)
                    continue;
                for (unsigned w = 0; w < (e.bytes + 3u) / 4u; w++)
                    by_word[(e.address >> 2) + w].push_back(i);
            }
            std::vector<std::pair<size_t, size_t>> races;
            unsigned long long block_races = 0;
            std::vector<unsigned long long> words;
            for (auto &entry : by_word)
                words.push_back(entry.first);
            std::sort(words.begin(), words.end());
            for (unsigned long long word : words) {
                const std::vector<size_t> &list = by_word[word];
                bool found = false;
                for (size_t x = 0; x < list.size() && !found; x++)
                    for (size_t y = x + 1; y < list.size() && !found; y++) {
                        const Event &a = T.events[list[x]], &c = T.events[list[y]];
                        if (a.thread == c.thread || a.step != c.step || (a.op == OP_LOAD && c.op == OP_LOAD))
                            continue;
                        if (ordered_by_meeting(b, a, c))
                            continue;
                        found = true; /* one pair a word: the first two that raced */
                        block_races++;
                        if (races.size() < kMaxRaces)
                            races.push_back({list[x], list[y]});
                    }
            }
            races_total += block_races;
            for (auto &r : races) {
                const Event &a = T.events[r.first], &c = T.events[r.second];
                add_error(error_texts, [&](FILE *m) {
                    fprintf(m, "{\"kind\": \"race\", \"launch\": %zu, \"block\": %zu, \"step\": %u, \"array\": %d, "
                            "\"offset\": %lld, \"accesses\": [", li, k, a.step, a.array,
                            a.offset + (long long)(((c.address > a.address ? c.address : a.address) -
                                                    a.address) & ~3ull));
                    write_access(m, "first", a, where_of(a, lines), l);
                    fprintf(m, ", ");
                    write_access(m, "second", c, where_of(c, lines), l);
                    fprintf(m, "]}");
                });
            }
            if (block_races > races.size())
                add_error(error_texts, [&](FILE *m) {
                    fprintf(m, "{\"kind\": \"races_not_listed\", \"launch\": %zu, \"block\": %zu, \"count\": %llu}", li,
                            k, block_races - races.size());
                });
            /* past the end of a named array */
            unsigned past = 0;
            for (size_t i = b.first; i < b.end && past < 8; i++) {
                const Event &e = T.events[i];
                if (e.op > OP_ATOMIC || e.array < 0)
                    continue;
                const Array &a = T.arrays[(size_t)e.array];
                if (a.space != "global" || (e.offset >= 0 && (unsigned long long)e.offset + e.bytes <= a.valid))
                    continue;
                past++;
                add_error(error_texts, [&](FILE *m) {
                    fprintf(m, "{\"kind\": \"past_the_end\", \"launch\": %zu, \"block\": %zu, \"step\": %u, "
                            "\"array\": %d, \"offset\": %lld, \"accesses\": [", li, k, e.step, e.array, e.offset);
                    write_access(m, "only", e, where_of(e, lines), l);
                    fprintf(m, "]}");
                });
            }
        }
        fprintf(f, "]}");
        /* Between the blocks, per word of global memory or of a __device__ variable (accesses of
         * up to 16 bytes, by their address). Stale reads: a block loads what an earlier block of
         * this launch stored, and gets another value. */
        auto between_blocks = [&](const Event &e) {
            return e.op <= OP_ATOMIC && e.array >= 0 && T.arrays[(size_t)e.array].space != "shared";
        };
        struct Stored {
            size_t event;
            unsigned block;
        };
        std::unordered_map<unsigned long long, Stored> last;
        std::unordered_map<unsigned long long, bool> stale_words;
        unsigned stale = 0;
        for (size_t k = 0; k < l.blocks.size(); k++) {
            const Block &b = T.blocks[l.blocks[k]];
            for (size_t i = b.first; i < b.end; i++) {
                const Event &e = T.events[i];
                if (!between_blocks(e))
                    continue;
                if (e.op == OP_STORE || e.op == OP_ATOMIC) {
                    last[e.address] = {i, (unsigned)k};
                    continue;
                }
                auto it = last.find(e.address);
                if (it == last.end() || it->second.block == k)
                    continue;
                const Event &s = T.events[it->second.event];
                const unsigned *stored = s.op == OP_ATOMIC ? s.after : s.words;
                if (s.bytes != e.bytes || std::memcmp(stored, e.words, 4 * ((e.bytes + 3u) / 4u)) == 0 || stale >= 8)
                    continue;
                stale++;
                stale_words[e.address] = true;
                add_error(error_texts, [&](FILE *m) {
                    fprintf(m, "{\"kind\": \"stale_read\", \"launch\": %zu, \"block\": %zu, \"step\": %u, "
                            "\"array\": %d, \"offset\": %lld, \"stored_by_block\": %u, \"stored\": ", li, k, e.step,
                            e.array, e.offset, it->second.block);
                    json_value(m, stored, s.bytes);
                    fprintf(m, ", \"accesses\": [");
                    Event shown = s;
                    if (s.op == OP_ATOMIC)
                        std::memcpy(shown.words, s.after, sizeof shown.words);
                    write_access(m, "store", shown, where_of(s, lines), l);
                    fprintf(m, ", ");
                    write_access(m, "load", e, where_of(e, lines), l);
                    fprintf(m, "]}");
                });
            }
        }
        /* Early reads: a block loads a word that a block running after it then stores to or makes
         * an atomic on, and the loading block makes no atomic on it after its load (a
         * compare-and-swap loop's first load is answered by its own atomic). What it read
         * depends on the order the blocks ran in, which a GPU does not promise. Not in a
         * cooperative launch (a block recorded once per turn between grid syncs, which order
         * the blocks), nor for a word already read stale; one a word, 8 a launch. */
        std::vector<std::pair<unsigned long long, size_t>> writes; /* (address, event), in run order */
        std::unordered_map<unsigned long long, bool> seen_block;
        bool cooperative = false;
        for (size_t k = 0; k < l.blocks.size(); k++) {
            const Block &b = T.blocks[l.blocks[k]];
            unsigned long long key = ((unsigned long long)b.index.z << 42) | ((unsigned long long)b.index.y << 21) | b.index.x;
            cooperative = cooperative || seen_block.count(key);
            seen_block[key] = true;
        }
        std::unordered_map<unsigned long long, bool> early_words;
        unsigned early = 0;
        for (size_t k = 0; k + 1 < l.blocks.size() && !cooperative && early < 8; k++) {
            const Block &b = T.blocks[l.blocks[k]];
            for (size_t i = b.first; i < b.end && early < 8; i++) {
                const Event &e = T.events[i];
                if (e.op != OP_LOAD || !between_blocks(e) || stale_words.count(e.address) || early_words.count(e.address))
                    continue;
                bool answered = false; /* by an atomic of this block on the word, after the load */
                for (size_t j = i + 1; j < b.end && !answered; j++)
                    answered = T.events[j].op == OP_ATOMIC && T.events[j].address == e.address;
                if (answered)
                    continue;
                size_t later = 0; /* the first write of the word by a block that ran after this one */
                unsigned later_block = 0;
                for (size_t kk = k + 1; kk < l.blocks.size() && !later; kk++) {
                    const Block &c = T.blocks[l.blocks[kk]];
                    for (size_t j = c.first; j < c.end && !later; j++)
                        if ((T.events[j].op == OP_STORE || T.events[j].op == OP_ATOMIC) && T.events[j].address == e.address) {
                            later = j;
                            later_block = (unsigned)kk;
                        }
                }
                if (!later)
                    continue;
                early++;
                early_words[e.address] = true;
                const Event &w = T.events[later];
                add_error(error_texts, [&](FILE *m) {
                    fprintf(m, "{\"kind\": \"early_read\", \"launch\": %zu, \"block\": %zu, \"step\": %u, "
                            "\"array\": %d, \"offset\": %lld, \"written_by_block\": %u, \"accesses\": [", li, k, e.step,
                            e.array, e.offset, later_block);
                    write_access(m, "load", e, where_of(e, lines), l);
                    fprintf(m, ", ");
                    Event shown = w;
                    if (w.op == OP_ATOMIC) /* the later block's atomic: the value it left */
                        std::memcpy(shown.words, w.after, sizeof shown.words);
                    write_access(m, "later", shown, where_of(w, lines), l);
                    fprintf(m, "]}");
                });
            }
        }
    }
    fprintf(f, "],\n \"errors\": [");
    size_t written = 0;
    for (const std::string &text : error_texts)
        fprintf(f, "%s\n  %s", written++ ? "," : "", text.c_str());
    for (const Fault &fault : T.faults) {
        fprintf(f, "%s\n  {\"kind\": \"%s\", \"launch\": %u, \"block\": ", written++ ? "," : "", fault_kind(fault),
                fault.launch);
        long long k = -1;
        if (fault.block != ~0u) {
            const Launch &l = T.launches[fault.launch];
            for (size_t i = 0; i < l.blocks.size(); i++)
                if (l.blocks[i] == fault.block)
                    k = (long long)i;
        }
        if (k >= 0)
            fprintf(f, "%lld, \"step\": %u", k, T.blocks[fault.block].steps - 1);
        else
            fprintf(f, "null");
        fprintf(f, ", \"message\": ");
        json_string(f, fault.message);
        fprintf(f, ", \"thread\": ");
        if (fault.thread >= 0)
            fprintf(f, "%d", fault.thread);
        else
            fprintf(f, "null");
        fprintf(f, ", \"line\": ");
        json_line(f, fault.file, fault.line, T.launches[fault.launch]);
        /* where the block's threads stood: runs of threads in the same state at the same line */
        fprintf(f, ", \"threads\": [");
        size_t i = 0, runs = 0;
        while (i < fault.states.size()) {
            size_t j = i;
            while (j + 1 < fault.states.size() && fault.states[j + 1].state == fault.states[i].state &&
                   fault.states[j + 1].line == fault.states[i].line && fault.states[j + 1].thread == fault.states[j].thread + 1)
                j++;
            fprintf(f, "%s{\"first\": %u, \"last\": %u, \"state\": \"%s\", \"line\": ", runs++ ? ", " : "",
                    fault.states[i].thread, fault.states[j].thread, state_name(fault.states[i].state));
            json_line(f, fault.states[i].file ? fault.states[i].file : "", fault.states[i].line,
                      T.launches[fault.launch]);
            fprintf(f, "}");
            i = j + 1;
        }
        fprintf(f, "]}");
    }
    fprintf(f, "],\n \"races\": %llu}", races_total);
    return ferror(f) ? -1 : 0;
}

} // extern "C"
