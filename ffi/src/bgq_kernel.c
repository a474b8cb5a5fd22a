/* The BG/Q module's hardware provider (bgq_wrap.rs): what the BG/Q kernel
 * and MPIX say about this process's node. Compiled only for BG/Q targets
 * (build.rs, with --cfg darshan_bgq), against IBM's system headers; never
 * on Linux, and never built or run here: the hardware is retired. */
#ifdef __bgq__
#include <stdint.h>
#include <mpix.h>
#include <spi/include/kernel/location.h>
#include <spi/include/kernel/process.h>
#include <firmware/include/personality.h>

/* out[0..3]: control system job id, processes on this node, I/O node id.
 * Returns 1 with out[3..11] (compute nodes, the A..E dimensions, the
 * wrap-around bit of each, DDR MiB per node) if the personality could be
 * read, else 0. */
int darshan_bgq_node(int64_t *out)
{
    Personality_t p;
    out[0] = Kernel_GetJobID();
    out[1] = Kernel_ProcessCount();
    out[2] = MPIX_IO_node_id();
    if (Kernel_GetPersonality(&p, sizeof p) != 0)
        return 0;
    const uint64_t flags = p.Network_Config.NetFlags;
    const uint64_t wraps[5] = {ND_ENABLE_TORUS_DIM_A, ND_ENABLE_TORUS_DIM_B, ND_ENABLE_TORUS_DIM_C,
                               ND_ENABLE_TORUS_DIM_D, ND_ENABLE_TORUS_DIM_E};
    out[3] = ND_TORUS_SIZE(p.Network_Config);
    out[4] = p.Network_Config.Anodes;
    out[5] = p.Network_Config.Bnodes;
    out[6] = p.Network_Config.Cnodes;
    out[7] = p.Network_Config.Dnodes;
    out[8] = p.Network_Config.Enodes;
    out[9] = 0;
    for (int i = 0; i < 5; i++)
        out[9] |= (int64_t)((flags & wraps[i]) == wraps[i]) << i;
    out[10] = p.DDR_Config.DDRSizeMB;
    return 1;
}
#endif
