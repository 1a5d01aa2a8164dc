// Two kernels that do no floating-point work, for the instruction and integer rooflines and for source hot spots.
//
// hash_rounds:    each thread runs ROUNDS rounds of an integer mixing hash (multiply, xor, shift) on its index
//                 and writes one 32-bit word: integer-pipe bound, 4 bytes of DRAM traffic per thread.
// gather_strided: out[i] = in[(i * STRIDE) mod n]: each warp's 32 loads touch 32 different 32-byte sectors, so
//                 a load instruction needs 32 transactions instead of 4 (uncoalesced, off the unit-stride wall).
//
// Build:  mkdir -p build && nvcc -O3 -lineinfo -arch=native -o build/intops examples/intops/intops.cu
// Run:    build/intops [N] [repeats]          (default N = 2^26, 1 repeat)
// Roofline with source lines:
//         roofline analyze --set full -k regex:'hash_rounds|gather_strided' -c 2 build/intops

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

constexpr int ROUNDS = 64;
constexpr uint32_t STRIDE = 33;

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "intops: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

// One round of a 32-bit mixing hash (the finaliser of MurmurHash3's shape): integer multiply, xor and shift only.
__host__ __device__ inline uint32_t mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

__global__ void hash_rounds(uint32_t n, uint32_t* __restrict__ out)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    uint32_t h = i;
#pragma unroll 8
    for (int r = 0; r < ROUNDS; ++r) {
        h = mix(h + r);
    }
    out[i] = h;
}

__global__ void gather_strided(uint32_t n, const uint32_t* __restrict__ in, uint32_t* __restrict__ out)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    const uint32_t j = static_cast<uint32_t>((static_cast<uint64_t>(i) * STRIDE) % n);
    out[i] = in[j];
}

// Check one element of each kernel's output against the host.
static bool verify(uint32_t n, const uint32_t* hashed, const uint32_t* gathered)
{
    const uint32_t i = n / 3;
    uint32_t h = i;
    for (int r = 0; r < ROUNDS; ++r) {
        h = mix(h + r);
    }
    const uint32_t j = static_cast<uint32_t>((static_cast<uint64_t>(i) * STRIDE) % n);
    if (hashed[i] != h || gathered[i] != j) {
        std::fprintf(stderr, "intops: wrong result at %u\n", i);
        return false;
    }
    return true;
}

int main(int argc, char** argv)
{
    const uint32_t n = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : (1u << 26);
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 1;
    if (n == 0 || repeats < 1) {
        std::fprintf(stderr, "usage: intops [N > 0] [repeats >= 1]\n");
        return 2;
    }
    uint32_t *in = nullptr, *hashed = nullptr, *gathered = nullptr;
    CHECK(cudaMalloc(&in, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&hashed, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&gathered, n * sizeof(uint32_t)));
    const int block = 256;
    const unsigned grid = (n + block - 1) / block;
    // The input of the gather is the identity, so out[i] == (i * STRIDE) mod n.
    hash_rounds<<<grid, block>>>(n, in);  // warm-up; overwritten below
    CHECK(cudaGetLastError());
    uint32_t* host = static_cast<uint32_t*>(std::malloc(n * sizeof(uint32_t)));
    uint32_t* host_g = static_cast<uint32_t*>(std::malloc(n * sizeof(uint32_t)));
    for (uint32_t k = 0; k < n; ++k) {
        host[k] = k;
    }
    CHECK(cudaMemcpy(in, host, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    for (int r = 0; r < repeats; ++r) {
        hash_rounds<<<grid, block>>>(n, hashed);
        gather_strided<<<grid, block>>>(n, in, gathered);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host, hashed, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(host_g, gathered, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    const bool ok = verify(n, host, host_g);
    std::printf("intops: n=%u repeats=%d %s\n", n, repeats, ok ? "ok" : "WRONG");
    std::free(host);
    std::free(host_g);
    CHECK(cudaFree(in));
    CHECK(cudaFree(hashed));
    CHECK(cudaFree(gathered));
    return ok ? 0 : 1;
}
