/*
 * The `fenns` command-line tool (docs/formats.md). main.c dispatches on the first
 * argument; each subcommand gets argc/argv with argv[0] = its own name
 * ("info", "neighbors") and returns the process exit status.
 *
 * Conventions every subcommand follows: every failure prints exactly one line
 * "fenns: error: ..." on stderr; warnings print "fenns: warning: ..."; --help
 * prints the subcommand's usage on stdout and returns 0.
 */
#ifndef FENNS_CLI_H
#define FENNS_CLI_H

#include <fenns/fenns.h>

/* Exit statuses. */
#define FENNS_CLI_EXIT_OK 0
#define FENNS_CLI_EXIT_FAILURE 1 /* bad input file, device or search failure */
#define FENNS_CLI_EXIT_USAGE 2   /* unknown command/option, bad option value */

/* fenns info: devices, limits, chosen plan. */
int fenns_cli_info(int argc, char **argv);

/* fenns neighbors --input F --radius R [--method fenns|fenns-paper] [--output F|-]
 *                 [--device I] [--domain x0,y0,z0,x1,y1,z1] [--stats] */
int fenns_cli_neighbors(int argc, char **argv);

/* fenns run --input F --radius R --kernel K.glsl --output OUT.f32 [--method M] [--device I]
 *           [--domain ...] [--stats]: a user neighbour kernel's vec4 per point, raw float32. */
int fenns_cli_run(int argc, char **argv);

/* fenns bench [--scenario S] [--n N] [--radius R] [--method M|all] [--reps K] [--passes]
 *             [--passes-csv F] [--plot F.svg] [--no-host] [--device I]: CSV of warm timings. */
int fenns_cli_bench(int argc, char **argv);

/* fenns profile [--scenario S] [--n N] [--radius R] [--method M] [--reps K] [--json F]:
 * per-pass table of one case. */
int fenns_cli_profile(int argc, char **argv);

/* "x0,y0,z0,x1,y1,z1" -> a box (min below max on every axis): 0, else 1 after
 * printing the error line. */
int fenns_cli_parse_domain(const char *s, float lo[3], float hi[3]);

/* "fenns", "fenns-paper", "counting", "octant", "radix" or "auto" -> the
 * method: 0, else 1 (nothing printed). */
int fenns_cli_parse_method(const char *s, fenns_method *out);

#endif /* FENNS_CLI_H */
