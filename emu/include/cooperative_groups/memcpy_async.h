/* cooperative_groups::memcpy_async and wait: not on the emulator. */
#error "the kit's CPU emulator does not support <cooperative_groups/memcpy_async.h> (cooperative_groups::memcpy_async): copy into shared memory with ordinary loads and a sync()"
