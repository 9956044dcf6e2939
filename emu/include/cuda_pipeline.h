/* <cuda_pipeline.h>: not on the emulator (the kit's stages reduce ints). */
#error "the kit's CPU emulator does not support <cuda_pipeline.h>"
