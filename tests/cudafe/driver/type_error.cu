// tests/cudafe/driver/type_error.cu: a deliberate type error on line 6; the compiler's
// message must name type_error.cu:6, not the temporary file.
__global__ void k(int *p)
{
    __shared__ int tile[4];
    const char *wrong = tile[0] + p;
    (void)wrong;
}
