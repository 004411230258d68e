// globals.cpp: a C++ program's globals and static objects are per PE too (shmemu-cc with a
// C++ compiler: SHMEMU_CC=g++). Each PE appends its number to a global vector, which must
// then hold exactly that number; a static object's constructor ran once per PE's copy.
#include <cstdio>
#include <vector>
#include <shmem.h>

static std::vector<int> mine;
static int constructed;
struct Counter {
    Counter() { constructed++; }
};
static Counter counter;

int main()
{
    shmem_init();
    mine.push_back(shmem_my_pe());
    shmem_barrier_all();
    bool ok = mine.size() == 1 && mine[0] == shmem_my_pe() && constructed == 1;
    std::printf("PE %d: vector of %zu, constructed %d: %s\n", shmem_my_pe(), mine.size(),
                constructed, ok ? "ok" : "WRONG");
    shmem_finalize();
    return ok ? 0 : 1;
}
