/* SPDX-License-Identifier: MIT */
/*
 * host_transfer: one large copy between host and device memory, from or to pageable host memory
 * (malloc) vs pinned, page-locked host memory (cudaMallocHost).
 *
 * What: input `h2d` copies n fp32 values from a host buffer to a device buffer; input `d2h` copies
 *   them from a device buffer to a host buffer. Each variant is one cudaMemcpyAsync; the variants
 *   differ only in the kind of host memory. Host transfer is this pair's pattern, so its run()
 *   callbacks copy between host and device (the harness contract allows it when the transfer is
 *   what is measured). No kernel of ours runs: the copy engines do the work.
 *
 * Work: 0 flops; 4n bytes cross the PCIe link once: bytes() = 4n. Full size n = 2^28: 1 GiB.
 *   The roof here is the host link, not DRAM. The harness's rate column compares GB/s with the
 *   DRAM ceiling (~3 TB/s on an H100), so its %ceil of ~2% says nothing about this pair. The
 *   honest figure is the extra `of_link` = achieved GB/s / `link_gbps`, the theoretical rate of
 *   the link NVML reports (gen 5 x16: 32 GT/s x 16 lanes x 128/130 line code / 8 = 63.0 GB/s
 *   per direction; NaN where the driver does not report the link, as in some virtual machines).
 *
 * Baseline (pageable): a copy engine can only DMA to or from memory whose physical pages cannot
 *   move, and malloc'd pages can be swapped or migrated at any time. So the driver copies a
 *   pageable buffer through its own small pinned staging buffers: the CPU memcpy's a piece into
 *   staging, the copy engine moves it across the link, and so on. The transfer runs at the speed
 *   of that relay, usually set by one CPU thread's memcpy bandwidth and by how well the driver
 *   overlaps the two halves. It is also synchronous for the host: a pageable D2H copy returns
 *   only once the data is in the user's buffer, so the CPU cannot queue anything else meanwhile.
 *   The pageable buffers are written once in setup, so page faults of first touch are not timed.
 *
 * Optimized (pinned): cudaMallocHost returns page-locked host memory that is mapped for the
 *   device. The copy engine reads or writes it directly in one DMA, with no CPU copy and no
 *   staging, so the transfer runs at the link's rate less the protocol overhead (packet headers
 *   and flow control: ~85-90% of the line rate is what PCIe delivers in practice). The cost moves
 *   to allocation time: pinning 1 GiB takes a noticeable fraction of a second, and pinned memory
 *   is taken away from the OS's page cache, so programs pin their transfer buffers once and
 *   reuse them (see streams_overlap, which builds on this pair).
 *
 * Predicted (H100 SXM, PCIe gen 5 x16 = 63.0 GB/s per direction, before measuring): pinned H2D
 *   and D2H ~52-56 GB/s each (of_link 0.83-0.89); pageable ~10-25 GB/s, set by the host's
 *   single-thread memcpy into staging and its memory bandwidth, which differ between machines:
 *   speedup ~2-5x. Acceptance: pinned >= 0.8x the link in each direction, where it is reported.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#include "kernel_info.h"
#include "kernels/host_transfer.h"

/* No kernel of ours: the pair's variants run copy engines only. The table is empty. */
extern "C" const rb_kernel_info host_transfer_kernels[] = {{NULL, NULL, NULL, 0, 0}};

/* Host to device. src may be pageable or pinned: the runtime finds out which and stages a
 * pageable source itself. Enqueue only (for pinned memory; pageable staging blocks the host). */
extern "C" cudaError_t host_transfer_h2d(float *dst_dev, const float *src_host, size_t n,
                                         cudaStream_t stream)
{
    return cudaMemcpyAsync(dst_dev, src_host, n * sizeof(float), cudaMemcpyHostToDevice, stream);
}

/* Device to host. A pageable destination makes this call return only once the copy is done. */
extern "C" cudaError_t host_transfer_d2h(float *dst_host, const float *src_dev, size_t n,
                                         cudaStream_t stream)
{
    return cudaMemcpyAsync(dst_host, src_dev, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
}
