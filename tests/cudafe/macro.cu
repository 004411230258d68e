// tests/cudafe/macro.cu: launches that macros write, through the real preprocessor
// (tests/check-cudafe.sh runs g++ -E first, as bin/shmemu-nvcc does).
#define LAUNCH(k, n) k<<<n, 1>>>()
#define LAUNCH_ARGS(k, ...) k<<<1, 1>>>(__VA_ARGS__)
#define KERNEL(name) __global__ void name()
#define SHARED_TILE(t, n) __shared__ t tile[n]
#define DYN(t, name) extern __shared__ t name[]

KERNEL(kern) { SHARED_TILE(float, 32); tile[0] = 1; (void)tile[0]; }
__global__ void add(int *p, int a, int b) { DYN(int, s); s[0] = a; p[0] = s[0] + b; }

int main()
{
    int v[1];
    LAUNCH(kern, 4);
    LAUNCH(
        kern,
        2);
    LAUNCH_ARGS(add, v, 1, 2);
    LAUNCH_ARGS(add, v,
                3,
                4);
    return v[0] == 7 ? 0 : 1;
}
