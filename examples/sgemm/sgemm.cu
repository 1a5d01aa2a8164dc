// Shared-memory tiled SGEMM, C = A * B for square row-major FP32 matrices (CUDA cores, FFMA only).
//
// Each 32x32 thread block stages 32x32 tiles of A and B in shared memory; each thread accumulates one
// element of C, so every value loaded from global memory is reused 32 times from shared memory.
//
// Build:  mkdir -p build && nvcc -O3 -arch=native -o build/sgemm examples/sgemm/sgemm.cu
//         (if your nvcc does not know -arch=native, name your GPU, e.g. -arch=sm_80)
// Run:    build/sgemm [N] [repeats]          (default N = 2048, 3 repeats)
// Roofline: roofline analyze -k sgemm_tiled build/sgemm 2048 1

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

constexpr int TILE = 32;

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "sgemm: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

// One thread per C element; tiles of A and B pass through shared memory. Out-of-range loads read 0.
__global__ void sgemm_tiled(int n, const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        const int a_col = k0 + threadIdx.x;
        const int b_row = k0 + threadIdx.y;
        a_tile[threadIdx.y][threadIdx.x] = (row < n && a_col < n) ? a[row * n + a_col] : 0.0f;
        b_tile[threadIdx.y][threadIdx.x] = (b_row < n && col < n) ? b[b_row * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            sum = fmaf(a_tile[threadIdx.y][k], b_tile[k][threadIdx.x], sum);
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        c[row * n + col] = sum;
    }
}

// Host reference for one element, to check the GPU result at a few places.
static float reference(int n, const std::vector<float>& a, const std::vector<float>& b, int row, int col)
{
    double sum = 0.0;
    for (int k = 0; k < n; ++k) {
        sum += static_cast<double>(a[row * n + k]) * b[k * n + col];
    }
    return static_cast<float>(sum);
}

// Fill with small deterministic values so the FP32 sums stay exact enough to compare.
static void fill(std::vector<float>& m, int seed)
{
    for (size_t i = 0; i < m.size(); ++i) {
        m[i] = static_cast<float>((i * 7 + seed) % 13) / 13.0f - 0.5f;
    }
}

// Compare three C elements against the host reference; returns false on a mismatch.
static bool verify(int n, const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c)
{
    const int probes[3][2] = {{0, 0}, {n / 2, n / 3}, {n - 1, n - 1}};
    for (const auto& p : probes) {
        const float want = reference(n, a, b, p[0], p[1]);
        const float got = c[p[0] * n + p[1]];
        if (std::abs(got - want) > 1e-3f * n) {
            std::fprintf(stderr, "sgemm: C[%d][%d] = %g, expected %g\n", p[0], p[1], got, want);
            return false;
        }
    }
    return true;
}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
    if (n <= 0 || repeats <= 0) {
        std::fprintf(stderr, "usage: %s [N > 0] [repeats > 0]\n", argv[0]);
        return 2;
    }
    const size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
    std::vector<float> a(static_cast<size_t>(n) * n), b(a.size()), c(a.size());
    fill(a, 1);
    fill(b, 5);

    float *d_a, *d_b, *d_c;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_c, bytes));
    CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice));

    const dim3 block(TILE, TILE);
    const dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (int i = 0; i < repeats; ++i) {
        sgemm_tiled<<<grid, block>>>(n, d_a, d_b, d_c);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaMemcpy(c.data(), d_c, bytes, cudaMemcpyDeviceToHost));

    const bool ok = verify(n, a, b, c);
    const double seconds = ms / 1e3 / repeats;
    std::printf("sgemm_tiled: N=%d, %.1f GFLOP/s, result %s\n", n, 2.0 * n * n * n / seconds / 1e9,
                ok ? "verified" : "WRONG");
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    return ok ? 0 : 1;
}
