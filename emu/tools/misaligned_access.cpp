/**
 * \file misaligned_access.cpp
 * \brief A misaligned access in a kernel is a fault, as on a GPU.
 *
 * A GPU's load or store of N bytes (an int4, int2, float4, double2, ... or an int) at an
 * address that is not a multiple of N fails: the kernel stops with cudaErrorMisalignedAddress.
 * x86 loads it, so `*reinterpret_cast<const int4 *>(in + 1)` would be right on the emulator and
 * wrong on every GPU. The build compiles stage files with GCC's -fsanitize=alignment
 * (emu/CMakeLists.txt), which checks each access against its type's alignment (the emulator's
 * vector types are aligned as CUDA's: emu_kernel.h) and calls the handler below when it is not
 * met; libubsan is not linked, this file answers the call. Part of the emulator's runtime.
 *
 * Inside a kernel the first such access is recorded as the sticky fault of the launch, with the
 * source line: every later CUDA call returns it, as after a GPU's fault, and cudaGetErrorString
 * gives the message. The scheduler has no way for this file to stop the running thread (its
 * faults end a thread from inside emu/src/scheduler.cpp), so the kernel runs on; its results
 * are never read, since the fault is sticky. Where the compiler moved the data with an
 * instruction that needs the alignment (movaps), the access then crashes: the message is
 * written to stderr first, since the emulator's crash report names no line. Host code (the
 * launcher) runs on the CPU, where the access is legal: not reported.
 */
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include "emu_internal.h"
#include "emu_kernel.h"

namespace {

/* GCC's and Clang's description of the check (libsanitizer's ubsan_handlers.h). */
struct SourceLocation {
    const char *file;
    uint32_t line, column;
};
struct TypeDescriptor {
    uint16_t kind, info;
    char name[1]; /* "'const struct int4'" */
};
struct TypeMismatchData {
    SourceLocation location;
    const TypeDescriptor *type;
    unsigned char log_alignment;
    unsigned char check_kind; /* 0 load, 1 store, 2 reference binding, 3 member access, ... */
};

constexpr cudaError_t kMisalignedAddress = static_cast<cudaError_t>(716); /* CUDA's cudaErrorMisalignedAddress */

struct sigaction previous_segv, previous_bus;
bool crash_note_installed = false;

/* A crash after the recorded fault: the recorded message, then the emulator's own report. */
void crash_note(int signal_number)
{
    if (emu::sticky_error == kMisalignedAddress) {
        ssize_t written = write(2, emu::fault_message, strlen(emu::fault_message));
        written = write(2, "\n", 1);
        (void)written;
    }
    const struct sigaction &previous = signal_number == SIGBUS ? previous_bus : previous_segv;
    sigaction(signal_number, &previous, nullptr);
    raise(signal_number);
}

void install_crash_note()
{
    if (crash_note_installed)
        return;
    crash_note_installed = true;
    struct sigaction action = {};
    action.sa_handler = crash_note;
    action.sa_flags = SA_ONSTACK | SA_NODEFER;
    sigaction(SIGSEGV, &action, &previous_segv);
    sigaction(SIGBUS, &action, &previous_bus);
}

/** "const struct int4" -> "int4". */
void type_name(const TypeDescriptor *type, char *out, size_t size)
{
    const char *name = type ? type->name : "";
    if (*name == '\'')
        name++;
    for (const char *prefix : {"const ", "volatile ", "struct ", "union ", "class "})
        if (strncmp(name, prefix, strlen(prefix)) == 0)
            name += strlen(prefix);
    snprintf(out, size, "%s", name);
    size_t length = strlen(out);
    if (length > 0 && out[length - 1] == '\'')
        out[length - 1] = '\0';
}

void misaligned(void *raw, void *pointer)
{
    if (!emu::counting.lane || emu::sticky_error != cudaSuccess)
        return; /* host code, or a fault already recorded for this launch */
    const TypeMismatchData *data = static_cast<const TypeMismatchData *>(raw);
    unsigned long long bytes = 1ull << data->log_alignment;
    char type[120], dims[96], block[64], thread[64];
    type_name(data->type, type, sizeof type);
    if (gridDim.y == 1 && gridDim.z == 1 && blockDim.y == 1 && blockDim.z == 1)
        snprintf(dims, sizeof dims, "%u, %u", gridDim.x, blockDim.x);
    else
        snprintf(dims, sizeof dims, "(%u,%u,%u), (%u,%u,%u)", gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y,
                 blockDim.z);
    if (gridDim.y == 1 && gridDim.z == 1)
        snprintf(block, sizeof block, "block %u", blockIdx.x);
    else
        snprintf(block, sizeof block, "block (%u,%u,%u)", blockIdx.x, blockIdx.y, blockIdx.z);
    if (blockDim.y == 1 && blockDim.z == 1)
        snprintf(thread, sizeof thread, "thread %u", threadIdx.x);
    else
        snprintf(thread, sizeof thread, "thread (%u,%u,%u)", threadIdx.x, threadIdx.y, threadIdx.z);
    const char *verb = data->check_kind == 1 ? "stores" : data->check_kind == 0 || data->check_kind == 2 ? "loads"
                                                                                                          : "accesses";
    emu::record_fault(kMisalignedAddress,
                      "emulator: a kernel<<<%s>>>, %s: %s %s %s %s at %s:%u through address %p, not a multiple "
                      "of %llu bytes: a misaligned address, which fails the kernel on a GPU (cudaErrorMisalignedAddress)",
                      dims, block, thread, verb, strchr("aeiou", type[0]) ? "an" : "a", type,
                      data->location.file ? data->location.file : "?", data->location.line, pointer, bytes);
    install_crash_note();
}

} // namespace

extern "C" {
void __ubsan_handle_type_mismatch_v1(void *data, void *pointer) { misaligned(data, pointer); }
/* -fno-sanitize-recover's form, which must not return. */
void __ubsan_handle_type_mismatch_v1_abort(void *data, void *pointer)
{
    misaligned(data, pointer);
    if (emu::sticky_error == kMisalignedAddress)
        fprintf(stderr, "%s\n", emu::fault_message);
    _exit(1);
}
}
