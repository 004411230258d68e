// tests/cudafe/driver/launch_error.cu: a launch with an argument the kernel cannot take,
// on line 9: the compiler's message must name launch_error.cu:9.
__global__ void k(int *p, int n) { p[0] = n; }

int main()
{
    int v[1];
    struct not_int {} x;
    k<<<1, 1>>>(v, x);
    return 0;
}
