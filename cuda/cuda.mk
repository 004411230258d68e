# cuda/cuda.mk: the CUDA compatibility layer (C++ headers and runtime over emu/ and pgas/).
