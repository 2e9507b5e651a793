/* The dam break's parameters, shared by the C host (sph.c) and the GLSL
 * kernels and passes (#included by both), so the two never disagree.
 * Weakly compressible SPH (Monaghan 1994; Becker & Teschner 2007) in SI
 * units: a water column of 0.25 x 0.5 x 0.25 m collapsing in a 1.0 x 0.7
 * x 0.25 m tank. */
#ifndef FENNS_SPH_PARAMS_H
#define FENNS_SPH_PARAMS_H

#define SPH_REST_DENSITY 1000.0   /* kg/m^3 */
#define SPH_GRAVITY (-9.81)       /* m/s^2, along y */
#define SPH_SOUND_SPEED 12.0      /* m/s: ~5x the fastest flow, density error ~4% */
#define SPH_TAIT_GAMMA 7.0
#define SPH_VISCOSITY 0.06        /* artificial viscosity alpha (Monaghan) */
#define SPH_TANK_X 1.0
#define SPH_TANK_Y 0.7
#define SPH_TANK_Z 0.25
#define SPH_COLUMN_X 0.25
#define SPH_COLUMN_Y 0.5
#define SPH_WALL_DAMPING 0.3      /* of the normal velocity, at the walls */

#endif
