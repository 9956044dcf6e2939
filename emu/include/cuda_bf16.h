/* <cuda_bf16.h>: not on the emulator (the kit's stages reduce ints). */
#error "the kit's CPU emulator does not support <cuda_bf16.h>"
