// tests/cudafe/driver/per_thread.cu: --default-stream per-thread defines
// CUDA_API_PER_THREAD_DEFAULT_STREAM, as nvcc does; without it, it is not defined.
#if defined(WANT_PER_THREAD) != defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "--default-stream per-thread and CUDA_API_PER_THREAD_DEFAULT_STREAM disagree"
#endif
int per_thread_unit;
