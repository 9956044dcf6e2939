/* The emulator's build of features/cuda_features.cu: its main() (nvcc's build has its own). */
int kit_cuda_features(void);

int main(void)
{
    return kit_cuda_features();
}
