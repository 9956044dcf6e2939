/*
 * Emulator fixture (stage 6's slot), a valid alternative kernel: a shared array used as C++ allows.
 *
 * The emulator turns a __shared__ array into a checked per-block view, so every use of the
 * name must still mean what it means on a GPU: sizeof(sdata) is the array's size (the loop
 * bound here), reinterpret_cast<int2 *>(sdata) and (int2 *)sdata reinterpret it, sdata + k
 * is a pointer, a __device__ function takes it as int *, and a two-dimensional array keeps
 * its rows.
 */
#include "stage.h"

static __device__ int add_pair(const int *pairs, unsigned int k) { return pairs[2 * k] + pairs[2 * k + 1]; }

template <unsigned int blockSize>
static __global__ void shared_array_uses(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[blockSize];
    __shared__ int rows[2][blockSize / 2];
    constexpr unsigned int count = sizeof(sdata) / sizeof(sdata[0]);
    static_assert(sizeof sdata == blockSize * sizeof(int), "sizeof a shared array is its size");
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockSize) + tid;
    int sum = (i < n) ? in[i] : 0;
    if (i + blockSize < n)
        sum += in[i + blockSize];
    rows[tid / (blockSize / 2)][tid % (blockSize / 2)] = sum;
    __syncthreads();
    if (tid < count / 2) {
        int2 pair = make_int2(rows[0][tid], rows[1][tid]);
        reinterpret_cast<int2 *>(sdata)[tid] = pair; /* sdata[2 tid], sdata[2 tid + 1] */
    }
    __syncthreads();
    if (tid < count / 2)
        rows[0][tid] = add_pair(sdata, tid);
    __syncthreads();
    int *first = &rows[0][0];
    for (unsigned int s = count / 4; s > 0; s >>= 1) {
        if (tid < s)
            *(first + tid) += ((int2 *)sdata)[0].x * 0 + first[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = *first;
}

static size_t launch_shared_array_uses(const int *in, int *out, size_t n, unsigned threads)
{
    unsigned int blocks = (unsigned int)((n + 2 * threads - 1) / (2 * threads));
    unsigned int count = (unsigned int)n;
    switch (threads) {
    case 64: shared_array_uses<64><<<blocks, 64>>>(in, out, count); break;
    case 128: shared_array_uses<128><<<blocks, 128>>>(in, out, count); break;
    case 256: shared_array_uses<256><<<blocks, 256>>>(in, out, count); break;
    case 512: shared_array_uses<512><<<blocks, 512>>>(in, out, count); break;
    case 1024: shared_array_uses<1024><<<blocks, 1024>>>(in, out, count); break;
    default: return 0;
    }
    return blocks;
}

KIT_REGISTER_STAGE(shared_array_uses, launch_shared_array_uses)
