// tests/cudafe/driver/rewrite_error.cu: a launch configuration with one part, on line 8:
// shmemu-cudafe must refuse it naming rewrite_error.cu:8.
#define ONE 1
__global__ void k() {}

int main()
{
    k<<<ONE>>>();
    return 0;
}
