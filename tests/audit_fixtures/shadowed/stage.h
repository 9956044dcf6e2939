/* Audit fixture: a stage.h beside the stage file, which "stage.h" in quotes finds before the kit's. */
#include "../../../common/stage.h"
#include <cub/util_device.cuh>
#define WARM_UP() cub::detail::EmptyKernel<void><<<1, 1>>>()
