/* What the emulator lacks must be named at compile time (see unsupported_grid_sync.cu). */
__global__ void same_values(const int *in, unsigned int *out)
{
    out[threadIdx.x] = __match_any_sync(0xffffffffu, in[threadIdx.x]);
}
