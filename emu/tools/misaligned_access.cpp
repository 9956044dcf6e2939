/**
 * \file misaligned_access.cpp
 * \brief A misaligned access in a kernel is a fault, as on a GPU.
 *
 * A GPU's load or store of N bytes (an int4, int2, float4, double2, ... or an int) at an
 * address that is not a multiple of N fails: the kernel stops with cudaErrorMisalignedAddress.
 * x86 loads it, so `*reinterpret_cast<const int4 *>(in + 1)` would be right on the emulator and
 * wrong on every GPU. The build compiles stage files with GCC's -fsanitize=alignment
 * (emu/CMakeLists.txt), which checks each access against its type's alignment (the emulator's
 * vector types are aligned as CUDA's: emu_kernel.h) and calls the handler below, before the
 * access, when it is not met; libubsan is not linked, this file answers the call. Part of the
 * emulator's runtime.
 *
 * Inside a kernel the access is a fault of the launch, like the scheduler's others
 * (emu::misaligned_address_error, emu/src/scheduler.cpp): the message names the kernel, its
 * launch, the block, the thread and the line of the access; the thread stops there, before the
 * access (so an access the compiler made with an instruction that needs the alignment, movaps,
 * never runs and never crashes), and the launch ends at once. The fault is sticky: every later
 * CUDA call returns it, as after a GPU's fault, and cudaGetErrorString gives the message.
 * Host code (the launcher) runs on the CPU, where the access is legal: not reported.
 */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <unistd.h>

#include "emu_internal.h"

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

/** Inside a kernel: the launch's fault, and the thread stops here (does not return). */
void misaligned(void *raw, void *pointer)
{
    if (!emu::counting.lane)
        return; /* host code: the CPU's access is legal */
    const TypeMismatchData *data = static_cast<const TypeMismatchData *>(raw);
    char type[120];
    type_name(data->type, type, sizeof type);
    const char *access = data->check_kind == 1 ? "stores" : data->check_kind == 0 || data->check_kind == 2 ? "loads"
                                                                                                            : "accesses";
    emu::misaligned_address_error(access, type, data->location.file ? data->location.file : "?",
                                  data->location.line, pointer, 1ull << data->log_alignment);
}

} // namespace

extern "C" {
void __ubsan_handle_type_mismatch_v1(void *data, void *pointer) { misaligned(data, pointer); }
/* -fno-sanitize-recover's form, which must not return: in host code the program ends. */
void __ubsan_handle_type_mismatch_v1_abort(void *data, void *pointer)
{
    misaligned(data, pointer);
    const TypeMismatchData *d = static_cast<const TypeMismatchData *>(data);
    fprintf(stderr, "emulator: host code accesses %p at %s:%u, not a multiple of %llu bytes\n", pointer,
            d->location.file ? d->location.file : "?", d->location.line, 1ull << d->log_alignment);
    _exit(1);
}
}
