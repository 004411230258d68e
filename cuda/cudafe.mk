# cuda/cudafe.mk: shmemu-cudafe, the source rewriter of shmemu-nvcc.
